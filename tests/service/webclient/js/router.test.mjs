import assert from "node:assert/strict";
import { test } from "node:test";
import { parseRoute, resolve } from "../../../../service/webclient/play/router.js";

test("the fragment says the screen and its value", () => {
  assert.deepEqual(parseRoute(""), ["play", ""]);
  assert.deepEqual(parseRoute("#"), ["play", ""]);
  assert.deepEqual(parseRoute("#game=g_1"), ["game", "g_1"]);
  assert.deepEqual(parseRoute("#join=g_1:ABC123"), ["join", "g_1:ABC123"]);
  assert.deepEqual(parseRoute("#player=%40ana"), ["player", "@ana"]);
  assert.deepEqual(parseRoute("#lobby"), ["lobby", ""]);
  assert.deepEqual(parseRoute("#mistakes=blunder&x=1"), ["mistakes", "blunder"]);
});

const shown = [];
const routes = {
  play: { show: (value) => shown.push(["play", value]) },
  game: { show: (value) => shown.push(["game", value]) },
  join: { show: (value) => shown.push(["join", value]), invitation: true },
  ladder: { show: (value) => shown.push(["ladder", value]), signedOut: true },
};

test("a route draws its screen; an unknown one is home", () => {
  const game = resolve(routes, ["game", "g_1"], true);
  assert.equal(game.route, routes.game);
  assert.equal(game.value, "g_1");
  assert.equal(resolve(routes, ["nowhere", "x"], true).route, routes.play);
  assert.equal(resolve(routes, ["toString", ""], true).route, routes.play, "a name every object has is no route");
});

test("without a player, a route that needs one is the sign-up (an invitation says so); the others show", () => {
  assert.deepEqual(resolve(routes, ["game", "g_1"], false), { signUp: true, invited: false });
  assert.deepEqual(resolve(routes, ["join", "g_1:C"], false), { signUp: true, invited: true });
  assert.equal(resolve(routes, ["ladder", "basic"], false).route, routes.ladder);
});
