import assert from "node:assert/strict";
import { test } from "node:test";
import { stepsWords } from "../../../../service/webclient/play/slips.js";
import { english } from "./english.mjs";

english();

// An analysis' turn: its discards carry draw: true whatever the game (the choice to draw where the rules grant it).
const turn = [{ type: "play", card: "R5" }, { type: "discard", card: "B3", draw: true }];

test("issue 38: a basic game's discard says no draw, though the analysis carries draw: true", () => {
  assert.equal(stepsWords(turn, "basic"), "Play R5 (Red 5) to your palette; Discard B3 (Blue 3): the rule becomes Blue");
  assert.doesNotMatch(stepsWords(turn, "basic"), /draw/);
});

test("an advanced game's discard says the draw it takes; a discard that declines it does not", () => {
  assert.match(stepsWords(turn, "advanced"), /Discard B3 \(Blue 3\): the rule becomes Blue \(you draw a card\)$/);
  assert.doesNotMatch(stepsWords([{ type: "discard", card: "B3", draw: false }], "advanced"), /draw/);
  assert.doesNotMatch(stepsWords([{ type: "play", card: "R5", draw: true }], "advanced"), /draw/);
});
