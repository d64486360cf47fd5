import assert from "node:assert/strict";
import { test } from "node:test";
import { MARGIN, plotArea, stepTicks } from "../../../../service/webclient/viewer/chart.js";
import { english } from "./english.mjs";

english();

test("the plot leaves room around it: a line at 0% or 100% and the axes' labels are drawn whole", () => {
  const area = plotArea(600, 210, 120);
  assert.equal(area.y(1), MARGIN.top);
  assert.equal(area.y(0), 210 - MARGIN.bottom);
  assert.ok(MARGIN.top >= 10 && MARGIN.bottom >= 24 && MARGIN.left >= 40, "a blunder's dot (r 5) and a label fit outside the plot");
  assert.equal(area.x(0), MARGIN.left);
  assert.equal(area.x(120), 600 - MARGIN.right);
  assert.equal(area.y(1.2), area.y(1), "a chance past 100% stays on the chart");
});

test("a click on the chart goes to the step under it, the margins to the first and the last", () => {
  const area = plotArea(600, 210, 120);
  for (const step of [0, 1, 37, 60, 119, 120]) assert.equal(area.stepAt(area.x(step)), step);
  assert.equal(area.stepAt(0), 0);
  assert.equal(area.stepAt(600), 120);
});

test("the step axis names the first and the last step and round numbers between, none on another", () => {
  assert.deepEqual(stepTicks(187, 8), [0, 50, 100, 150, 187]);
  assert.deepEqual(stepTicks(10, 8), [0, 2, 4, 6, 8, 10]);
  assert.deepEqual(stepTicks(0, 8), [0]);
  const ticks = stepTicks(103, 4);
  assert.equal(ticks[0], 0);
  assert.equal(ticks.at(-1), 103);
  for (let i = 1; i < ticks.length; i += 1) assert.ok(ticks[i] - ticks[i - 1] >= 10, String(ticks));
});
