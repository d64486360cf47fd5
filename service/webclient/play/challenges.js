// The lobby's challenges: those received (accept, or decline with one of the API's reasons) and sent (cancel), read
// again every few seconds so that a game opens on its own when the last player accepts; players found by the start
// of their handle (searchPlayers) and challenged, one to three at once, with the game's settings.

import { $, h } from "../core/dom.js";
import { counted, t } from "../core/words.js";
import { DECLINE_KEYS, declineReason, settingsWords, timeControl, untilWords } from "./format.js";
import { api, me, newKey, signedIn } from "./session.js";
import { clearProblem, confirmStep, fillTimeControl, notice, onScreen, showProblem } from "./ui.js";

const SEARCH_PAGE = 10;
const MOST_CHALLENGED = 3;

/** @typedef {{ handle: string, name: string }} Named */
/**
 * A challenge as the API answers it (listChallenges, its schema in the OpenAPI document).
 * @typedef {{ id: string, status: string, role: string, variant: string, [member: string]: any }} Challenge
 */

const lobby = {
  /** @type {Named[]} the players the challenge form names */
  challengeTo: [],
  /** @type {Set<string>} the challenges this page saw open: when one starts, its game opens */
  openSeen: new Set(),
  searched: "",
  /** @type {string | null} */
  foundCursor: null,
  /** the challenge form is to be shown when the lobby opens (a profile's "Challenge") */
  focusChallenge: false,
};

const onLobby = () => onScreen("lobby");

/**
 * A challenge's state in words.
 * @param {Challenge} challenge
 */
function challengeStatusWords(challenge) {
  switch (challenge.status) {
    case "open": return t("play.ch.open", { when: untilWords(challenge.expires_at) });
    case "started": return t("play.ch.started");
    case "declined": {
      const who = challenge.challenged.find((/** @type {any} */ player) => player.answer === "declined");
      const reason = declineReason(challenge.decline_reason);
      if (who && who.id === signedIn().id) return t("play.ch.you_declined", { reason: reason[1] });
      return t("play.ch.declined", { player: who ? who.name : t("play.a_player"), reason: reason[1] });
    }
    case "cancelled": return t("play.ch.cancelled");
    case "expired": return t("play.ch.expired");
    default: return String(challenge.status);
  }
}

/**
 * A challenge as an item of the inbox or of the sent list, with what the player may do about it.
 * @param {Challenge} challenge
 */
function challengeItem(challenge) {
  const me = signedIn();
  const sent = challenge.role === "challenger";
  /** @type {Record<string, string>} */
  const answer = { pending: "", accepted: " " + t("play.ch.accepted_mark"), declined: " " + t("play.ch.declined_mark") };
  /** @type {{ id: string, name: string, answer: string }[]} */
  const challenged = challenge.challenged;
  const mineAnswer = (challenged.find((player) => player.id === me.id) || { answer: undefined }).answer;
  const others = challenged.filter((player) => player.id !== me.id).map((player) => player.name + answer[player.answer]);
  const title = sent
    ? t("play.ch.you_challenged", { players: challenged.map((player) => player.name + answer[player.answer]).join(", ") })
    : others.length ? t("play.ch.challenges_you_and", { player: challenge.challenger.name, players: others.join(", ") })
      : t("play.ch.challenges_you", { player: challenge.challenger.name });
  const ais = challenge.seats.filter((/** @type {any} */ seat) => seat.kind === "ai").length;
  const seats = counted("seats", challenge.seats.length) + (ais ? ", " + t("play.ch.ais", { n: ais }) : "");
  const facts = `${settingsWords(challenge)} · ${seats} · ${challengeStatusWords(challenge)}`;
  const actions = h("div", { class: "actions" });
  const id = encodeURIComponent(challenge.id);
  if (challenge.status === "open" && !sent && mineAnswer === "pending") {
    const reason = /** @type {HTMLSelectElement} */ (h("select", { "aria-label": t("play.why_decline"), class: "decline-reason" },
      ...DECLINE_KEYS.map((key) => h("option", { value: key, text: declineReason(key)[0] }))));
    actions.append(
      h("button", { type: "button", class: "primary", "data-act": "accept", onclick: () => answerChallenge(challenge, "accept") }, t("play.accept")),
      reason,
      h("button", { type: "button", "data-act": "decline", onclick: () => answerChallenge(challenge, "decline", reason.value) }, t("play.decline")));
  } else if (challenge.status === "open" && !sent) {
    actions.append(h("span", { class: "muted", text: t("play.you_accepted_everyone") }));
  } else if (challenge.status === "open" && sent) {
    actions.append(h("button", { type: "button", class: "danger", "data-act": "cancel", onclick: () => answerChallenge(challenge, "cancel") }, t("play.cancel")));
  } else if (challenge.status === "started" && challenge.game_id) {
    actions.append(h("a", { class: "button", href: "#game=" + encodeURIComponent(challenge.game_id), text: t("play.open_the_game") }));
  }
  return h("li", { "data-challenge": id, "data-status": challenge.status, "data-role": challenge.role },
    h("span", { class: "what" }, h("strong", { text: title }), h("span", { class: "muted", text: facts })), actions);
}

/** Read the challenges again (listChallenges), and open the game of one this page saw open that has started. */
export async function loadChallenges() {
  let page;
  try {
    page = (await api("GET", "/v1/challenges?limit=30", { quiet: true })).data;
  } catch (problem) {
    // a read that failed for want of a network: the next one
    if (/** @type {{ status?: number }} */ (problem).status && onLobby()) showProblem(problem);
    return;
  }
  if (!onLobby() || !me()) return;
  /** @type {Challenge[]} */
  const challenges = page.challenges;
  // A challenge this page saw open has started (the last player accepted): its game opens.
  const started = challenges.find((challenge) => challenge.status === "started" && challenge.game_id && lobby.openSeen.has(challenge.id));
  lobby.openSeen = new Set(challenges.filter((challenge) => challenge.status === "open").map((challenge) => challenge.id));
  if (started) {
    notice(t("play.everyone_accepted"));
    location.hash = "game=" + encodeURIComponent(started.game_id);
    return;
  }
  const received = challenges.filter((challenge) => challenge.role === "challenged");
  const sent = challenges.filter((challenge) => challenge.role === "challenger");
  // A list is redrawn only when it changed, so that a reason being chosen is not lost to the next read.
  drawIfChanged("received", received);
  drawIfChanged("sent", sent);
  $("no-received").hidden = received.length > 0;
  $("no-sent").hidden = sent.length > 0;
}

/**
 * @param {string} list
 * @param {Challenge[]} challenges
 */
function drawIfChanged(list, challenges) {
  const key = JSON.stringify(challenges.map((challenge) => [challenge.id, challenge.version, challenge.status]));
  if ($(list).dataset.key === key) return;
  $(list).dataset.key = key;
  $(list).replaceChildren(...challenges.map(challengeItem));
}

/**
 * Accept, decline (with a reason) or cancel a challenge.
 * @param {Challenge} challenge
 * @param {"accept" | "decline" | "cancel"} what
 * @param {string} [reason]
 */
async function answerChallenge(challenge, what, reason) {
  clearProblem();
  if (what === "cancel") {
    const sure = await confirmStep(t("play.cancel_challenge_q"), t("play.cancel_challenge_text"), t("play.cancel_it"));
    if (!sure) return;
  }
  const path = `/v1/challenges/${encodeURIComponent(challenge.id)}`;
  try {
    const answer = what === "cancel" ? await api("DELETE", path)
      : await api("POST", `${path}/${what}`, { headers: newKey(), body: what === "decline" ? { reason } : undefined });
    const now = answer.data;
    if (now.status === "started" && now.game_id) {
      notice(t("play.you_accepted_starts"));
      location.hash = "game=" + encodeURIComponent(now.game_id);
      return;
    }
    if (what === "accept") notice(t("play.you_accepted_every"));
    if (what === "decline") notice(t("play.you_declined_challenge"));
    if (what === "cancel") notice(t("play.challenge_cancelled"));
  } catch (problem) {
    showProblem(problem);
  }
  await loadChallenges();
}

/** The players the challenge form names, each with a button to leave them out; the "Challenge" buttons of those found. */
export function renderChallengeTo() {
  const chips = lobby.challengeTo.map((player) => h("li", { "data-handle": player.handle },
    h("span", { text: `@${player.handle}` }),
    h("button", { type: "button", "aria-label": t("play.do_not_challenge", { handle: "@" + player.handle }), onclick: () => {
      lobby.challengeTo = lobby.challengeTo.filter((other) => other.handle !== player.handle);
      renderChallengeTo();
    } }, "×")));
  $("challenge-who").replaceChildren(...chips);
  $("challenge-none").hidden = lobby.challengeTo.length > 0;
  $("challenge-settings").hidden = !lobby.challengeTo.length;
  $("challenge-send", HTMLButtonElement).disabled = !lobby.challengeTo.length;
  for (const button of $("found").querySelectorAll("button[data-challenge]")) {
    const chosen = lobby.challengeTo.some((player) => player.handle === /** @type {HTMLElement} */ (button).dataset.challenge);
    /** @type {HTMLButtonElement} */ (button).disabled = chosen || lobby.challengeTo.length >= MOST_CHALLENGED;
    button.textContent = chosen ? t("play.chosen") : t("play.challenge");
  }
}

/**
 * Name a player in the challenge form (three at most).
 * @param {Named} player
 */
export function addToChallenge(player) {
  if (lobby.challengeTo.some((other) => other.handle === player.handle) || lobby.challengeTo.length >= MOST_CHALLENGED) return;
  lobby.challengeTo.push({ handle: player.handle, name: player.name });
  renderChallengeTo();
}

/**
 * Name a player and go to the challenge form in the lobby (from their profile).
 * @param {Named} player
 */
export function challengeFromProfile(player) {
  addToChallenge(player);
  lobby.focusChallenge = true;
  location.hash = "lobby";
}

/** The lobby opens: the challenges seen open start afresh, the form says whom it names. */
export function openChallenges() {
  lobby.openSeen = new Set();
  renderChallengeTo();
}

/** Once the lobby is drawn: to the challenge form, if a profile's "Challenge" brought the player here. */
export function focusChallenge() {
  if (!lobby.focusChallenge) return;
  lobby.focusChallenge = false;
  $("challenge-panel").scrollIntoView({ block: "start" });
  $("challenge-send").focus();
}

/** @param {SubmitEvent} event */
async function sendChallenge(event) {
  event.preventDefault();
  clearProblem();
  if (!lobby.challengeTo.length) return;
  const variant = /** @type {HTMLInputElement} */ (document.querySelector('input[name="c-variant"]:checked')).value;
  const body = {
    players: lobby.challengeTo.map((player) => player.handle),
    variant,
    action_rules: $("c-action-rules", HTMLInputElement).checked,
    rated: $("c-rated", HTMLInputElement).checked,
    ...timeControl($("c-time-control", HTMLSelectElement).value),
  };
  const button = $("challenge-send", HTMLButtonElement);
  button.disabled = true;
  try {
    await api("POST", "/v1/challenges", { body, headers: newKey() });
    notice(t("play.challenge_sent", { players: lobby.challengeTo.map((player) => "@" + player.handle).join(", ") }));
    lobby.challengeTo = [];
    renderChallengeTo();
    await loadChallenges();
  } catch (problem) {
    showProblem(problem);
  } finally {
    button.disabled = !lobby.challengeTo.length;
  }
}

/**
 * Players found by the start of their handle (``more``: the next page of the same search).
 * @param {boolean} more
 */
async function searchPlayers(more) {
  clearProblem();
  if (!more) lobby.searched = $("search-handle", HTMLInputElement).value.trim().replace(/^@/, "");
  const query = new URLSearchParams({ limit: String(SEARCH_PAGE) });
  if (lobby.searched) query.set("handle", lobby.searched);
  if (more && lobby.foundCursor) query.set("cursor", lobby.foundCursor);
  let page;
  try {
    page = (await api("GET", "/v1/players?" + query)).data;
  } catch (problem) {
    showProblem(problem);
    return;
  }
  const me = signedIn();
  const list = $("found");
  if (!more) list.replaceChildren();
  for (const player of /** @type {{ id: string, handle: string, name: string }[]} */ (page.players)) {
    const you = player.id === me.id;
    list.append(h("li", { "data-player": player.handle },
      h("span", { class: "what" }, h("a", { href: "#player=" + encodeURIComponent(player.handle), text: "@" + player.handle }),
        h("span", { class: "muted", text: you ? t("play.name_you", { name: player.name }) : player.name })),
      you ? null : h("div", { class: "actions" }, h("button", {
        type: "button", "data-challenge": player.handle, onclick: () => addToChallenge(player),
      }, t("play.challenge")))));
  }
  lobby.foundCursor = page.next_cursor;
  $("more-found").hidden = !page.next_cursor;
  $("no-found").hidden = list.children.length > 0;
  $("no-found").textContent = lobby.searched ? t("play.nobody_starts", { start: lobby.searched }) : t("play.nobody_handle");
  renderChallengeTo();
}

export function setUpChallenges() {
  fillTimeControl("c-time-control");
  $("refresh-challenges").addEventListener("click", loadChallenges);
  $("challenge-form").addEventListener("submit", sendChallenge);
  $("search-form").addEventListener("submit", (event) => { event.preventDefault(); searchPlayers(false); });
  $("more-found").addEventListener("click", () => searchPlayers(true));
}
