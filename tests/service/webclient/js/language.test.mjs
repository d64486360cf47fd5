import assert from "node:assert/strict";
import { test } from "node:test";
import { LANG_KEY, addressIn, shouldSwitch, visitLanguage } from "../../../../service/webclient/core/language.js";

test("a page's address in another language keeps its path, its other parameters and its fragment", () => {
  const where = { pathname: "/v1/games/g_1/replay/view", search: "?lang=de&x=1", hash: "#step=12" };
  assert.equal(addressIn(where, "pl"), "/v1/games/g_1/replay/view?lang=pl&x=1#step=12");
  assert.equal(addressIn({ pathname: "/play", search: "", hash: "" }, "ru"), "/play?lang=ru");
  assert.equal(addressIn({ pathname: "/play", search: "", hash: "#game=g_2" }, "fr"), "/play?lang=fr#game=g_2");
});

test("a page goes to a language only when it is another one it may switch to", () => {
  const known = { en: "English", pl: "Polski" };
  assert.equal(shouldSwitch("pl", "en", known), true);
  assert.equal(shouldSwitch("en", "en", known), false);
  assert.equal(shouldSwitch("xx", "en", known), false);
  assert.equal(shouldSwitch("toString", "en", known), false);
  assert.equal(shouldSwitch(null, "en", known), false);
  assert.equal(shouldSwitch("", "en", known), false);
  assert.equal(LANG_KEY, "red7.lang", "the key /play and the viewer share (and earlier pages kept)");
});

test("issue 38: an explicit ?lang= wins for the visit, even once an address has lost it", () => {
  assert.deepEqual(visitLanguage("?lang=en", null, null), { asked: "en", pin: true });
  assert.deepEqual(visitLanguage("?lang=en", "pl", null), { asked: "en", pin: true }, "the address says it now");
  assert.deepEqual(visitLanguage("", "en", null), { asked: "en", pin: false }, "the sign-up's address without ?lang=");
  assert.deepEqual(visitLanguage("?x=1", null, null), { asked: null, pin: false });
});

test("the page's own switch (to the remembered language, the player's setting) asks nothing for the visit", () => {
  assert.deepEqual(visitLanguage("?lang=ru", null, "ru"), { asked: "ru", pin: false });
  assert.deepEqual(visitLanguage("?lang=ru", null, "pl"), { asked: "ru", pin: true }, "another address than its own");
});
