import assert from "node:assert/strict";
import { test } from "node:test";
import { cardChoices, landing, pickableCards, playableCards, takeTargets, targetsOf, turnChoices } from "../../../../service/webclient/play/targets.js";

const STEPS = [
  { type: "play", card: "R5" },
  { type: "play", card: "B3" },
  { type: "discard", card: "R5", draw: false },
  { type: "discard", card: "R5", draw: true },
  { type: "discard", card: "G2", draw: false },
  { type: "fold" },
];

test("a card of the hand: what it can do, numbered as the step buttons are", () => {
  assert.deepEqual(cardChoices(STEPS, "R5").map((c) => c.index), [0, 2, 3]);
  assert.deepEqual(cardChoices(STEPS, "V7"), []);
  assert.deepEqual([...playableCards(STEPS)].sort(), ["B3", "G2", "R5"]);
});

test("where a step lands on the table", () => {
  assert.deepEqual(
    [{ type: "play" }, { type: "discard" }, { type: "place", to: "canvas" }, { type: "place", to: "deck" }, { type: "take", seat: 2 }, { type: "end_turn" }]
      .map(landing),
    ["palette", "canvas", "canvas", "deck", "seat:2", null],
  );
});

test("a card's targets: one choice a tap takes, more its list decides", () => {
  const targets = targetsOf(STEPS, "R5");
  assert.deepEqual([...targets.keys()], ["palette", "canvas"]);
  assert.deepEqual(targets.get("palette")?.map((c) => c.index), [0]);
  assert.deepEqual(targets.get("canvas")?.map((c) => c.index), [2, 3]);
  assert.deepEqual([...targetsOf(STEPS, "B3").keys()], ["palette"]);
});

test("cards of the others' palettes to take, by seat; the steps that move no card", () => {
  const steps = [{ type: "take", seat: 1, card: "O4" }, { type: "take", seat: 2, card: "Y1" }, { type: "take", seat: 1, card: "I6" }, { type: "end_turn" }];
  const takes = takeTargets(steps);
  assert.deepEqual([...takes.keys()], [1, 2]);
  assert.deepEqual([...(takes.get(1)?.keys() || [])], ["O4", "I6"]);
  assert.equal(takes.get(1)?.get("I6")?.index, 2);
  assert.deepEqual(turnChoices(steps).map((c) => c.step.type), ["end_turn"]);
  assert.deepEqual(turnChoices(STEPS).map((c) => c.index), [5]);
});

test("a 7 lets you pick a card of your palette: onto the deck or the canvas", () => {
  const steps = [{ type: "place", card: "B1", to: "deck" }, { type: "place", card: "B1", to: "canvas" }, { type: "place", card: "R7", to: "deck" }];
  assert.deepEqual([...pickableCards(steps)], ["B1", "R7"]);
  assert.deepEqual([...playableCards(steps)], []);
  assert.deepEqual([...targetsOf(steps, "B1").keys()], ["deck", "canvas"]);
  assert.deepEqual(cardChoices(steps, "R7").map((c) => c.index), [2]);
});
