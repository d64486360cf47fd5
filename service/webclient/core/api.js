// One call to this origin's API, as every page of the web client makes it: JSON in and out, the page's language
// asked for, a refusal (RFC 9457 problem+json) thrown as a Problem, a 429 (or a 503 where trying again is safe)
// waited out as its Retry-After says and tried again.  The pages' only way to the network besides /play's live feed.

import { language, t } from "./words.js";

/**
 * @param {number} ms
 * @returns {Promise<void>}
 */
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Whether ``error`` is a call given up (its AbortSignal), which nobody needs to be told of.
 * @param {unknown} error
 */
export function isAbort(error) {
  return typeof error === "object" && error !== null && /** @type {{ name?: unknown }} */ (error).name === "AbortError";
}

/** A refusal: the API's problem+json (its status, code, title and detail), or no answer at all (status 0). */
export class Problem extends Error {
  /**
   * @param {number} status
   * @param {Record<string, any> | null} [body]
   */
  constructor(status, body) {
    super((body && (body.detail || body.title)) || t("viewer.request_failed"));
    this.status = status;
    /** @type {Record<string, any>} */
    this.body = body || {};
    /** @type {string | null} */
    this.code = this.body.code || null;
    /** @type {string} */
    this.title = this.body.title || t("play.went_wrong");
    /** @type {string} */
    this.detail = this.body.detail || "";
  }
}

/**
 * How long to wait before trying again, in seconds: the answer's Retry-After, else 2; 1 to 60.
 * @param {{ get(name: string): string | null }} headers
 */
export function retryAfter(headers) {
  const seconds = Number.parseInt(headers.get("Retry-After") || "", 10);
  return Math.min(Math.max(Number.isFinite(seconds) ? seconds : 2, 1), 60);
}

/**
 * @typedef {object} Call
 * @property {string | null} [token] the player's bearer token
 * @property {unknown} [body] sent as JSON
 * @property {Record<string, string>} [headers]
 * @property {AbortSignal} [signal]
 * @property {number} [retries] how many times a 429 (or 503) is waited out: 3 unless told
 * @property {(seconds: number) => void} [waiting] told before each wait
 * @property {RequestCredentials} [credentials] the browser's (same-origin) unless told
 */

/**
 * @typedef {{ data: any, status: number, etag: string | null }} Answer
 * ``data``: the answer's JSON as the API documents it (the OpenAPI document at /v1/openapi.json), or null.
 */

/**
 * One call; the answer, or a thrown Problem (an AbortError as it is).
 * @param {string} method
 * @param {string} url a path of this origin
 * @param {Call} [call]
 * @returns {Promise<Answer>}
 */
export async function request(method, url, call = {}) {
  /** @type {Record<string, string>} */
  const headers = { Accept: "application/json", "Accept-Language": language(), ...(call.headers || {}) };
  if (call.token) headers.Authorization = "Bearer " + call.token;
  let body;
  if (call.body !== undefined) {
    headers["Content-Type"] = "application/json";
    body = JSON.stringify(call.body);
  }
  const safeToRetry = method === "GET" || "Idempotency-Key" in headers;
  const sent = { method, headers, body, cache: /** @type {RequestCache} */ ("no-store"), signal: call.signal };
  for (let attempt = 0; ; attempt += 1) {
    let response;
    try {
      response = await fetch(url, call.credentials ? { ...sent, credentials: call.credentials } : sent);
    } catch (error) {
      if (isAbort(error)) throw error;
      throw new Problem(0, { title: t("viewer.unreachable"), detail: t("viewer.check_connection") });
    }
    const limited = response.status === 429 || (response.status === 503 && safeToRetry);
    if (limited && attempt < (call.retries ?? 3)) {
      const wait = retryAfter(response.headers);
      if (call.waiting) call.waiting(wait);
      await response.text();
      await sleep(wait * 1000);
      continue;
    }
    const text = await response.text();
    let data = null;
    if (text) {
      try {
        data = JSON.parse(text);
      } catch (error) {
        data = null;
      }
    }
    if (!response.ok) throw new Problem(response.status, data || { title: t("viewer.request_failed") });
    return { data, status: response.status, etag: response.headers.get("ETag") };
  }
}
