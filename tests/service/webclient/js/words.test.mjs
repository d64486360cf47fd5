import assert from "node:assert/strict";
import { test } from "node:test";
import { counted, fill, has, language, languages, readWords, setWords, t, tNodes } from "../../../../service/webclient/core/words.js";
import { english } from "./english.mjs";

const said = english();

test("a word is said with its parameters filled in; one not given, or a word not known, stays as it is", () => {
  assert.equal(t("play.welcome", { name: "Ana" }), "Welcome, Ana!");
  assert.equal(t("play.in_min", {}), "in %(minutes)s min");
  assert.equal(t("no.such.word", { x: 1 }), "no.such.word");
  assert.equal(fill("%(n)d of %(of)s", { n: 3, of: 7 }), "3 of 7");
  assert.equal(fill("100%", { n: 1 }), "100%");
  assert.ok(has("play.title") && !has("counted") && !has("nothing"));
});

test("counted words take the plural form of their number, and a number beyond the forms is the number", () => {
  assert.equal(counted("cards", 1), "1 card");
  assert.equal(counted("cards", 2), "2 cards");
  assert.equal(counted("rounds", 3), "3 rounds");
  assert.equal(counted("cards", 1000), "1000");
  assert.equal(counted("no_such_kind", 4), "4");
  setWords({ lang: "pl", languages: {}, words: { counted: { cards: ["0 kart", "1 karta", "2 karty", "3 karty", "4 karty", "5 kart"] } } });
  try {
    assert.deepEqual([1, 2, 5].map((n) => counted("cards", n)), ["1 karta", "2 karty", "5 kart"]);
  } finally {
    setWords(said);
  }
});

test("tNodes puts nodes where the word names them, text elsewhere, and no empty parts", () => {
  const node = { node: true };
  setWords({ lang: "en", languages: {}, words: { x: "%(a)s and %(b)s!" } });
  try {
    assert.deepEqual(tNodes("x", { a: 1 }, { b: /** @type {any} */ (node) }), ["1", " and ", node, "!"]);
    assert.deepEqual(tNodes("x", {}, {}), ["%(a)s", " and ", "%(b)s", "!"]);
  } finally {
    setWords(said);
  }
});

test("the page's words are read from its JSON element, and a page without them still says codes", () => {
  assert.equal(language(), "en");
  assert.deepEqual(Object.keys(languages()), ["en", "pl", "ru", "pt", "de", "fr", "es", "it"]);
  assert.deepEqual(readWords(null), { lang: "en", languages: {}, words: {} });
  assert.deepEqual(readWords({ textContent: "{not json" }), { lang: "en", languages: {}, words: {} });
  assert.equal(readWords({ textContent: '{"lang":"de","languages":{},"words":{"a":"b"}}' }).lang, "de");
});
