import assert from "node:assert/strict";
import { test } from "node:test";
import { capitalized, ordinal, signOf, signed, utc } from "../../../../service/webclient/core/format.js";
import { LABELS, RULES, cardName, ruleHelp, ruleName, verdict } from "../../../../service/webclient/core/rules.js";
import { english } from "./english.mjs";

english();

test("each rule has a name and a line that says what wins; what is no rule is itself, nothing a dash", () => {
  assert.deepEqual(Object.keys(RULES), ["red", "orange", "yellow", "green", "blue", "indigo", "violet"]);
  assert.equal(ruleName("red"), "Red");
  assert.equal(ruleName("violet"), "Violet");
  assert.equal(ruleHelp("red"), "Highest card wins.");
  assert.equal(ruleHelp("indigo"), "Longest run of consecutive numbers.");
  assert.equal(ruleName("mauve"), "mauve");
  assert.equal(ruleName(null), "—");
  assert.equal(ruleHelp("mauve"), "");
  assert.equal(ruleHelp("toString"), "", "a name Object has is no rule");
});

test("a card is named by its colour and number; one of no colour the page knows as it is written", () => {
  assert.equal(cardName("R5"), "Red 5");
  assert.equal(cardName("I1"), "Indigo 1");
  assert.equal(cardName("X9"), "X9");
});

test("a labelled decision's verdict says the label and the points lost, going out said too", () => {
  assert.deepEqual(LABELS, ["inaccuracy", "mistake", "blunder"]);
  assert.equal(verdict({ label: "mistake", delta: 12.345, se: 1 }), "mistake: 12.3 points of win chance lost (±1.0)");
  assert.match(verdict({ label: "blunder", delta: 30, se: 2.04, went_out: true }), /^blunder: 30\.0 points .*\(±2\.0\), going out/);
});

test("numbers as people write them", () => {
  assert.deepEqual([12, -8, 0].map(signed), ["+12", "\u22128", "\u00b10"]);
  assert.deepEqual([3, -1, 0].map(signOf), ["up", "down", "none"]);
  assert.deepEqual([1, 2, 3, 4, 11, 12, 13, 21, 22, 101, 111].map((n) => ordinal(n, "en")),
    ["1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st", "111th"]);
  assert.equal(ordinal(3, "pl"), "3.");
  assert.equal(capitalized("card played"), "Card played");
  assert.equal(capitalized(""), "");
  assert.equal(utc("2026-11-27T10:30:00.123456Z"), "2026-11-27 10:30:00 UTC");
});
