// The Robot pane's 3D view: the robot drawn with simple shapes from the `robot` message (its
// kinematic chain, docs/monitor.md), posed by the joints monitor.js announces, with three.js
// (vendor/, "three" in index.html's import map). Drag to turn around the robot, the wheel to
// zoom, a double click to look from the front again. It draws only when something changed;
// without WebGL it says so in its box and the rest of the page goes on.
//
// monitor.js hands it the robot with a `choreo-monitor:robot` document event (and keeps the
// message as `choreoMonitor.robotChain` for a view that loads later), the joints with
// `choreo-monitor:joints` ({names, values}: radians, hands as opening ratios 0..1).
//
// The robot's balance comes with `choreo-monitor:balance` ({balance, fell}: the monitor's
// choreo-body stance in FRAME_TORSO, metres): the support polygon on the floor, the centre
// of mass and its drop to the floor, drawn on the torso so they move with the robot; green
// while the CoM is over the polygon, amber outside it, red once the robot fell. After a fall
// ({fell}: the run's words, "NAO fell forwards at ..."), the robot lies on the floor the way
// it fell: on its belly forwards, on its back backwards, on a side to the left or right.
//
// For tests, #robot3d carries data-state (loading, waiting, drawn, no-model, no-webgl, failed),
// data-model, data-renders (frames drawn), data-poses (joint updates applied), data-box
// (its canvas in page pixels: "x,y,width,height"), data-balance (none, standing, outside,
// fell), data-polygon (the support polygon's corners drawn), data-lying (none, belly, back,
// left, right) and data-leds (each light's LED group and the colour it fades to,
// "LeftFaceLeds=#00ff00 ..."), data-limb (the joint a limb drag moves); the element's
// `view` property is the view (`screenOf` for a point of the robot on the page).
//
// In an editor posing the robot (a timeline box's Pose panel, #pose, is shown), dragging a
// limb turns the joint it hangs from: `choreo-monitor:pose-drag` ({joint, delta}: radians,
// 0.01 a pixel to the right), which the Pose sliders take within the joint's range.

const HOST = "robot3d";

/** How the robot lies after a fall: the turn about its feet (axis in its frame, angle). */
const LYING = {
  belly: [[0, 1, 0], Math.PI / 2],
  back: [[0, 1, 0], -Math.PI / 2],
  left: [[1, 0, 0], -Math.PI / 2],
  right: [[1, 0, 0], Math.PI / 2],
};

/** Which way the run's words about a fall lay the robot ("fell forwards": belly), or null. */
function lyingOf(fell) {
  if (typeof fell !== "string") return null;
  if (fell.includes("fell forwards")) return "belly";
  if (fell.includes("fell backwards")) return "back";
  if (fell.includes("fell to the left")) return "left";
  if (fell.includes("fell to the right")) return "right";
  return null;
}

/** Colours of the shapes. */
const COLOURS = {
  shell: 0xe9edf3,
  joint: 0x5c6573,
  dark: 0x2b313b,
  eye: 0x3fb8ff,
  ear: 0x0000ff,
  off: 0x000000,
  floor: 0x3a4352,
  floorCentre: 0x56627a,
  balanced: 0x46c37b,
  outside: 0xf5a524,
  fell: 0xe5484d,
};

/** A neutral pose before the first joints arrive: arms hanging, everything else at 0. */
const NEUTRAL = {
  LShoulderPitch: 1.45, RShoulderPitch: 1.45,
  LShoulderRoll: 0.12, RShoulderRoll: -0.12,
  LElbowRoll: -0.2, RElbowRoll: 0.2,
  LElbowYaw: -1.2, RElbowYaw: 1.2,
  LHand: 0.3, RHand: 0.3,
};

const isHand = (name) => name === "LHand" || name === "RHand";
const isVec3 = (v) => Array.isArray(v) && v.length === 3 && v.every((x) => typeof x === "number" && Number.isFinite(x));

function note(host, text, state) {
  host.textContent = "";
  const p = document.createElement("div");
  p.className = "robot3d-note";
  p.textContent = text;
  host.append(p);
  host.dataset.state = state;
}

/** Whether this browser can give three.js a WebGL 2 context. */
function hasWebGL2() {
  try {
    const c = document.createElement("canvas");
    return !!(window.WebGL2RenderingContext && c.getContext("webgl2"));
  } catch {
    return false;
  }
}

class RobotView {
  constructor(host, THREE) {
    this.host = host;
    host.view = this;
    this.T = THREE;
    this.angles = new Map(Object.entries(NEUTRAL)); // joint -> its last value
    this.frames = new Map(); // joint -> {moving, axis, hand}
    this.hands = []; // {joint, fingers: [Object3D]}
    this.ends = []; // Object3D at each end (the floor is under the lowest)
    this.supports = []; // ends that can carry the robot: {at, rest} (soles, Pepper's base)
    this.robotKey = null;
    this.lying = null; // after a fall: a key of LYING
    host.dataset.lying = "none";
    this.renders = 0;
    this.poses = 0;
    this.raf = 0;

    const T = THREE;
    this.renderer = new T.WebGLRenderer({ antialias: true, alpha: false });
    this.renderer.setPixelRatio(Math.min(window.devicePixelRatio || 1, 2));
    this.renderer.setClearColor(0x14181f, 1);
    this.canvas = this.renderer.domElement;
    this.canvas.className = "robot3d-canvas";
    this.canvas.addEventListener("webglcontextlost", (e) => {
      e.preventDefault();
      note(this.host, "the 3D view lost its WebGL context", "failed");
    });

    this.scene = new T.Scene();
    this.scene.add(new T.HemisphereLight(0xf2f5ff, 0x30343c, 2.2));
    const sun = new T.DirectionalLight(0xffffff, 1.4);
    sun.position.set(2, 4, -1.5);
    this.scene.add(sun);
    const back = new T.DirectionalLight(0x9fb6ff, 0.5);
    back.position.set(-2, 1.5, 2);
    this.scene.add(back);

    // The robot's own frames (x forward, y left, z up) turned into three's (y up).
    this.world = new T.Group();
    this.world.rotation.x = -Math.PI / 2;
    this.scene.add(this.world);

    this.camera = new T.PerspectiveCamera(32, 1, 0.01, 50);
    this.orbit = { azimuth: 0.55, elevation: 0.22, distance: 1.5, target: new T.Vector3(0, 0.3, 0) };
    this.home = { ...this.orbit, target: this.orbit.target.clone() };

    this.listen();
    this.resize();
    new ResizeObserver(() => this.resize()).observe(this.host);
    // The page's layout moves the canvas without a new drawing (a report's bar shown at the
    // end): data-box follows it.
    new MutationObserver(() => this.noteBox()).observe(document.body, {
      subtree: true, childList: true, attributes: true, attributeFilter: ["hidden", "class", "style"],
    });
  }

  /** Notes where the canvas is on the page (data-box: x,y,width,height), when it moved. */
  noteBox() {
    const r = this.canvas.getBoundingClientRect();
    const box = [r.left, r.top, r.width, r.height].map(Math.round).join(",");
    if (this.host.dataset.box !== box) this.host.dataset.box = box;
  }

  // ------------------------------------------------------------ the robot

  /** Builds the robot of a `robot` message (again only when it differs). */
  setRobot(msg) {
    if (!msg || !Array.isArray(msg.links)) return;
    const key = JSON.stringify([msg.links, msg.ends]);
    if (key === this.robotKey) return;
    this.robotKey = key;
    const T = this.T;
    if (this.robot) this.world.remove(this.robot);
    if (this.floor) this.scene.remove(this.floor);
    this.frames = new Map();
    this.jointOf = new Map(); // a joint's turning part -> the joint
    this.hands = [];
    this.ends = [];
    this.supports = [];

    const robot = new T.Group();
    const torso = new T.Group();
    robot.add(torso);
    this.torso = torso;
    this.balanceMarks = null;
    const frameOf = (parent) => (parent === null || parent === undefined ? torso : this.frames.get(parent)?.moving);

    // Frames: each joint's fixed place on its parent, then its turning part.
    const links = msg.links.filter((l) => l && typeof l.joint === "string" && isVec3(l.offset));
    for (const l of links) {
      const parent = frameOf(l.parent);
      if (!parent) continue;
      const fixed = new T.Object3D();
      fixed.position.set(...l.offset);
      if (isVec3(l.rotation)) fixed.rotation.set(l.rotation[0], l.rotation[1], l.rotation[2], "ZYX");
      const moving = new T.Object3D();
      fixed.add(moving);
      parent.add(fixed);
      const axis = isVec3(l.axis) ? new T.Vector3(...l.axis).normalize() : new T.Vector3(0, 0, 1);
      this.frames.set(l.joint, { moving, axis, hand: isHand(l.joint), link: l });
      if (!isHand(l.joint)) this.jointOf.set(moving, l.joint);
    }
    const ends = new Map();
    for (const e of Array.isArray(msg.ends) ? msg.ends : []) {
      if (!e || typeof e.name !== "string" || !isVec3(e.offset)) continue;
      const parent = frameOf(e.parent);
      if (!parent) continue;
      const at = new T.Object3D();
      at.position.set(...e.offset);
      at.userData.name = e.name;
      parent.add(at);
      ends.set(e.name, { ...e, joint: e.parent ?? null, parent, at });
      this.ends.push(at);
    }

    // Sizes, from the robot at rest: its height sets the thickness of everything.
    robot.updateMatrixWorld(true);
    const z = (o) => new T.Vector3().setFromMatrixPosition(o.matrixWorld).z;
    const top = ends.get("HeadTop") ? z(ends.get("HeadTop").at) : 0.25;
    const bottom = this.ends.length ? Math.min(...this.ends.map(z)) : -0.35;
    for (const [name, e] of ends) {
      if (/Sole$/.test(name) || name === "Base") {
        this.supports.push({ at: e.at, rest: new T.Vector3().setFromMatrixPosition(e.at.matrixWorld) });
      }
    }
    const height = Math.max(0.2, top - bottom);
    this.height = height;
    // How high the arms reach (a chain from above the torso's middle, stretched up).
    const rootOf = (joint) => {
      let l = this.frames.get(joint)?.link;
      while (l && l.parent !== null && l.parent !== undefined) l = this.frames.get(l.parent)?.link;
      return l;
    };
    let reach = top;
    const points = [...this.frames].map(([joint, f]) => [joint, f.moving]);
    for (const e of ends.values()) points.push([e.joint, e.at]);
    for (const [joint, object] of points) {
      const root = joint ? rootOf(joint) : null;
      if (!root || root.offset[2] <= 0) continue;
      const from = new T.Vector3(...root.offset);
      reach = Math.max(reach, from.z + from.distanceTo(new T.Vector3().setFromMatrixPosition(object.matrixWorld)));
    }
    const tall = reach - bottom;
    const unit = height / 0.57; // 1 for NAO
    const limb = 0.016 * unit;

    const mat = (colour, extra = {}) => new T.MeshStandardMaterial({ color: colour, roughness: 0.55, metalness: 0.05, ...extra });
    const shell = mat(COLOURS.shell);
    const jointMat = mat(COLOURS.joint);
    const dark = mat(COLOURS.dark, { roughness: 0.35 });
    // Each light its own material, coloured by its LED group (setLeds): the eyes and ears
    // (side 1 is the left), NAO's chest button, feet and head, Pepper's shoulders.
    const glow = (colour) => mat(colour, { emissive: colour, emissiveIntensity: 0.8 });
    const lit = (group, colour) => {
      const m = glow(colour);
      this.lights.set(group, m);
      return m;
    };
    this.lights = new Map();
    const side = (s) => (s === 1 ? "Left" : "Right");
    const eyeMat = {};
    const earMat = {};
    for (const s of [1, -1]) eyeMat[s] = lit(`${side(s)}FaceLeds`, COLOURS.eye);
    for (const s of [1, -1]) earMat[s] = lit(`${side(s)}EarLeds`, COLOURS.ear);
    const up = new T.Vector3(0, 1, 0);

    /** A rounded rod from a to b (vectors in `parent`'s frame). */
    const rod = (parent, a, b, radius, material = shell) => {
      const d = new T.Vector3().subVectors(b, a);
      const length = d.length();
      if (length < 1e-4) return null;
      const m = new T.Mesh(new T.CapsuleGeometry(radius, Math.max(1e-4, length), 6, 14), material);
      m.position.copy(a).addScaledVector(d, 0.5);
      m.quaternion.setFromUnitVectors(up, d.normalize());
      parent.add(m);
      return m;
    };
    const ball = (parent, at, radius, material = jointMat) => {
      const m = new T.Mesh(new T.SphereGeometry(radius, 20, 14), material);
      m.position.copy(at);
      parent.add(m);
      return m;
    };
    const origin = new T.Vector3();

    // The torso: a rounded block from the hips to the neck, as wide as the shoulders allow.
    const onTorso = links.filter((l) => l.parent === null || l.parent === undefined);
    const ys = onTorso.map((l) => Math.abs(l.offset[1]));
    const zs = onTorso.map((l) => l.offset[2]);
    const xs = onTorso.map((l) => l.offset[0]);
    const span = Math.max(0.05, ...ys);
    const zTop = Math.max(...zs, 0.05);
    const zBottom = Math.min(...zs, -0.05);
    const width = span * 1.45;
    let depth = Math.max(width * 0.62, 0.06 * unit);
    let middle = xs.reduce((a, b) => a + b, 0) / xs.length;
    const tablet = ends.get("Tablet");
    if (tablet) {
      // A chest deep enough to carry the tablet.
      const back = Math.min(...xs) - limb * 1.2;
      const front = tablet.offset[0] - limb * 0.4;
      depth = Math.max(depth, front - back);
      middle = (front + back) / 2;
    }
    const body = new T.Mesh(new T.CapsuleGeometry(0.5, 1, 8, 24), shell);
    const bodyHeight = zTop - zBottom + limb * 0.5;
    body.scale.set(depth, bodyHeight / 2, width);
    body.rotation.x = Math.PI / 2; // its long axis along z
    body.position.set(middle, 0, (zTop + zBottom) / 2 - limb * 0.5);
    // The capsule's length is 1 + 2 radii: scaled by bodyHeight / 2, it spans bodyHeight.
    torso.add(body);
    const chestMat = lit("ChestLeds", COLOURS.eye);
    if (!tablet) {
      // NAO's chest button.
      const chest = new T.Mesh(new T.CylinderGeometry(width * 0.13, width * 0.13, limb, 24), chestMat);
      chest.rotation.z = Math.PI / 2;
      chest.position.set(middle + depth / 2, 0, zTop - bodyHeight * 0.2);
      torso.add(chest);
    } else {
      // Pepper's ChestLeds are on its shoulders (the ChestBoard's two LEDs a side, 5 cm
      // apart front to back): a strip lying on each shoulder's joint.
      for (const s of [1, -1]) {
        const joint = this.frames.get(`${side(s)[0]}ShoulderPitch`)?.link;
        if (!joint) continue;
        const strip = new T.Mesh(new T.BoxGeometry(limb * 2.2, limb, limb * 0.5), chestMat);
        strip.position.set(joint.offset[0], joint.offset[1], joint.offset[2] + limb * 1.5);
        torso.add(strip);
      }
    }

    // Bones: every joint away from its parent joint is joined to it.
    for (const [name, f] of this.frames) {
      const l = f.link;
      const parent = l.parent === null || l.parent === undefined ? null : this.frames.get(l.parent);
      const to = new T.Vector3(...l.offset);
      if (parent && to.length() > 1e-4) {
        const radius = Math.min(limb * 2.4, Math.max(limb * 1.05, to.length() * 0.2));
        rod(parent.moving, origin, to, radius);
        if (!f.hand) ball(parent.moving, to, radius * 1.15);
      } else if (!parent && !f.hand) {
        ball(torso, to, limb * 1.35);
      }
      if (f.hand) this.hands.push(this.hand(name, f, to, limb, shell, jointMat, parent));
    }

    // The ends: the head, the feet, Pepper's base and tablet.
    for (const [name, e] of ends) {
      const p = new T.Vector3(...e.offset);
      if (name === "HeadTop") {
        const brainMat = tablet ? null : lit("BrainLeds", COLOURS.off);
        this.head(e.parent, p, { eyeMat, earMat, brainMat }, shell, dark, rod, limb);
      } else if (/Sole$/.test(name)) {
        rod(e.parent, origin, p, limb * 0.9, jointMat);
      } else if (/Toe$/.test(name)) {
        const heel = ends.get(name.replace(/Toe$/, "Heel"));
        if (heel) {
          const h = new T.Vector3(...heel.offset);
          const length = p.x - h.x;
          const foot = new T.Mesh(new T.BoxGeometry(length, length * 0.5, limb * 1.3), shell);
          foot.position.set((p.x + h.x) / 2, (p.y + h.y) / 2, p.z + limb * 0.65);
          e.parent.add(foot);
          // NAO's foot LED, on top of the foot's front (LeftFootLeds, RightFootLeds).
          const footMat = lit(`${name[0] === "L" ? "Left" : "Right"}FootLeds`, COLOURS.off);
          const led = new T.Mesh(new T.BoxGeometry(length * 0.22, length * 0.4, limb * 0.3), footMat);
          led.position.set(p.x - length * 0.18, (p.y + h.y) / 2, p.z + limb * 1.35);
          e.parent.add(led);
        }
      } else if (name === "Base") {
        this.base(e.parent, p, ends, shell, dark, limb);
      } else if (name === "Tablet") {
        // About a 10-inch tablet, tilted back a little.
        const tablet = new T.Mesh(new T.BoxGeometry(limb * 0.6, 0.24 * unit * 0.47, 0.17 * unit * 0.47), dark);
        tablet.position.copy(p);
        tablet.rotation.y = -0.2;
        e.parent.add(tablet);
      }
    }

    this.robot = robot;
    this.world.add(robot);

    // The floor: a grid a few robot heights wide, under the lowest end.
    const size = Math.max(1, Math.ceil(height * 2.5 * 2) / 2);
    this.floor = new T.GridHelper(size, Math.round(size / 0.1), COLOURS.floorCentre, COLOURS.floor);
    this.scene.add(this.floor);

    // The camera looks at the middle of the robot from far enough to see all of it.
    const fit = ((tall * 0.5) / Math.tan((this.camera.fov * Math.PI) / 360)) * 1.3;
    this.orbit.distance = fit;
    this.orbit.target.set(0, tall * 0.5, 0);
    this.home = { ...this.orbit, target: this.orbit.target.clone() };
    this.host.dataset.model = typeof msg.model === "string" ? msg.model : "";
    this.host.dataset.state = "drawn";
    this.pose();
    if (this.balanceShown) this.setBalance(...this.balanceShown);
  }

  /**
   * The balance marks (see the top of this file); `null` balance: none. `fell`: the run's
   * words about a fall ("" or false: it stands), which lay the robot down.
   */
  setBalance(balance, fell) {
    const T = this.T;
    this.balanceShown = [balance, fell];
    const lying = lyingOf(fell);
    if (lying !== this.lying) {
      this.lying = lying;
      this.host.dataset.lying = lying ?? "none";
      this.pose();
    }
    if (this.balanceMarks) {
      this.balanceMarks.parent?.remove(this.balanceMarks);
      this.balanceMarks.traverse((o) => {
        o.geometry?.dispose();
        o.material?.dispose();
      });
      this.balanceMarks = null;
    }
    const ok = !!balance && Array.isArray(balance.polygon) && balance.polygon.length >= 3 &&
      balance.polygon.every(isVec3) && isVec3(balance.com) && isVec3(balance.floor);
    const outside = ok && typeof balance.margin === "number" && balance.margin < 0;
    this.host.dataset.balance = !ok ? "none" : fell ? "fell" : outside ? "outside" : "standing";
    this.host.dataset.polygon = ok ? String(balance.polygon.length) : "0";
    if (!ok || !this.torso) {
      this.request();
      return;
    }
    const colour = fell ? COLOURS.fell : outside ? COLOURS.outside : COLOURS.balanced;
    const material = () => new T.MeshBasicMaterial({ color: colour, depthTest: false });
    const line = (points, closed) => {
      const geometry = new T.BufferGeometry().setFromPoints(points.map((p) => new T.Vector3(p[0], p[1], p[2])));
      const kind = closed ? T.LineLoop : T.Line;
      return new kind(geometry, new T.LineBasicMaterial({ color: colour, depthTest: false }));
    };
    const marks = new T.Group();
    marks.add(line(balance.polygon, true));
    marks.add(line([balance.com, balance.floor], false));
    const com = new T.Mesh(new T.SphereGeometry(0.012, 16, 12), material());
    com.position.set(...balance.com);
    const dot = new T.Mesh(new T.SphereGeometry(0.007, 12, 8), material());
    dot.position.set(...balance.floor);
    marks.add(com, dot);
    // Drawn over the body: the centre of mass is inside it.
    marks.traverse((o) => {
      o.renderOrder = 10;
    });
    this.torso.add(marks);
    this.balanceMarks = marks;
    this.request();
  }

  /** A hand at `at` in its wrist's frame: a palm and three fingers that open. */
  hand(name, f, at, limb, shell, jointMat, wrist) {
    const T = this.T;
    const parent = wrist ? wrist.moving : f.moving;
    const palm = new T.Group();
    palm.position.copy(at);
    parent.add(palm);
    const p = new T.Mesh(new T.SphereGeometry(limb * 1.25, 18, 12), jointMat);
    p.scale.set(1.3, 1, 0.8);
    palm.add(p);
    const fingers = [];
    const side = name.startsWith("R") ? -1 : 1;
    for (const spread of [1, 0, -1]) {
      const pivot = new T.Object3D();
      pivot.position.set(limb * 0.6, spread * limb * 0.55 * side, spread < 0 ? -limb * 0.2 : 0);
      const finger = new T.Mesh(new T.CapsuleGeometry(limb * 0.32, limb * 1.9, 4, 8), shell);
      finger.rotation.z = -Math.PI / 2;
      finger.position.x = limb * 1.2;
      pivot.add(finger);
      pivot.userData.spread = spread;
      palm.add(pivot);
      fingers.push(pivot);
    }
    return { joint: name, fingers, side };
  }

  /**
   * The head on `frame` (HeadPitch's), up to `top`: a rounded shell, eyes and ears lit by
   * `eyeMat` and `earMat` (by side), and on NAO the ring of its head's LEDs (`brainMat`).
   */
  head(frame, top, { eyeMat, earMat, brainMat }, shell, dark, rod, limb) {
    const T = this.T;
    const h = top.z;
    const r = h * 0.5;
    const skull = new T.Mesh(new T.SphereGeometry(1, 32, 20), shell);
    skull.scale.set(r * 0.98, r * 1.12, r);
    skull.position.set(top.x, 0, h * 0.52);
    frame.add(skull);
    for (const s of [1, -1]) {
      const eye = new T.Mesh(new T.SphereGeometry(r * 0.16, 16, 10), eyeMat[s]);
      eye.scale.set(0.45, 1, 1);
      eye.position.set(top.x + r * 0.9, s * r * 0.36, h * 0.55);
      frame.add(eye);
      const ear = new T.Mesh(new T.CylinderGeometry(r * 0.32, r * 0.32, r * 0.12, 20), earMat[s]);
      ear.position.set(top.x - r * 0.05, s * r * 1.1, h * 0.5);
      frame.add(ear);
    }
    if (brainMat) {
      // NAO's twelve head LEDs, round the touch sensors on top of its head: a ring lying on
      // the skull (0.8 of its height up, where the skull is 0.6 of its radius wide).
      const ring = new T.Mesh(new T.TorusGeometry(1, 0.08, 8, 36), brainMat);
      ring.scale.set(r * 0.98 * 0.6, r * 1.12 * 0.6, r * 0.6);
      ring.position.set(top.x, 0, h * 0.52 + r * 0.8);
      frame.add(ring);
    }
    const neck = new T.Vector3(0, 0, -limb * 1.5);
    rod(frame, neck, new T.Vector3(0, 0, h * 0.15), limb * 1.2, dark);
  }

  /** Pepper's base on `frame` (KneePitch's), down to the floor at `floor`, on its wheels. */
  base(frame, floor, ends, shell, dark, limb) {
    const T = this.T;
    const wheels = [...ends.values()].filter((e) => /^Wheel/.test(e.name));
    const axle = wheels.length ? wheels[0].offset[2] : floor.z * 0.8;
    const radius = Math.max(0.1, ...wheels.map((w) => Math.hypot(w.offset[0], w.offset[1]))) + limb * 1.5;
    const wheel = Math.max(0.02, axle - floor.z);
    // A skirt from the knee widening to the wheels, then a rim round them.
    const skirtHeight = -axle;
    const skirt = new T.Mesh(new T.CylinderGeometry(limb * 3.2, radius, skirtHeight, 36, 1), shell);
    skirt.rotation.x = Math.PI / 2;
    skirt.position.set(0, 0, axle / 2);
    frame.add(skirt);
    const rim = new T.Mesh(new T.CylinderGeometry(radius, radius * 0.97, wheel * 0.9, 36, 1), shell);
    rim.rotation.x = Math.PI / 2;
    rim.position.set(0, 0, axle - wheel * 0.35);
    frame.add(rim);
    for (const w of wheels) {
      const ball = new T.Mesh(new T.SphereGeometry(wheel, 20, 14), dark);
      ball.position.set(...w.offset);
      frame.add(ball);
    }
  }

  // ------------------------------------------------------------ the pose

  /** Joints changed: `names[i]` is at `values[i]`; the others keep their last value. */
  /**
   * Colours the lights: `colours` maps LED groups (LeftFaceLeds, RightFaceLeds, LeftEarLeds,
   * RightEarLeds, ChestLeds, and NAO's LeftFootLeds, RightFootLeds and BrainLeds) to
   * [r, g, b] in 0..1, reached over `seconds` (the robot's fade, in real time here).
   */
  setLeds(colours, seconds) {
    if (!colours || typeof colours !== "object" || !this.lights) return;
    const T = this.T;
    const fades = [];
    for (const [group, material] of this.lights) {
      const c = colours[group];
      if (!Array.isArray(c) || c.length !== 3 || !c.every((x) => typeof x === "number")) continue;
      const to = new T.Color(...c.map((x) => Math.min(1, Math.max(0, x))));
      fades.push({ group, material, from: material.emissive.clone(), to });
    }
    if (!fades.length) return;
    const ms = Math.max(0, Number(seconds) || 0) * 1000;
    const start = performance.now();
    const step = () => {
      const k = ms > 0 ? Math.min(1, (performance.now() - start) / ms) : 1;
      for (const f of fades) {
        f.material.emissive.copy(f.from).lerp(f.to, k);
        f.material.color.copy(f.material.emissive);
      }
      this.host.dataset.leds = fades.map((f) => `${f.group}=#${f.to.getHexString()}`).join(" ");
      this.request();
      if (k < 1) requestAnimationFrame(step);
    };
    step();
  }

  setJoints(names, values) {
    if (!Array.isArray(names) || !Array.isArray(values)) return;
    let changed = false;
    names.forEach((n, i) => {
      const v = values[i];
      if (typeof n !== "string" || typeof v !== "number" || !Number.isFinite(v)) return;
      if (this.angles.get(n) !== v) {
        this.angles.set(n, v);
        changed = true;
      }
    });
    if (changed) this.pose();
  }

  pose() {
    if (!this.robot) return;
    for (const [name, f] of this.frames) {
      if (f.hand) continue;
      f.moving.quaternion.setFromAxisAngle(f.axis, this.angles.get(name) ?? 0);
    }
    for (const h of this.hands) {
      const open = Math.min(1, Math.max(0, this.angles.get(h.joint) ?? 0.3));
      for (const pivot of h.fingers) {
        const spread = pivot.userData.spread;
        // Fingers curl in when closed, straighten and part when open.
        pivot.rotation.set(0, 0.9 * (1 - open), spread * h.side * (0.1 + 0.35 * open));
      }
    }
    this.stand();
    this.poses += 1;
    this.host.dataset.poses = String(this.poses);
    this.request();
  }

  /**
   * Puts the robot on the floor: it stands on the support (a sole, Pepper's base) that
   * leaves nothing under the floor, kept level and where it is at rest; the rest of the
   * body leans over it as the joints say. Without supports, the torso stays upright and the
   * lowest end touches the floor.
   */
  stand() {
    const T = this.T;
    const robot = this.robot;
    robot.position.set(0, 0, 0);
    robot.quaternion.identity();
    this.world.updateMatrixWorld(true);
    const inverse = new T.Matrix4().copy(robot.matrixWorld).invert();
    const local = (o) => new T.Matrix4().multiplyMatrices(inverse, o.matrixWorld);
    const ends = this.ends.map((e) => new T.Vector3().setFromMatrixPosition(local(e)));
    let best = null;
    for (const s of this.supports) {
      const m = local(s.at);
      const turn = new T.Quaternion().setFromRotationMatrix(m).invert();
      const at = new T.Vector3().setFromMatrixPosition(m).applyQuaternion(turn);
      const move = new T.Vector3(s.rest.x - at.x, s.rest.y - at.y, -at.z);
      let low = Infinity;
      for (const p of ends) low = Math.min(low, p.clone().applyQuaternion(turn).add(move).z);
      if (!best || low > best.low + 1e-6) best = { turn, move, low };
    }
    if (best) {
      robot.quaternion.copy(best.turn);
      robot.position.copy(best.move);
      if (best.low < 0) robot.position.z -= best.low;
    } else {
      const low = Math.min(...ends.map((p) => p.z));
      if (Number.isFinite(low)) robot.position.z = -low;
    }
    if (this.lying) this.lieDown(LYING[this.lying]);
  }

  /** Turns the standing robot by `turn` (axis, angle) about its feet, then down onto the floor. */
  lieDown([axis, angle]) {
    const T = this.T;
    const robot = this.robot;
    const q = new T.Quaternion().setFromAxisAngle(new T.Vector3(...axis), angle);
    robot.quaternion.premultiply(q);
    robot.position.applyQuaternion(q);
    this.world.updateMatrixWorld(true);
    // The world's z is the scene's y: the body's lowest point goes to the floor.
    const box = new T.Box3().setFromObject(robot);
    if (Number.isFinite(box.min.y)) robot.position.z -= box.min.y;
  }

  // ------------------------------------------------------------ camera and drawing

  listen() {
    const c = this.canvas;
    let drag = null;
    c.addEventListener("pointerdown", (e) => {
      const limb = document.getElementById("pose") ? this.pick(e) : null;
      if (limb) this.host.dataset.limb = limb;
      drag = { x: e.clientX, y: e.clientY, id: e.pointerId, limb };
      c.setPointerCapture?.(e.pointerId);
      c.classList.add("dragging");
    });
    c.addEventListener("pointermove", (e) => {
      if (!drag || e.pointerId !== drag.id) return;
      if (drag.limb) {
        const delta = (e.clientX - drag.x) * 0.01;
        drag.x = e.clientX;
        document.dispatchEvent(new CustomEvent("choreo-monitor:pose-drag", { detail: { joint: drag.limb, delta } }));
        return;
      }
      const o = this.orbit;
      o.azimuth -= (e.clientX - drag.x) * 0.01;
      o.elevation = Math.min(1.45, Math.max(-0.15, o.elevation + (e.clientY - drag.y) * 0.01));
      drag.x = e.clientX;
      drag.y = e.clientY;
      this.request();
    });
    const end = (e) => {
      if (drag && e.pointerId === drag.id) drag = null;
      c.classList.remove("dragging");
    };
    c.addEventListener("pointerup", end);
    c.addEventListener("pointercancel", end);
    c.addEventListener("wheel", (e) => {
      e.preventDefault();
      const o = this.orbit;
      const h = this.height || 0.6;
      o.distance = Math.min(h * 12, Math.max(h * 0.6, o.distance * Math.exp(e.deltaY * 0.001)));
      this.request();
    }, { passive: false });
    c.addEventListener("dblclick", () => {
      this.orbit = { ...this.home, target: this.home.target.clone() };
      this.request();
    });
  }

  /** The joint whose turning part holds the shape under the pointer `e`, or null. */
  pick(e) {
    if (!this.robot) return null;
    const T = this.T;
    const r = this.canvas.getBoundingClientRect();
    const at = new T.Vector2(((e.clientX - r.left) / r.width) * 2 - 1, -((e.clientY - r.top) / r.height) * 2 + 1);
    const ray = new T.Raycaster();
    ray.setFromCamera(at, this.camera);
    for (const hit of ray.intersectObject(this.robot, true)) {
      for (let o = hit.object; o; o = o.parent) {
        const joint = this.jointOf.get(o);
        if (joint) return joint;
      }
    }
    return null;
  }

  /** Where a point of the robot is on the page: `fraction` of the way from joint `from`'s
   * turning part to the end or joint `to` (client pixels). */
  screenOf(from, to, fraction = 0.5) {
    const T = this.T;
    this.scene.updateMatrixWorld(true);
    const place = (name) => {
      const o = this.frames.get(name)?.moving ?? this.ends.find((e) => e.userData.name === name);
      return o ? new T.Vector3().setFromMatrixPosition(o.matrixWorld) : null;
    };
    const a = place(from);
    const b = place(to);
    if (!a || !b) return null;
    const p = a.lerp(b, fraction).project(this.camera);
    const r = this.canvas.getBoundingClientRect();
    return [r.left + ((p.x + 1) / 2) * r.width, r.top + ((1 - p.y) / 2) * r.height];
  }

  resize() {
    const w = Math.max(1, this.host.clientWidth);
    const h = Math.max(1, this.host.clientHeight);
    if (w === this.width && h === this.heightPx) return;
    this.width = w;
    this.heightPx = h;
    this.renderer.setSize(w, h);
    this.camera.aspect = w / h;
    this.camera.updateProjectionMatrix();
    this.request();
  }

  /** Draws at the next frame (once, however many changes come before it). */
  request() {
    if (this.raf) return;
    this.raf = requestAnimationFrame(() => {
      this.raf = 0;
      this.render();
    });
  }

  render() {
    const o = this.orbit;
    const ce = Math.cos(o.elevation);
    this.camera.position.set(
      o.target.x + o.distance * ce * Math.cos(o.azimuth),
      o.target.y + o.distance * Math.sin(o.elevation),
      o.target.z - o.distance * ce * Math.sin(o.azimuth),
    );
    this.camera.lookAt(o.target);
    this.renderer.render(this.scene, this.camera);
    this.renders += 1;
    this.host.dataset.renders = String(this.renders);
    this.noteBox();
  }
}

async function main() {
  const host = document.getElementById(HOST);
  if (!host) return;
  host.dataset.state = "loading";
  if (!hasWebGL2()) {
    note(host, "No 3D view: this browser has no WebGL 2. The joints are listed below.", "no-webgl");
    return;
  }
  let THREE;
  try {
    THREE = await import("three");
  } catch (e) {
    note(host, `No 3D view: three.js did not load (${e}).`, "failed");
    return;
  }
  let view;
  try {
    view = new RobotView(host, THREE);
  } catch (e) {
    note(host, `No 3D view: WebGL would not start (${e?.message ?? e}).`, "failed");
    return;
  }
  const monitor = window.choreoMonitor;
  note(host, "waiting for the robot's model…", "waiting");
  // A run whose model nobody knows (`hello`'s model null) gets no robot message: say so.
  const unknown = setInterval(() => {
    if (view.canvas.parentNode === host) clearInterval(unknown);
    else if (monitor?.hello && monitor.hello.model === null) {
      note(host, "No 3D view: the robot's model is not known here.", "no-model");
      clearInterval(unknown);
    }
  }, 500);
  const show = (msg) => {
    try {
      if (view.canvas.parentNode !== host) {
        host.textContent = "";
        host.append(view.canvas);
        view.resize();
      }
      view.setRobot(msg);
      if (monitor?.leds) view.setLeds(monitor.leds.colours, 0);
    } catch (e) {
      console.error("robot3d: a robot it cannot draw", e, msg);
    }
  };
  document.addEventListener("choreo-monitor:robot", (e) => show(e.detail));
  document.addEventListener("choreo-monitor:joints", (e) => {
    try {
      view.setJoints(e.detail?.names, e.detail?.values);
    } catch (err) {
      console.error("robot3d: joints it cannot show", err);
    }
  });
  document.addEventListener("choreo-monitor:leds", (e) => {
    try {
      view.setLeds(e.detail?.colours, e.detail?.seconds);
    } catch (err) {
      console.error("robot3d: LEDs it cannot show", err);
    }
  });
  document.addEventListener("choreo-monitor:balance", (e) => {
    try {
      view.setBalance(e.detail?.balance ?? null, e.detail?.fell ?? "");
    } catch (err) {
      console.error("robot3d: a balance it cannot show", err);
    }
  });
  if (monitor?.robotChain) show(monitor.robotChain);
  if (monitor && monitor.balance !== undefined) view.setBalance(monitor.balance, monitor.fell?.text ?? "");
  if (monitor?.leds) view.setLeds(monitor.leds.colours, 0);
  if (monitor?.joints instanceof Map && monitor.joints.size) view.setJoints([...monitor.joints.keys()], [...monitor.joints.values()]);
}

main().catch((e) => console.error("robot3d:", e));
