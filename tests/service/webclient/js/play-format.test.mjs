import assert from "node:assert/strict";
import { test } from "node:test";
import {
  DECLINE_KEYS, afterWords, aiFillChoices, clockWords, countWords, declineReason, durationWords, fillWords, matchTimeControls, settingsWords,
  ticketChoices, ticketWords, timeControl, timeControls, untilWords,
} from "../../../../service/webclient/play/format.js";
import { english } from "./english.mjs";

english();

test("a time-control choice is the API's members", () => {
  assert.deepEqual(timeControl("t:60"), { turn_timeout: 60 });
  assert.deepEqual(timeControl("d:3"), { days_per_turn: 3 });
  assert.deepEqual(timeControl(""), {});
});

test("a game's settings in a few words", () => {
  assert.equal(settingsWords({ variant: "basic" }), "basic, casual");
  assert.equal(settingsWords({ variant: "advanced", action_rules: true, days_per_turn: 3, rated: true }), "advanced, card actions, 3 days a turn, rated");
  assert.equal(settingsWords({ variant: "basic", turn_timeout: 300 }), "basic, 5 minutes a turn, casual");
});

test("times in words: the largest whole unit, a wait after, what is due, a clock", () => {
  assert.deepEqual([7200, 300, 45, 90].map(durationWords), ["2 hours", "5 minutes", "45 seconds", "90 seconds"]);
  assert.equal(afterWords(10, "play.after"), "After 10 s");
  assert.equal(afterWords(86400, "play.after"), "After 1 day");
  assert.equal(afterWords(3600, "play.after_lower"), "after 1 hour");
  const now = Date.parse("2026-11-27T10:00:00Z");
  assert.equal(untilWords("2026-11-27T10:23:00Z", now), "in 23 min");
  assert.equal(untilWords("2026-11-27T15:00:00Z", now), "in 5 h");
  assert.equal(untilWords("2026-11-30T10:00:00Z", now), "in 3 days");
  assert.equal(untilWords("2026-11-27T09:00:00Z", now), "in 0 min", "a moment past is now");
  assert.deepEqual([42, 62, 3725, 90000, -3].map(clockWords), ["0:42", "1:02", "1:02:05", "1 d 1 h", "0:00"]);
});

test("a ticket's kind of game, and who fills its seats after a while", () => {
  assert.equal(countWords([3]), "3 players");
  assert.equal(countWords([2, 3, 4]), "2, 3 or 4 players");
  const ticket = { player_counts: [2, 3], variant: "basic", action_rules: false, days_per_turn: null, turn_seconds: 60, rated: true };
  assert.equal(ticketWords(ticket), "2 or 3 players, basic, 1 minute a turn, rated");
  assert.equal(ticketWords({ ...ticket, days_per_turn: 2, action_rules: true }), "2 or 3 players, basic, card actions, 2 days a turn, rated");
  assert.equal(fillWords({ ai_fill_after: null, ai_level: "greedy" }), null);
  assert.equal(fillWords({ ai_fill_after: 10.4, ai_level: "greedy" }), "AI seats (greedy) after 10 s");
});

test("the forms' choices", () => {
  assert.deepEqual(timeControls().map(([value]) => value), ["t:60", "t:300", "t:3600", "d:1", "d:2", "d:3", "d:5", "d:7", "d:10", "d:14"]);
  assert.deepEqual(matchTimeControls().slice(0, 4), [["t:30", "30 seconds"], ["t:60", "1 minute"], ["t:120", "2 minutes"], ["t:300", "5 minutes"]]);
  assert.deepEqual(aiFillChoices()[0], ["", "Never"]);
  assert.deepEqual(aiFillChoices()[1], ["10", "After 10 s"]);
  assert.deepEqual(ticketChoices()["qm-range"].at(-1), ["3000", "Anyone"]);
  assert.deepEqual(ticketChoices()["qm-expires"].at(-1), [String(14 * 86400), "2 weeks"]);
  assert.equal(DECLINE_KEYS.length, 11);
  assert.deepEqual(declineReason("generic"), ["Not now", "I am not accepting challenges at the moment."]);
  assert.deepEqual(declineReason("made-up"), declineReason("generic"));
});
