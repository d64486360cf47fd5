import assert from "node:assert/strict";
import { test } from "node:test";
import { clockFace, clockLabel, deadlineWords, secondsLeft, turnTime } from "../../../../service/webclient/play/clock.js";
import { english } from "./english.mjs";

english();

const NOW = Date.parse("2026-11-28T10:00:00Z");
const live = (deadline, extra = {}) => ({ phase: "turn", turn_timeout: 60, turn: { deadline, ...extra } });

test("no clock without a time control, a deadline or a turn", () => {
  assert.equal(turnTime({ phase: "turn", turn_timeout: null, turn: { deadline: null } }, NOW), null);
  assert.equal(turnTime({ phase: "round_won", turn_timeout: 60, turn: null }, NOW), null);
  assert.equal(turnTime({ phase: "turn", turn_timeout: 60, turn: { deadline: null } }, NOW), null);
});

test("a live turn counts down in minutes and seconds, rounded up, never below zero", () => {
  const time = turnTime(live("2026-11-28T10:00:42.300Z"), NOW);
  assert.ok(time && !time.correspondence && time.budget === 60);
  assert.equal(clockFace(time, NOW).text, "0:43");
  assert.equal(clockFace(time, NOW + 42_300).text, "0:00");
  assert.equal(clockFace(time, NOW + 99_000).text, "0:00");
  assert.equal(secondsLeft(time, NOW + 99_000), 0);
  const long = turnTime({ phase: "turn", turn_timeout: 300, turn: { deadline: "2026-11-28T10:04:05Z" } }, NOW);
  assert.ok(long);
  assert.equal(clockFace(long, NOW).text, "4:05");
});

test("the clock turns urgent in the last fifth of the turn", () => {
  const time = turnTime(live("2026-11-28T10:01:00Z"), NOW);
  assert.ok(time);
  assert.equal(clockFace(time, NOW).urgent, false);
  assert.equal(clockFace(time, NOW + 47_000).urgent, false, "13 s of 60 left");
  assert.equal(clockFace(time, NOW + 48_000).urgent, true, "12 s of 60 left: the last fifth");
});

test("a correspondence turn says days and hours, then a clock on its last day", () => {
  const view = { phase: "turn", days_per_turn: 3, turn_timeout: 259200, turn: { deadline: "2026-11-30T15:00:00Z" } };
  const time = turnTime(view, NOW);
  assert.ok(time && time.correspondence && time.budget === 3 * 86400);
  assert.equal(clockFace(time, NOW).text, "2 d 5 h");
  assert.equal(clockFace(time, NOW).urgent, false);
  const lastDay = Date.parse("2026-11-30T05:00:00Z");
  assert.equal(clockFace(time, lastDay).text, "10:00:00");
  assert.equal(clockFace(time, lastDay).urgent, true, "10 h of 72: the last fifth");
});

test("a paused clock (a weekend, a vacation) stands at what it had left", () => {
  const view = { phase: "turn", days_per_turn: 1, turn: { deadline: "2026-11-30T15:00:00Z", paused_until: "2026-11-30T00:00:00Z", time_left: 7200 } };
  const time = turnTime(view, NOW);
  assert.ok(time && time.paused);
  assert.equal(clockFace(time, NOW).text, "2:00:00");
  assert.equal(clockFace(time, NOW + 3_600_000).text, "2:00:00");
});

test("the deadline in the player's own time zone and language", () => {
  assert.equal(deadlineWords("2026-11-30T15:00:00Z", "en", "Europe/Warsaw"), "Ends Mon, Nov 30, 4:00 PM GMT+1");
  assert.equal(deadlineWords("2026-11-30T15:00:00Z", "en", "America/New_York"), "Ends Mon, Nov 30, 10:00 AM EST");
  assert.equal(deadlineWords("2026-11-30T15:00:00Z", "en", "UTC"), "Ends Mon, Nov 30, 3:00 PM UTC");
  assert.equal(clockLabel("0:42"), "Time left: 0:42");
});
