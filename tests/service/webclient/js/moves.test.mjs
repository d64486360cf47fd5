import assert from "node:assert/strict";
import { test } from "node:test";
import { colorOf, consequences, describe, movedWords, recentMoves, statusText, stepLabel } from "../../../../service/webclient/play/moves.js";
import { english } from "./english.mjs";

english();

const seats = [
  { seat: 0, name: "Ana", palette: ["R3"] },
  { seat: 1, name: "Bo", palette: ["O5", "B2"] },
  { seat: 2, name: "Cy", palette: ["G4"] },
];
const view = { you: { seat: 0 }, seats, phase: "turn", turn: { seat: 0 } };
let n = 0;
const event = (type, members) => ({ n: ++n, type, ...members });

test("a legal step says what it does and where it leads", () => {
  assert.equal(stepLabel({ type: "play", card: "R5" }, view), "Play R5 (Red 5) to your palette");
  assert.equal(stepLabel({ type: "discard", card: "B3" }, view), "Discard B3 (Blue 3): the rule becomes Blue");
  assert.equal(stepLabel({ type: "take", card: "O5", seat: 1 }, view), "Take O5 (Orange 5) from Bo");
  assert.equal(stepLabel({ type: "end_turn" }, view), "End your turn");
  assert.equal(consequences({ eliminates: true, draws: true }), "you are out of this round; you draw a card");
  assert.equal(consequences({ ends_turn: true, can_win: true }), "ends your turn, winning");
  assert.equal(consequences({ can_win: false }), "no way to end this turn winning after it");
  assert.equal(colorOf("V1"), "Violet");
  assert.equal(colorOf("X1"), "X");
});

test("where the game stands, in a line", () => {
  assert.equal(statusText(view, []), "Your turn.");
  assert.equal(statusText({ ...view, turn: { seat: 1 } }, []), "Bo is playing…");
  assert.equal(statusText({ ...view, phase: "finished", winner: 0 }, []), "Game over: you won!");
  assert.equal(statusText({ ...view, phase: "finished", winner: 2 }, []), "Game over: Cy won.");
  const aborted = { ...view, phase: "aborted" };
  assert.match(statusText(aborted, []), /^This game was aborted: /);
  assert.match(statusText(aborted, [event("game_aborted", { seat: 1 })]), /^This game was aborted by Bo: /);
  assert.match(statusText(aborted, [event("game_aborted", { seat: 0 })]), /^This game was aborted by you: /);
});

test("an event in a sentence: yours and another player's", () => {
  assert.equal(describe(event("card_played", { seat: 0, card: "R5" }), view), "You played R5 to your palette.");
  assert.equal(describe(event("card_played", { seat: 1, card: "R5" }), view), "Bo played R5 to their palette.");
  assert.equal(describe(event("card_discarded", { seat: 2, card: "B3" }), view), "Cy discarded B3: the rule is now Blue.");
  assert.equal(describe(event("card_taken", { seat: 1, card: "R3", from_seat: 0 }), view), "Bo took R3 from your palette.");
  assert.equal(describe(event("card_taken", { seat: 0, card: "G4", from_seat: 2 }), view), "You took G4 from Cy's palette.");
  assert.equal(describe(event("seat_taken", { seat: 2, name: "Cy" }), view), "Cy took seat 3.");
  assert.equal(describe(event("round_dealt", { round: 2, first_seat: 0 }), view), "Round 2 is dealt; you start.");
  assert.equal(describe(event("player_eliminated", { seat: 1, reason: "not_winning" }), view),
    "Bo is out of the round (not winning at the end of the turn).");
  assert.equal(describe(event("round_scored", { seat: 1, points: 1 }), view), "Bo scored 1 point.");
  assert.equal(describe(event("game_finished", { winner: 0 }), view), "You won the game!");
  assert.equal(describe(event("something_new", {}), view), "something new.");
});

test("what the others did since your last turn: their moves in words, the cards they played, who set the rule", () => {
  const log = [
    event("round_dealt", { round: 1, first_seat: 0 }),
    event("turn_started", { seat: 0 }),
    event("card_played", { seat: 0, card: "R3" }),
    event("turn_started", { seat: 1 }),
    event("card_played", { seat: 1, card: "O5" }),
    event("card_discarded", { seat: 1, card: "B3" }),
    event("turn_started", { seat: 2 }),
    event("card_drawn", { seat: 2, card: null }),
    event("turn_started", { seat: 0 }),
  ];
  const recent = recentMoves(log, view);
  assert.deepEqual([...recent.bySeat], [[1, ["played O5", "discarded B3 → Blue"]], [2, ["drew a card"]]]);
  assert.deepEqual([...recent.arrived], ["O5"]);
  assert.equal(recent.ruleBy, 1);
  assert.equal(movedWords(event("card_placed", { seat: 1, card: "G7", to: "canvas" }), view), "put G7 on the canvas → Green");
  // Leading the round, nobody moved yet; a spectator is told of no one's moves.
  assert.deepEqual([...recentMoves(log.slice(0, 2), view).bySeat], []);
  assert.deepEqual([...recentMoves(log, { ...view, you: null }).bySeat], []);
});
