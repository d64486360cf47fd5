// A finished game's decision analysis in the viewer: each player's win chance along the game (a chart; a click goes
// to that step), the labelled decisions marked on it, and each player's accuracy.

import { $ } from "../core/dom.js";
import { t } from "../core/words.js";
import { accuracyText, seatName } from "./replay.js";
import { el } from "./table.js";


const CHART_W = 600;
const CHART_H = 160;

/**
 * The chart and the players' accuracy, built once; the line that marks the step shown (null: no analysis).
 * @param {Replay} replay
 * @param {(step: number) => void} go
 * @returns {((step: number) => void) | null} what moves the mark to a step
 */
export function buildChart(replay, go) {
  const { analysis, total } = replay;
  if (!analysis) return null;
  /** @param {number} step */
  const xOf = (step) => (total ? (step / total) * CHART_W : 0);
  $("analysis").hidden = false;
  // The HTML parser puts <svg> in the SVG namespace: the page names no address, not even a namespace's.
  const holder = el("div");
  holder.innerHTML = "<svg></svg>";
  const svg = /** @type {SVGSVGElement} */ (holder.firstChild);
  const NS = svg.namespaceURI;
  svg.setAttribute("viewBox", "0 0 " + CHART_W + " " + CHART_H);
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", t("viewer.chart_label"));
  /**
   * @param {number} x1
   * @param {number} y1
   * @param {number} x2
   * @param {number} y2
   * @param {string} cls
   */
  const line = (x1, y1, x2, y2, cls) => {
    const l = /** @type {SVGLineElement} */ (document.createElementNS(NS, "line"));
    for (const [k, v] of [["x1", x1], ["y1", y1], ["x2", x2], ["y2", y2]]) l.setAttribute(String(k), String(v));
    l.setAttribute("class", cls);
    svg.append(l);
    return l;
  };
  line(0, CHART_H / 2, CHART_W, CHART_H / 2, "axis");
  for (const step of analysis.rounds || []) {
    if (typeof step === "number") line(xOf(step), 0, xOf(step), CHART_H, "round-line").dataset.round = String(step);
  }
  /** @param {number} win */
  const yOf = (win) => CHART_H - win * CHART_H;
  for (let seat = 0; seat < replay.seatCount; seat += 1) {
    const mine = analysis.decisions.filter((d) => d.seat === seat && typeof d.step === "number");
    if (!mine.length) continue;
    const points = mine.map((d) => xOf(d.step).toFixed(1) + "," + yOf(d.win).toFixed(1));
    const path = /** @type {SVGPolylineElement} */ (document.createElementNS(NS, "polyline"));
    path.setAttribute("points", points.join(" "));
    path.setAttribute("class", "win-line p" + seat);
    path.dataset.seat = String(seat);
    path.dataset.points = String(mine.length);
    svg.append(path);
    for (const d of mine) {
      if (!d.label) continue;
      const dot = document.createElementNS(NS, "circle");
      dot.setAttribute("cx", xOf(d.step).toFixed(1));
      dot.setAttribute("cy", yOf(d.win).toFixed(1));
      dot.setAttribute("r", d.label === "blunder" ? "5" : "3.5");
      dot.setAttribute("class", "mark p" + seat);
      dot.setAttribute("fill", "currentColor");
      svg.append(dot);
    }
  }
  const now = line(0, 0, 0, CHART_H, "now-line");
  svg.addEventListener("click", (event) => {
    const box = svg.getBoundingClientRect();
    go(Math.round(((event.clientX - box.left) / box.width) * total));
  });
  $("chart").append(svg);
  const list = $("accuracy");
  (analysis.players || []).forEach((p, seat) => {
    const li = el("li", "p" + seat);
    li.dataset.seat = String(seat);
    li.dataset.accuracy = p.accuracy === null || p.accuracy === undefined ? "" : String(p.accuracy);
    li.append(el("span", "key"), seatName(replay, seat) + ": " + accuracyText(/** @type {any} */ (p)));
    list.append(li);
  });
  return (step) => {
    now.setAttribute("x1", xOf(step).toFixed(1));
    now.setAttribute("x2", xOf(step).toFixed(1));
  };
}
