import assert from "node:assert/strict";
import { test } from "node:test";
import { aiLevel, seatLabel } from "../../../../service/webclient/core/seats.js";
import { setWords } from "../../../../service/webclient/core/words.js";
import { english } from "./english.mjs";

const said = english();

test("an AI seat's name is said with the level words of the new-game form; a player's name stays as it is", () => {
  assert.equal(seatLabel({ name: "AI 1 (greedy)", kind: "ai", level: "greedy" }, 1), "AI 1 (greedy)");
  assert.equal(seatLabel({ name: "Ana", kind: "human" }, 0), "Ana");
  assert.equal(seatLabel({ name: "AI 1 (greedy)", kind: "human" }, 0), "AI 1 (greedy)", "a player who calls themself so");
  assert.equal(aiLevel("expert"), "AI, expert");
  assert.equal(aiLevel("clever"), null);
});

test("in Polish the AI seat and a resigned player's seat are Polish words (the catalogs' own)", () => {
  const polish = {
    ...said, lang: "pl",
    words: { ...said.words, "core.ai_seat.greedy": "SI %(number)s (chciwa)", "core.resigned_seat.random": "%(name)s (poddał(a) się; SI losowa)" },
  };
  setWords(polish);
  try {
    assert.equal(seatLabel({ name: "AI 2 (greedy)", kind: "ai", level: "greedy" }, 2), "SI 2 (chciwa)");
    assert.equal(seatLabel({ name: "Ana (resigned; AI random)", kind: "human", level: "random" }, 0), "Ana (poddał(a) się; SI losowa)");
    assert.equal(seatLabel({ name: "AI 2 (greedy)", kind: "ai", level: "greedy" }, 1), "AI 2 (greedy)", "not the seat's own label");
  } finally {
    setWords(said);
  }
});
