// Charts of plain SVG, drawn by this module alone (no chart library): horizontal bars of percentages, and a line of
// values from 0 to 100 over games.  Each is drawn at the width it is shown (its text in pixels, so a phone's is as
// readable as a desktop's), with its axis, its ticks in the page's percentages and a label on every bar; an SVG is
// an image with a name (role="img", aria-label) for screen readers.  Colours are classes (play.css: .chart .c-R ...):
// the page's style rules admit no style attribute.

import { language } from "../core/words.js";

const SVG = "http://www.w3.org/2000/svg";
/** The text's size, and the room a line of bars takes, in pixels. */
const FONT = 13;
const ROW = 26;
const BAR = 16;
/** The percentages an axis marks. */
const TICKS = [0, 25, 50, 75, 100];

/**
 * An SVG element with its attributes and children.
 * @param {string} tag
 * @param {Record<string, string | number | null | undefined>} attrs
 * @param {...(Node | string | null)} children
 * @returns {SVGElement}
 */
function svg(tag, attrs, ...children) {
  const node = /** @type {SVGElement} */ (document.createElementNS(SVG, tag));
  for (const [name, value] of Object.entries(attrs)) if (value !== null && value !== undefined) node.setAttribute(name, String(value));
  for (const child of children) if (child !== null) node.append(child);
  return node;
}

/**
 * A percentage in the page's language ("23.5%", "23,5 %").
 * @param {number} percent
 */
export function percentText(percent) {
  return new Intl.NumberFormat(language(), { style: "percent", maximumFractionDigits: 1 }).format(percent / 100);
}

/**
 * A number in the page's language, one decimal at most.
 * @param {number} n
 */
function numberText(n) {
  return new Intl.NumberFormat(language(), { maximumFractionDigits: 1 }).format(n);
}

/** @type {CanvasRenderingContext2D | null} what measures text before it is drawn */
let measure = null;

/**
 * How wide ``text`` is at the chart's size in the page's font (measured on a canvas never shown; failing that, a
 * little over half the size a letter).
 * @param {string} text
 */
function textWidth(text) {
  if (!measure) {
    measure = document.createElement("canvas").getContext("2d");
    if (measure) measure.font = `${FONT}px ${getComputedStyle(document.body).fontFamily}`;
  }
  return Math.ceil(measure ? measure.measureText(text).width : text.length * FONT * 0.62);
}

/**
 * The frame of a chart: an SVG image of ``width`` x ``height`` named ``label``.
 * @param {string} label
 * @param {number} width
 * @param {number} height
 */
function frame(label, width, height) {
  return svg("svg", { class: "chart", role: "img", "aria-label": label, width, height, viewBox: `0 0 ${width} ${height}`,
    "font-size": FONT }, svg("title", {}, label));
}

/**
 * A bar of a bar chart: its label, its share in percent, and what it counts (said after the share, with ``of``: the
 * count and the whole it is a share of, "1/3"), its colour's letter (a card colour, "R" ... "V") or none (the page's
 * accent).
 * @typedef {{ label: string, percent: number, count?: number, of?: number, colour?: string }} Bar
 */

/**
 * Horizontal bars of percentages (0 to 100%), a label before each and its share after it, an axis of percentages
 * below them, drawn ``width`` pixels wide.
 * @param {{ label: string, bars: Bar[], width: number }} spec
 */
export function barChart(spec) {
  const width = Math.max(260, Math.floor(spec.width));
  const labels = Math.min(Math.floor(width * 0.45), Math.max(...spec.bars.map((b) => textWidth(b.label)), 20) + 10);
  const after = textWidth("100.0% (000/000)") + 6;
  const plot = Math.max(60, width - labels - after - 4);
  const top = 6;
  const axis = top + spec.bars.length * ROW + 2;
  const height = axis + FONT + 12;
  const chart = frame(spec.label, width, height);
  const x = (/** @type {number} */ percent) => labels + (plot * Math.max(0, Math.min(100, percent))) / 100;
  // Every quarter marked where their numbers fit side by side, else every half.
  const ticks = plot / 4 >= textWidth(percentText(100)) + 4 ? TICKS : [0, 50, 100];
  for (const tick of ticks) {
    chart.append(
      svg("line", { class: "grid", x1: x(tick), x2: x(tick), y1: top, y2: axis }),
      svg("line", { class: "axis", x1: x(tick), x2: x(tick), y1: axis, y2: axis + 4 }),
      svg("text", { class: "tick", x: x(tick), y: axis + FONT + 6, "text-anchor": "middle" }, percentText(tick)));
  }
  chart.append(svg("line", { class: "axis", x1: labels, x2: x(100), y1: axis, y2: axis }));
  chart.append(svg("line", { class: "axis", x1: labels, x2: labels, y1: top, y2: axis }));
  spec.bars.forEach((bar, n) => {
    const y = top + n * ROW + (ROW - BAR) / 2;
    const counted = bar.count === undefined ? "" : numberText(bar.count) + (bar.of === undefined ? "" : "/" + numberText(bar.of));
    const said = percentText(bar.percent) + (counted ? ` (${counted})` : "");
    chart.append(svg("g", { class: "bar", "data-label": bar.label, "data-percent": bar.percent, "data-count": bar.count },
      svg("title", {}, `${bar.label}: ${said}`),
      svg("text", { class: "label", x: labels - 6, y: y + BAR - 3, "text-anchor": "end" }, bar.label),
      svg("rect", { class: bar.colour ? `c-${bar.colour}` : "plain", x: labels, y, height: BAR,
        width: Math.max(bar.percent > 0 ? 1 : 0, x(bar.percent) - labels) }),
      svg("text", { class: "value", x: x(bar.percent) + 5, y: y + BAR - 3 }, said)));
  });
  return chart;
}

/**
 * A line of values from 0 to 100 (a player's accuracy, game after game), a dot at each with its ``title``, an axis
 * of percentages up the side and the points' numbers along the bottom (the first, the last, and some between),
 * under the words ``along`` say what they are; drawn ``width`` pixels wide.
 * @param {{ label: string, along: string, points: { value: number, title: string }[], width: number }} spec
 */
export function lineChart(spec) {
  const width = Math.max(260, Math.floor(spec.width));
  const left = textWidth(percentText(100)) + 10;
  const right = 14;
  const top = 10;
  const plotHeight = 150;
  const bottom = top + plotHeight;
  const height = bottom + 2 * FONT + 18;
  const chart = frame(spec.label, width, height);
  const count = spec.points.length;
  const x = (/** @type {number} */ n) => (count <= 1 ? (left + width - right) / 2 : left + ((width - left - right) * n) / (count - 1));
  const y = (/** @type {number} */ value) => bottom - (plotHeight * Math.max(0, Math.min(100, value))) / 100;
  for (const tick of TICKS) {
    chart.append(
      svg("line", { class: "grid", x1: left, x2: width - right, y1: y(tick), y2: y(tick) }),
      svg("text", { class: "tick", x: left - 6, y: y(tick) + FONT / 3, "text-anchor": "end" }, percentText(tick)));
  }
  chart.append(svg("line", { class: "axis", x1: left, x2: left, y1: top, y2: bottom }));
  chart.append(svg("line", { class: "axis", x1: left, x2: width - right, y1: bottom, y2: bottom }));
  const step = Math.max(1, Math.ceil(count / Math.max(1, Math.floor((width - left - right) / 40))));
  for (let n = 0; n < count; n += 1) {
    if (n % step !== 0 && n !== count - 1) continue;
    if (n !== count - 1 && count - 1 - n < step) continue;  // no number crowding the last one
    chart.append(svg("line", { class: "axis", x1: x(n), x2: x(n), y1: bottom, y2: bottom + 4 }),
      svg("text", { class: "tick", x: x(n), y: bottom + FONT + 6, "text-anchor": "middle" }, String(n + 1)));
  }
  chart.append(svg("text", { class: "along", x: (left + width - right) / 2, y: height - 4, "text-anchor": "middle" }, spec.along));
  if (count > 1) {
    chart.append(svg("polyline", { class: "line", points: spec.points.map((p, n) => `${x(n)},${y(p.value)}`).join(" ") }));
  }
  spec.points.forEach((point, n) => {
    chart.append(svg("circle", { class: "dot", cx: x(n), cy: y(point.value), r: 4, "data-value": point.value },
      svg("title", {}, point.title)));
  });
  return chart;
}
