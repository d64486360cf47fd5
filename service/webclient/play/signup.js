// Signing up (a name, a handle if you like: createPlayer), signing out (the token revoked), and a player forgotten.

import { $ } from "../core/dom.js";
import { keptLanguage } from "../core/language.js";
import { language, t } from "../core/words.js";
import { stopLive } from "./live.js";
import { currentRoute, route } from "./router.js";
import { api, newKey, savePlayer, whenForgotten } from "./session.js";
import { clearProblem, clearTimers, confirmStep, fieldError, notice, screen, showProblem } from "./ui.js";

/** The handle refusals shown beside the field they are about, rather than at the top of the page. */
export const HANDLE_CODES = new Set(["handle_taken", "handle_invalid", "handle_reserved", "handle_not_allowed"]);

/** The terms of use in force (getTerms): their version (empty: the server has none), asked for once a page. */
let terms = /** @type {Promise<string> | null} */ (null);

/** Show the terms' box at the sign-up when the server has terms, and say which version it accepts. */
function termsInForce() {
  terms ??= api("GET", "/v1/terms", { auth: false, quiet: true })
    .then((answer) => {
      const found = /** @type {{ terms_version: string, terms_url: string }} */ (answer.data);
      $("signup-terms").hidden = !found.terms_version;
      $("signup-terms-link", HTMLAnchorElement).href = found.terms_url;
      return found.terms_version;
    })
    .catch(() => { terms = null; return ""; });
  return terms;
}

/**
 * The sign-up; ``invited``: it says a game waits for them (unless told, when the address is a share link).
 * @param {string | null} message
 * @param {boolean} [invited]
 */
export function showSignup(message, invited) {
  screen("signup");
  $("signup-invite").hidden = !(invited ?? currentRoute()[0] === "join");
  if (message) notice(message);
  termsInForce();
  $("signup-name").focus();
}

/**
 * This browser forgets the player (signed out, the account deleted, the token gone): no timers, no live feed, the
 * sign-up; ``home``: the address goes back to the start too.
 * @param {string} message
 * @param {boolean} home
 */
export function forgetPlayer(message, home) {
  clearTimers();
  savePlayer(null);
  stopLive();
  if (home) {
    history.replaceState(null, "", location.pathname + location.search);  // ?lang= kept
    showSignup(message, false);
  } else showSignup(message);
}

/** @param {SubmitEvent} event */
async function signUp(event) {
  event.preventDefault();
  clearProblem();
  const name = $("signup-name", HTMLInputElement).value.trim();
  if (!name) {
    showProblem({ title: t("play.name_first"), detail: t("play.name_seen") });
    return;
  }
  const handleField = $("signup-handle", HTMLInputElement);
  const handle = handleField.value.trim();
  fieldError("signup-handle", null);
  const button = $("signup-submit", HTMLButtonElement);
  button.disabled = true;
  try {
    const version = await termsInForce();
    if (version && !$("signup-terms-accept", HTMLInputElement).checked) {
      showProblem({ title: t("play.accept_the_terms_first"), detail: t("play.terms_seen") });
      return;
    }
    const body = { name, ...(handle ? { handle } : {}), ...(version ? { accept_terms: version } : {}) };
    // A fresh key per submission: a retry after a 503 makes no second player (and a refused handle makes none).
    const created = (await api("POST", "/v1/players", { body, auth: false, headers: newKey() })).data;
    savePlayer({ id: created.id, name: created.name, handle: created.handle || null, token: created.token });
    // A language chosen in this browser before signing up becomes the new player's setting (pushes follow it).
    const lang = language();
    if (keptLanguage() === lang) api("PATCH", "/v1/players/me", { body: { language: lang }, quiet: true, retries: 0 }).catch(() => {});
    handleField.value = "";
    notice(t("play.welcome", { name: created.name }));
    await route();
  } catch (problem) {
    const refused = /** @type {{ code?: string }} */ (problem);
    if (refused.code && HANDLE_CODES.has(refused.code)) fieldError("signup-handle", refused);
    else showProblem(problem);
  } finally {
    button.disabled = false;
  }
}

async function signOut() {
  const sure = await confirmStep(t("play.sign_out_q"), t("play.sign_out_text"), t("play.sign_out"));
  if (!sure) return;
  try {
    const tokens = (await api("GET", "/v1/players/me/tokens")).data.tokens;
    const current = tokens.find((/** @type {{ current: boolean }} */ token) => token.current);
    if (current) await api("DELETE", `/v1/players/me/tokens/${encodeURIComponent(current.id)}`);
  } catch (problem) {
    if (/** @type {{ status?: number }} */ (problem).status !== 401) { showProblem(problem); return; }
  }
  forgetPlayer(t("play.signed_out"), true);
}

export function setUpSignup() {
  $("signup-form").addEventListener("submit", signUp);
  $("sign-out").addEventListener("click", signOut);
  whenForgotten(() => forgetPlayer(t("play.token_gone"), false));
}
