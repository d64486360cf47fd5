import assert from "node:assert/strict";
import { test } from "node:test";
import { changes } from "../../../../service/webclient/play/travel.js";

/** A view of game g1: version, phase, rule, the turn's seat, and each seat's [palette, hand size]. */
function view(version, phase, rule, turn, seats, extra = {}) {
  return {
    id: "g1", version, phase, rule, round: 1, turn: turn === null ? null : { seat: turn },
    seats: seats.map(([palette, hand_size], seat) => ({ seat, palette, hand_size })), ...extra,
  };
}

test("the others' cards travel to their palettes; yours do not; a discard goes to the canvas", () => {
  const before = view(5, "turn", "red", 1, [[["R3"], 6], [["B2"], 7], [["G4"], 7]]);
  const after = view(9, "turn", "blue", 0, [[["R3"], 6], [["B2", "O5"], 5], [["G4", "I6"], 6]]);
  const seen = changes(before, after, 0);
  assert.deepEqual(seen.travels, [
    { seat: 1, card: "O5", to: "palette" }, { seat: 2, card: "I6", to: "palette" }, { seat: 1, card: null, to: "canvas" },
  ]);
  assert.equal(seen.rule, true);
  assert.equal(seen.yourTurn, true);
  assert.equal(seen.winner, null);
});

test("your own move travels nothing; the rule change still shows", () => {
  const before = view(5, "turn", "red", 0, [[["R3"], 6], [["B2"], 7]]);
  const after = view(6, "turn", "green", 1, [[["R3", "G7"], 4], [["B2"], 7]]);
  assert.deepEqual(changes(before, after, 0), { travels: [], rule: true, winner: null, yourTurn: false });
});

test("a round's end names its winner; a deal travels nothing; an older or another game's view changes nothing", () => {
  const before = view(5, "turn", "red", 1, [[["R3"], 6], [["B2"], 7]]);
  const won = view(7, "round_won", "red", null, [[["R3"], 6], [["B2", "B6"], 6]], { round_winner: 1 });
  assert.equal(changes(before, won, 0).winner, 1);
  const over = view(7, "finished", "red", null, [[["R3"], 6], [["B2", "B6"], 6]], { winner: 1 });
  assert.equal(changes(before, over, 0).winner, 1);
  const dealt = { ...view(12, "turn", "red", 0, [[["Y1"], 7], [["V3"], 7]]), round: 2 };
  assert.deepEqual(changes(won, dealt, 0), { travels: [], rule: false, winner: null, yourTurn: true });
  assert.deepEqual(changes(won, before, 0).travels, []);
  assert.deepEqual(changes(null, before, 0).travels, []);
  assert.deepEqual(changes({ ...before, id: "g2" }, won, 0).winner, null);
});

test("your turn come round again, with no view of the others' turns in between, is still your turn come", () => {
  const before = view(5, "turn", "red", 0, [[["R3"], 6], [["B2"], 7]]);
  const again = view(8, "turn", "red", 0, [[["R3", "G1"], 5], [["B2", "B5"], 6]]);
  assert.equal(changes(before, again, 0).yourTurn, true);
  const sameTurn = view(6, "turn", "red", 0, [[["R3", "G1"], 5], [["B2"], 7]]);
  assert.equal(changes(before, sameTurn, 0).yourTurn, false, "your own step within your turn");
});
