import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { Problem, isAbort, request, retryAfter } from "../../../../service/webclient/core/api.js";
import { english } from "./english.mjs";

english();
const realFetch = globalThis.fetch;
afterEach(() => { globalThis.fetch = realFetch; });

/**
 * A fetch that answers each call with the next of ``answers`` and keeps what it was asked.
 * @param {(Response | Error)[]} answers
 */
function answering(answers) {
  const asked = [];
  globalThis.fetch = async (url, init) => {
    asked.push({ url, ...init });
    const next = answers.shift();
    if (next instanceof Error) throw next;
    return next;
  };
  return asked;
}

const json = (status, body, headers = {}) => new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json", ...headers } });

test("a call sends JSON with the token and the page's language, and answers the data, status and ETag", async () => {
  const asked = answering([json(200, { id: "g_1" }, { ETag: '"7"' })]);
  const answer = await request("POST", "/v1/games", { token: "tok", body: { seats: [] }, headers: { "Idempotency-Key": "k" } });
  assert.deepEqual(answer, { data: { id: "g_1" }, status: 200, etag: '"7"' });
  assert.equal(asked.length, 1);
  assert.equal(asked[0].url, "/v1/games");
  assert.equal(asked[0].body, '{"seats":[]}');
  assert.equal(asked[0].cache, "no-store");
  assert.deepEqual(asked[0].headers, {
    Accept: "application/json", "Accept-Language": "en", "Idempotency-Key": "k", Authorization: "Bearer tok", "Content-Type": "application/json",
  });
  assert.equal("credentials" in asked[0], false, "the browser's own unless told");
});

test("a refusal is thrown as a Problem with the API's code, title and detail", async () => {
  answering([json(409, { code: "version_conflict", title: "Conflict", detail: "The game moved on.", version: 9 })]);
  const problem = await request("GET", "/v1/games/g_1").then(() => null, (error) => error);
  assert.ok(problem instanceof Problem);
  assert.equal(problem.status, 409);
  assert.equal(problem.code, "version_conflict");
  assert.equal(problem.title, "Conflict");
  assert.equal(problem.detail, "The game moved on.");
  assert.equal(problem.body.version, 9);
});

test("an answer that is not JSON, or no answer at all, is said in the page's words", async () => {
  answering([new Response("<html>bad gateway</html>", { status: 502 }), new TypeError("Failed to fetch")]);
  const bad = await request("GET", "/v1/games").catch((error) => error);
  assert.equal(bad.status, 502);
  assert.equal(bad.title, "Request failed");
  const none = await request("GET", "/v1/games").catch((error) => error);
  assert.equal(none.status, 0);
  assert.equal(none.title, "The server cannot be reached.");
  assert.equal(none.detail, "Check your connection and try again.");
});

test("a call given up is thrown as it is", async () => {
  const abort = new DOMException("stopped", "AbortError");
  answering([abort]);
  const error = await request("GET", "/v1/games/g_1/events?wait=25").catch((e) => e);
  assert.equal(error, abort);
  assert.ok(isAbort(error) && !isAbort(new Problem(0, {})) && !isAbort(null));
});

test("a 429 is waited out as its Retry-After says and tried again; a 503 only where trying again is safe", async () => {
  const waits = [];
  const asked = answering([json(429, { code: "rate_limited" }, { "Retry-After": "1" }), json(200, { ok: true })]);
  const started = Date.now();
  const answer = await request("GET", "/v1/players/me", { waiting: (seconds) => waits.push(seconds) });
  assert.deepEqual(answer.data, { ok: true });
  assert.equal(asked.length, 2);
  assert.deepEqual(waits, [1]);
  assert.ok(Date.now() - started >= 950, "it waited the second the server asked for");

  answering([json(503, { code: "unavailable", title: "Busy" }, { "Retry-After": "1" })]);
  const post = await request("POST", "/v1/games/g_1/leave").catch((e) => e);
  assert.equal(post.status, 503, "a POST without an Idempotency-Key is not sent twice");

  answering([json(429, { code: "rate_limited", title: "Slow down" })]);
  const refused = await request("GET", "/v1/games", { retries: 0 }).catch((e) => e);
  assert.equal(refused.title, "Slow down");
});

test("Retry-After is read as seconds from 1 to 60, 2 when it says nothing", () => {
  const headers = (value) => ({ get: () => value });
  assert.deepEqual(["5", "0", "600", "soon", null].map((v) => retryAfter(headers(v))), [5, 1, 60, 2, 2]);
});
