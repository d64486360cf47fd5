import assert from "node:assert/strict";
import { test } from "node:test";
import { accuracyText, parseReplay, readReplay, seatName, statusOf } from "../../../../service/webclient/viewer/replay.js";
import { english } from "./english.mjs";

english();

const state = (turn, phase, inRound) => ({ turn, phase, seats: inRound.map((in_round) => ({ in_round })) });
const document = {
  format: "red7-replay/1",
  options: { players: 2, seed: 18446744073709551615 },
  seats: [{ name: "Ana" }, {}],
  steps: [{ type: "round_dealt", state: state(0, "turn", [true, true]) }, { type: "card_played", state: state(1, "turn", [true, true]) }],
  outcome: { winner: 1 },
  ratings: { applied: true, ladder: "basic", seats: [{ seat: 0, rating: 1000, change: 12 }, { seat: 1, rating: null }] },
  analysis: { decisions: [{ step: 2, seat: 0, label: "mistake" }, { step: 1, seat: 1, label: null }], players: [] },
};

test("a replay's JSON is read with its 64-bit seed's every digit (where the browser gives the source)", () => {
  const text = JSON.stringify(document).replace('"seed":18446744073709552000', '"seed":18446744073709551615');
  const doc = parseReplay(text);
  assert.equal(doc.steps.length, 2);
  const seed = doc.options.seed;
  assert.ok(seed === "18446744073709551615" || seed === 18446744073709551615, String(seed));
});

test("a replay that does not parse, or holds no steps, is an error in words", () => {
  assert.throws(() => parseReplay("{nope"), /^Error: This page's replay data could not be read: /);
  assert.throws(() => parseReplay('{"steps": 3}'), { message: "This page holds no replay steps." });
});

test("what the viewer shows of a document: seats, ratings, labelled decisions", () => {
  const replay = readReplay(document);
  assert.equal(replay.total, 2);
  assert.equal(replay.seatCount, 2);
  assert.deepEqual([...replay.ratingOf.keys()], [0], "a seat without a rating shows none");
  assert.deepEqual([...replay.verdictAt.keys()], [2], "only labelled decisions are marked");
  assert.equal(seatName(replay, 0), "Ana");
  assert.equal(seatName(replay, 1), "Seat 1");
  assert.deepEqual(statusOf(replay, null, 0, {}, false), ["Waiting", false]);
  assert.deepEqual(statusOf(replay, document.steps[1].state, 1, { in_round: true }, false), ["To play", false]);
  assert.deepEqual(statusOf(replay, document.steps[1].state, 0, { in_round: false }, false), ["Out", false]);
  assert.deepEqual(statusOf(replay, document.steps[1].state, 1, { in_round: true }, true), ["Winner", true]);
  assert.equal(readReplay({ steps: [] }).seatCount, 0);
});

test("a player's accuracy in a line", () => {
  assert.equal(accuracyText({ accuracy: 87.54, counts: { mistake: 2, blunder: 1 }, luck: 3 }), "Accuracy 87.5 · 2 mistakes · 1 blunder · luck +3.0");
  assert.equal(accuracyText({ accuracy: null, luck: -1.25 }), "Accuracy — · luck -1.3");
});
