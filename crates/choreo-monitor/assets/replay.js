// choreo's live monitor: Replay (`choreo replay`): the bar that plays, pauses, seeks and steps a recorded run.
// Methods of the page's Monitor (monitor.js), mixed into it there.

import { SPEEDS, icon } from "./dom.js";

export class Replay {
  renderReplay() {
    const E = this.el;
    const r = this.replay;
    if (!r) return;
    E.rpPlay.replaceChildren(icon(r.playing ? "pause" : "play"), r.playing ? " Pause" : " Play");
    E.rpPlay.dataset.playing = r.playing ? "true" : "false";
    E.rpSeek.max = String(r.last);
    if (!this.seeking) E.rpSeek.value = String(r.seq);
    E.rpPos.textContent = `seq ${r.seq} / ${r.last}`;
    let best = SPEEDS[0];
    for (const sp of SPEEDS) if (Math.abs(sp - r.speed) < Math.abs(best - r.speed)) best = sp;
    if (document.activeElement !== E.rpSpeed) E.rpSpeed.value = String(best);
    E.rpBack.disabled = r.seq <= 0;
    E.rpFwd.disabled = r.seq >= r.last;
  }

  replayToggle() {
    const playing = this.replay?.playing;
    this.send({ type: playing ? "pause" : "play" });
  }

  replayStep(d) {
    const seq = this.replay?.seq ?? this.seq ?? 0;
    if (d < 0) this.send({ type: "seek", seq: Math.max(0, seq - 1) });
    else this.send({ type: "step", count: 1 });
  }
}
