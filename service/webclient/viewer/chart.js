// A finished game's decision analysis in the viewer: each player's win chance along the game (a chart with its axes
// and percentages; a click goes to that step), the labelled decisions marked on it, each player's accuracy, and the
// luck figure said in words.  The chart is drawn at the size it is shown (its text stays readable on a phone, where
// a scaled drawing would shrink it), and again when that size changes.

import { $ } from "../core/dom.js";
import { language, t } from "../core/words.js";
import { accuracyText, seatName } from "./replay.js";
import { el } from "./table.js";


/** Room around the plot for the axes' labels, and for a line or a mark at 0% or 100% to be drawn whole. */
export const MARGIN = { left: 46, right: 14, top: 14, bottom: 34 };
const HEIGHT = 210;
const PHONE_HEIGHT = 190;
/** The win chances the vertical axis names. */
const TICKS = [0, 0.25, 0.5, 0.75, 1];

/**
 * Where the plot lies in a drawing ``width`` wide and ``height`` high, and a step or a chance's place in it.
 * @param {number} width
 * @param {number} height
 * @param {number} total the replay's steps
 */
export function plotArea(width, height, total) {
  const w = Math.max(1, width - MARGIN.left - MARGIN.right);
  const h = Math.max(1, height - MARGIN.top - MARGIN.bottom);
  return {
    w, h,
    /** @param {number} step */
    x: (step) => MARGIN.left + (total ? (step / total) * w : 0),
    /** @param {number} win */
    y: (win) => MARGIN.top + (1 - Math.min(1, Math.max(0, win))) * h,
    /** @param {number} x a point of the drawing, across: the step under it */
    stepAt: (x) => Math.min(total, Math.max(0, Math.round(((x - MARGIN.left) / w) * total))),
  };
}

/**
 * The steps the horizontal axis names: the first, the last, and about ``most`` between, at round numbers.
 * @param {number} total
 * @param {number} most
 */
export function stepTicks(total, most) {
  if (total <= 0) return [0];
  const rough = total / Math.max(1, most);
  const magnitude = 10 ** Math.floor(Math.log10(rough));
  const every = [1, 2, 5, 10].map((m) => m * magnitude).find((m) => m >= rough) || 10 * magnitude;
  const ticks = [];
  for (let step = 0; step < total; step += every) ticks.push(step);
  if (total - ticks[ticks.length - 1] < every / 2 && ticks.length > 1) ticks.pop();  // not two labels on one another
  ticks.push(total);
  return ticks;
}

/**
 * The chart and the players' accuracy, built once; what moves the mark to the step shown (null: no analysis).
 * @param {Replay} replay
 * @param {(step: number) => void} go
 * @returns {((step: number) => void) | null}
 */
export function buildChart(replay, go) {
  const { total } = replay;
  const analysis = replay.analysis;
  if (!analysis) return null;
  const judged = analysis;  // for the drawing below, which runs again on a resize
  $("analysis").hidden = false;
  const holder = $("chart");
  const percent = new Intl.NumberFormat(language(), { style: "percent" });
  let current = 0;
  let width = 0;
  /** @type {SVGSVGElement | null} */
  let svg = null;
  /** @type {(() => void) | null} */
  let placeMark = null;

  function draw() {
    width = Math.round(holder.clientWidth) || 600;
    const height = width < 500 ? PHONE_HEIGHT : HEIGHT;
    const area = plotArea(width, height, total);
    // The HTML parser puts <svg> in the SVG namespace: the page names no address, not even a namespace's.
    const box = el("div");
    box.innerHTML = "<svg></svg>";
    const drawing = /** @type {SVGSVGElement} */ (box.firstChild);
    const NS = drawing.namespaceURI;
    drawing.setAttribute("viewBox", `0 0 ${width} ${height}`);
    drawing.setAttribute("width", String(width));
    drawing.setAttribute("height", String(height));
    drawing.setAttribute("role", "img");
    drawing.setAttribute("aria-label", t("viewer.chart_label"));
    /**
     * @param {string} tag
     * @param {Record<string, string | number>} attributes
     * @param {string} [text]
     */
    const add = (tag, attributes, text) => {
      const node = /** @type {SVGElement} */ (document.createElementNS(NS, tag));
      for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, typeof value === "number" ? value.toFixed(1) : value);
      if (text !== undefined) node.textContent = text;
      drawing.append(node);
      return node;
    };
    for (const win of TICKS) {
      add("line", { x1: MARGIN.left, x2: MARGIN.left + area.w, y1: area.y(win), y2: area.y(win), class: win === 0.5 ? "axis mid" : "grid" });
      add("text", { x: MARGIN.left - 6, y: area.y(win), class: "tick y-tick", "text-anchor": "end", "dominant-baseline": "middle" }, percent.format(win));
    }
    add("line", { x1: MARGIN.left, x2: MARGIN.left, y1: MARGIN.top, y2: MARGIN.top + area.h, class: "axis" });
    add("line", { x1: MARGIN.left, x2: MARGIN.left + area.w, y1: MARGIN.top + area.h, y2: MARGIN.top + area.h, class: "axis" });
    for (const step of stepTicks(total, Math.max(2, Math.floor(area.w / 70)))) {
      add("text", { x: area.x(step), y: MARGIN.top + area.h + 14, class: "tick x-tick", "text-anchor": "middle" }, String(step));
    }
    add("text", { x: MARGIN.left + area.w, y: height - 3, class: "axis-name", "text-anchor": "end" }, t("viewer.step"));
    for (const step of judged.rounds || []) {
      if (typeof step !== "number") continue;
      const x = area.x(step);
      add("line", { x1: x, x2: x, y1: MARGIN.top, y2: MARGIN.top + area.h, class: "round-line" }).dataset.round = String(step);
    }
    for (let seat = 0; seat < replay.seatCount; seat += 1) {
      const mine = judged.decisions.filter((d) => d.seat === seat && typeof d.step === "number");
      if (!mine.length) continue;
      const points = mine.map((d) => area.x(d.step).toFixed(1) + "," + area.y(d.win).toFixed(1));
      const line = add("polyline", { points: points.join(" "), class: "win-line p" + seat });
      line.dataset.seat = String(seat);
      line.dataset.points = String(mine.length);
      for (const d of mine) {
        if (!d.label) continue;
        const dot = add("circle", { cx: area.x(d.step), cy: area.y(d.win), r: d.label === "blunder" ? 5 : 3.5, class: "mark p" + seat, fill: "currentColor" });
        dot.dataset.step = String(d.step);
      }
    }
    // The step shown: the page's ink, dashed, with a head, so it is none of the seats' colours.
    const now = add("line", { x1: 0, x2: 0, y1: MARGIN.top - 4, y2: MARGIN.top + area.h, class: "now-line" });
    const head = add("path", { d: "", class: "now-head" });
    placeMark = () => {
      const x = area.x(current);
      for (const end of ["x1", "x2"]) now.setAttribute(end, x.toFixed(1));
      now.dataset.step = String(current);
      head.setAttribute("d", `M${(x - 5).toFixed(1)},${MARGIN.top - 10} h10 l-5,7 z`);
    };
    placeMark();
    drawing.addEventListener("click", (event) => {
      const rect = drawing.getBoundingClientRect();
      go(area.stepAt(((event.clientX - rect.left) / (rect.width || 1)) * width));
    });
    if (svg) svg.replaceWith(drawing);
    else holder.append(drawing);
    svg = drawing;
  }

  draw();
  if (typeof ResizeObserver === "function") {
    new ResizeObserver(() => {
      if (Math.round(holder.clientWidth) !== width && holder.clientWidth > 0) draw();
    }).observe(holder);
  }
  const list = $("accuracy");
  (analysis.players || []).forEach((p, seat) => {
    const li = el("li", "p" + seat);
    li.dataset.seat = String(seat);
    li.dataset.accuracy = p.accuracy === null || p.accuracy === undefined ? "" : String(p.accuracy);
    li.append(el("span", "key"), seatName(replay, seat) + ": " + accuracyText(/** @type {any} */ (p)));
    list.append(li);
  });
  return (step) => {
    current = step;
    if (placeMark) placeMark();
  };
}
