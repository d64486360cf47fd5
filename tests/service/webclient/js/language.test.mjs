import assert from "node:assert/strict";
import { test } from "node:test";
import { LANG_KEY, addressIn, shouldSwitch } from "../../../../service/webclient/core/language.js";

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
