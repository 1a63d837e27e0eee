// choreo edit's Talk tab (docs/editor.md, "Talk to it while it plays"; marked while Play runs): what
// a person would do to the robot — a sentence it hears (a Dialog's topics answer it as
// ALDialog does), a touch of the head or a hand, a face shown — sent to the run as its
// `world` message (a scenario's action, docs/scenarios.md), and the conversation: what was
// heard beside what the robot said. Methods of the page's Monitor (monitor.js), mixed in.

import { h } from "./dom.js";

/** The touches offered: the sensor's ALMemory event (both robots have these) and a name. */
const TOUCHES = [
  ["FrontTactilTouched", "Touch head", "talk-head"],
  ["HandLeftBackTouched", "Left hand", "talk-left"],
  ["HandRightBackTouched", "Right hand", "talk-right"],
];

export class TalkPane {
  /** The Talk tab, made once. */
  setupTalk() {
    const E = this.el;
    if (E.talk) return;
    E.tabTalk = h("button", { type: "button", class: "tab", "data-tab": "talk", text: "Talk", onclick: () => this.showTab("talk") });
    E.tabProblems.after(E.tabTalk);
    E.talkSentence = h("input", { id: "talk-sentence", type: "text", placeholder: "what the robot hears (Enter)" });
    E.talkSentence.addEventListener("keydown", (e) => {
      if (e.key === "Enter") this.hear();
      e.stopPropagation(); // the diagram's keys (Delete, Ctrl+Z) are not the field's
    });
    const touches = TOUCHES.map(([sensor, text, id]) => h("button", { id, type: "button", text, title: `${sensor}: pressed, released after a moment`, onclick: () => this.act({ step: { touch: sensor } }, `touched: ${text.toLowerCase()}`) }));
    const face = h("button", { id: "talk-face", type: "button", text: "Show a face", title: "FaceDetected: a face in front of the camera", onclick: () => this.act({ event: "FaceDetected" }, "shows a face") });
    E.talkTools = h("div", { class: "talk-tools" }, E.talkSentence,
      h("button", { id: "talk-say", type: "button", class: "primary", text: "Say it", onclick: () => this.hear() }), ...touches, face);
    E.conversation = h("div", { id: "conversation", class: "conversation log-rows" });
    E.talk = h("div", { id: "talk", class: "tabpane talk", hidden: true }, E.talkTools, E.conversation);
    E.props.after(E.talk);
    this.renderTalk(false);
  }

  /** The sentence typed, heard by the robot as its speech recognition gives it. */
  hear() {
    const E = this.el;
    const text = E.talkSentence.value.trim();
    if (!text) return;
    if (this.act({ step: { recognize: { word: text } } })) E.talkSentence.value = "";
  }

  /** Sends a person's doing to the run playing. */
  act(world, told) {
    if (!this.playing) {
      this.toast("press Play first");
      return false;
    }
    this.pendingTold = told;
    return this.send({ type: "world", ...world });
  }

  /** The run took it: the conversation says what the person did. */
  onWorldDone(msg) {
    const word = msg.step?.recognize?.word;
    this.addLine("heard", word ?? this.pendingTold ?? "did something");
  }

  addLine(who, text) {
    const E = this.el;
    if (!E.conversation) return;
    E.conversation.querySelector(".empty-note")?.remove();
    E.conversation.append(h("div", { class: `line ${who}`, "data-who": who },
      h("span", { class: "who", text: who === "said" ? "robot" : "you" }), h("span", { class: "what", text })));
    E.conversation.scrollTop = E.conversation.scrollHeight;
  }

  /** What the robot says now (the run's `said`: text, seconds, time): one line each. */
  talkSaid(said) {
    if (!this.el.conversation || !said || typeof said.text !== "string") return;
    const key = `${said.time_ns}\n${said.text}`;
    if (key === this.lastSaidKey) return;
    this.lastSaidKey = key;
    this.addLine("said", said.text);
  }

  /** Play started (a new conversation; the tab marked, not shown: the Properties being
   * edited stay) or ended (the tools off). */
  renderTalk(playing) {
    const E = this.el;
    if (!E.talk) return;
    for (const b of E.talkTools.querySelectorAll("input, button")) b.disabled = !playing;
    E.tabTalk.classList.toggle("live", playing);
    if (playing) {
      E.conversation.replaceChildren();
    } else if (!E.conversation.children.length) {
      E.conversation.append(h("div", { class: "empty-note", text: "Play, then say something to the robot or touch it" }));
    }
  }
}
