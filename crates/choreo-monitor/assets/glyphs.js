// choreo's own glyphs for boxes. A box names its Choregraphe icon
// (`media/images/box/interaction/say.png`), an image of Choregraphe's install that choreo
// neither has nor may copy; the page draws a glyph of the icon's kind instead, read from its
// path (the corpus's 77 icon paths fall in these kinds), in the diagram and the palette.

import { s } from "./dom.js";

/** Kinds, the first whose pattern the icon's path matches: its strokes (16×16). */
const KINDS = [
  [/timeline/, "M2 4h12M2 8h12M2 12h12M5 2.5v3M10 6.5v3M7 10.5v3"],
  [/diagram/, "M2.5 2.5h5v5h-5zM8.5 8.5h5v5h-5zM7.5 5h3v3.5"],
  [/script|python/, "M5.5 4L2 8l3.5 4M10.5 4L14 8l-3.5 4"],
  [/wait|timer|clock/, "M8 2.5a5.5 5.5 0 1 1 0 11a5.5 5.5 0 1 1 0-11zM8 5v3.2l2.3 1.5"],
  [/say|speech|speak|vocabulary|dialog|talk|tts|language|listen|reco/, "M2.5 3.5h11v7h-6l-3 3v-3h-2z"],
  [/led|light|eye|color/, "M8 2.5a4 4 0 0 1 2.5 7.1V11h-5V9.6A4 4 0 0 1 8 2.5zM6 13h4"],
  [/music|sound|audio|sing|volume|record/, "M6 12.5a1.5 1.5 0 1 1-3 0a1.5 1.5 0 1 1 3 0zM6 12.5V3.5l7-1.5v9M13 11a1.5 1.5 0 1 1-3 0a1.5 1.5 0 1 1 3 0z"],
  [/choice|switch|if|dispatch|random|loop|counter|flow/, "M2.5 8h4M6.5 8l6-4.5M6.5 8l6 4.5"],
  [/camera|vision|face|photo|picture|mark|detect|track/, "M2.5 5h11v7.5h-11zM6 5l1-1.5h2L10 5M8 7a2 2 0 1 1 0 4a2 2 0 1 1 0-4z"],
  [/stm|sensor|memory|event|touch|tactil|bumper|sonar|battery/, "M2 8h3l1.5-4 3 8 1.5-4h3"],
  [/move|walk|stand|sit|posture|arm|hand|motion|dance|anim|head|turn|crouch|wake|rest|stiff|balance|body|joint|foot|leg/, "M8 2.5a1.5 1.5 0 1 1 0 3a1.5 1.5 0 1 1 0-3zM8 6v4M5 7.5h6M8 10l-2.5 3.5M8 10l2.5 3.5"],
  [/tablet|web|network|mail|http|internet|screen/, "M2.5 3.5h11v8h-11zM6 13.5h4"],
];
const ANY = "M3 3h10v10H3z";

/** The glyph's strokes for a box whose icon is `bitmap` (a path, or nothing). */
export function glyphPath(bitmap) {
  const name = String(bitmap ?? "").toLowerCase().split("/").slice(-2).join("/");
  return (KINDS.find(([re]) => re.test(name)) || [null, ANY])[1];
}

/** The glyph as an SVG group of `size` px at (`x`, `y`). */
export function glyph(bitmap, x, y, size) {
  return s("g", { class: "glyph", transform: `translate(${x},${y}) scale(${size / 16})` },
    s("path", { d: glyphPath(bitmap) }));
}

/** The glyph as a small inline SVG (the palette's entries). */
export function glyphIcon(bitmap) {
  return s("svg", { class: "glyph-icon", viewBox: "0 0 16 16", width: 16, height: 16, "aria-hidden": "true" },
    s("path", { d: glyphPath(bitmap) }));
}
