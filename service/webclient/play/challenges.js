// The lobby's challenges: those received (accept, or decline with one of the API's reasons) and sent (cancel), as the
// player's feed (feed.js) says them: the open ones when it opens, then each one a notice names read again (getChallenge),
// so that a game opens on its own when the last player accepts; players found by the start of their handle
// (searchPlayers) and challenged, one to three at once, with the game's settings.  A challenge received offers to
// block its challenger too (blockPlayer): the server declines it as any decline, and it leaves the inbox at once.

import { $, h } from "../core/dom.js";
import { counted, t } from "../core/words.js";
import { DECLINE_KEYS, declineReason, settingsWords, timeControl, untilWords } from "./format.js";
import { onFeed } from "./feed.js";
import { api, me, newKey, signedIn } from "./session.js";
import { clearProblem, confirmStep, fillTimeControl, notice, onScreen, showProblem } from "./ui.js";

const SEARCH_PAGE = 10;
const MOST_CHALLENGED = 3;


/** @import { FeedState } from "./feed.js" */
/** @typedef {{ handle: string, name: string }} Named */
/**
 * A challenge as the API answers it (listChallenges, its schema in the OpenAPI document).
 * @typedef {{ id: string, status: string, role: string, variant: string, [member: string]: any }} Challenge
 */

const lobby = {
  /** @type {Map<string, Challenge>} the challenges this page knows of, by id: the feed's, those a notice named, its own */
  known: new Map(),
  /** @type {Named[]} the players the challenge form names */
  challengeTo: [],
  searched: "",
  /** @type {string | null} */
  foundCursor: null,
  /** the challenge form is to be shown when the lobby opens (a profile's "Challenge") */
  focusChallenge: false,
  /** @type {Set<string>} the challenges of players this page blocked: declined by the block, shown no more */
  blocked: new Set(),
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
      h("button", { type: "button", "data-act": "decline", onclick: () => answerChallenge(challenge, "decline", reason.value) }, t("play.decline")),
      h("button", {
        type: "button", class: "small", "data-act": "block", "data-block": challenge.challenger.id, text: t("play.block"),
        "aria-label": t("play.block_player", { name: challenge.challenger.name }),
        onclick: () => blockChallenger(challenge.challenger.id),
      }));
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

/**
 * Take a challenge in as the API answers it (the feed's state, a read, an answer to the page's own request); one this
 * page saw open that has started (the last player accepted) opens its game when the lobby is shown.
 * @param {Challenge} challenge
 */
function took(challenge) {
  const before = lobby.known.get(challenge.id);
  lobby.known.set(challenge.id, challenge);
  if (before && before.status === "open" && challenge.status === "started" && challenge.game_id && onLobby()) {
    notice(t("play.everyone_accepted"));
    location.hash = "game=" + encodeURIComponent(challenge.game_id);
    return false;
  }
  return true;
}

/**
 * Read one challenge a notice named (getChallenge), and show it.
 * @param {string} id
 */
async function readChallenge(id) {
  try {
    if (took((await api("GET", `/v1/challenges/${encodeURIComponent(id)}`, { quiet: true })).data)) drawChallenges();
  } catch (problem) {
    if (/** @type {{ status?: number }} */ (problem).status === 404) lobby.known.delete(id);  // gone (an account deleted)
  }
}

/** Every challenge of the player's again (listChallenges): the "Refresh" button's, when the player asks. */
async function loadChallenges() {
  let page;
  try {
    page = (await api("GET", "/v1/challenges?limit=30")).data;
  } catch (problem) {
    if (onLobby()) showProblem(problem);
    return;
  }
  for (const challenge of /** @type {Challenge[]} */ (page.challenges)) if (!took(challenge)) return;
  drawChallenges();
}

/** The challenges this page knows of, newest first, received and sent (each list drawn again only when it changed). */
export function drawChallenges() {
  if (!onLobby() || !me()) return;
  const challenges = [...lobby.known.values()]
    .sort((a, b) => String(b.created_at).localeCompare(String(a.created_at)) || b.id.localeCompare(a.id));
  // The challenges of a player blocked from this page are gone at once (the block declined them).
  const received = challenges.filter((challenge) => challenge.role === "challenged" && !lobby.blocked.has(challenge.id));
  const sent = challenges.filter((challenge) => challenge.role === "challenger");
  // A list is redrawn only when it changed, so that a reason being chosen is not lost to the next read.
  drawIfChanged("received", received);
  drawIfChanged("sent", sent);
  $("no-received").hidden = received.length > 0;
  $("no-sent").hidden = sent.length > 0;
}

/**
 * Block a challenger (blockPlayer): their challenges leave the inbox at once, and the server declines them (as any
 * decline: they are not told of the block).
 * @param {string} playerId
 */
async function blockChallenger(playerId) {
  clearProblem();
  try {
    await api("PUT", `/v1/players/me/blocks/${encodeURIComponent(playerId)}`);
  } catch (problem) {
    showProblem(problem);
    return;
  }
  for (const challenge of lobby.known.values()) {
    if (challenge.role === "challenged" && challenge.challenger.id === playerId) lobby.blocked.add(challenge.id);
  }
  drawChallenges();
  notice(t("play.blocked_challenger"));
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
    lobby.known.set(now.id, now);
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
    await readChallenge(challenge.id);  // refused: as it stands now
  }
  drawChallenges();
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

/** The lobby opens: its challenges as the page knows them, the form says whom it names. */
export function openChallenges() {
  renderChallengeTo();
  drawChallenges();
}

/**
 * The feed opened: its open challenges are the page's (one it knew open and no longer listed closed meanwhile: read).
 * @param {FeedState} state
 */
function fromState(state) {
  const open = new Set(state.challenges.map((challenge) => challenge.id));
  for (const [id, challenge] of lobby.known) if (challenge.status === "open" && !open.has(id)) readChallenge(id);
  for (const challenge of state.challenges) if (!took(challenge)) return;
  drawChallenges();
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
    took((await api("POST", "/v1/challenges", { body, headers: newKey() })).data);
    notice(t("play.challenge_sent", { players: lobby.challengeTo.map((player) => "@" + player.handle).join(", ") }));
    lobby.challengeTo = [];
    renderChallengeTo();
    drawChallenges();
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
  onFeed({ state: fromState, notice: (got) => { if (got.challenge_id) readChallenge(got.challenge_id); } });
  fillTimeControl("c-time-control");
  $("refresh-challenges").addEventListener("click", loadChallenges);
  $("challenge-form").addEventListener("submit", sendChallenge);
  $("search-form").addEventListener("submit", (event) => { event.preventDefault(); searchPlayers(false); });
  $("more-found").addEventListener("click", () => searchPlayers(true));
}
