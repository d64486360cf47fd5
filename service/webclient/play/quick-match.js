// Quick match, at the top of the lobby: a ticket (createMatchTicket) for the kinds of game the player accepts.
//
// A ticket waits on the server whether its player stays or not.  The player's feed (feed.js) opens with their waiting
// tickets and says when one is matched (``match_found``, with the game): a ticket this page saw waiting opens its game
// then, and nothing is read again and again meanwhile (the clocks and the ratings a ticket takes widen here, as the
// server widens them).  The page also keeps the ids of the tickets it saw in localStorage: one no longer waiting when
// the feed opens (matched, expired, cancelled in another tab while the player was away) is read once and shown with its
// fate until opened or dismissed, and a waiting one is read once more when it is due to expire.  The server forgets a
// closed ticket a day later (404), and so does the page then.

import { $, h } from "../core/dom.js";
import { t } from "../core/words.js";
import { aiFillChoices, clockWords, fillWords, momentWords, ticketChoices, ticketWords } from "./format.js";
import { onFeed } from "./feed.js";
import { TICKETS, api, me, newKey } from "./session.js";
import { clearProblem, fillChoices, fillTimeControl, notice, onScreen, showProblem } from "./ui.js";

const MINUTE = 60000;


/** @import { FeedState } from "./feed.js" */
/**
 * A ticket as the API answers it (getMatchTicket, its schema in the OpenAPI document).
 * @typedef {{ id: string, status: string, game_id: string | null, [member: string]: any }} Ticket
 */

const quick = {
  /** @type {Map<string, Ticket>} the tickets read, by id */
  tickets: new Map(),
  /** @type {Map<string, number>} when each was read (ms) */
  read: new Map(),
  /** @type {Set<string>} the tickets being read */
  reading: new Set(),
  /** @type {Set<string>} the tickets this page saw waiting: when one is matched, its game opens */
  seenWaiting: new Set(),
  /** the form shows for another ticket while one waits */
  another: false,
  /** the tickets drawn (their ids and states) */
  drawn: "",
  /** the player chose how long a ticket waits (else a correspondence game's waits a week) */
  expiresChosen: false,
};

const onLobby = () => onScreen("lobby");

/**
 * The ids of the player's tickets this browser keeps, the newest first.
 * @returns {string[]}
 */
function storedTickets() {
  const player = me();
  try {
    const stored = JSON.parse(localStorage.getItem(TICKETS) || "null");
    if (!stored || !player || stored.player !== player.id || !Array.isArray(stored.ids)) return [];
    return stored.ids.filter((/** @type {unknown} */ id) => typeof id === "string");
  } catch (error) {
    return [];
  }
}

/** @param {string[]} ids */
function keepTickets(ids) {
  const player = me();
  if (!player) return;
  if (ids.length) localStorage.setItem(TICKETS, JSON.stringify({ player: player.id, ids }));
  else localStorage.removeItem(TICKETS);
}

/** @param {string} id */
const keepTicket = (id) => keepTickets([id, ...storedTickets().filter((other) => other !== id)]);

/** @param {string} id */
function forgetTicket(id) {
  keepTickets(storedTickets().filter((other) => other !== id));
  quick.tickets.delete(id);
  quick.read.delete(id);
}

/** @param {Ticket} ticket */
function took(ticket) {
  quick.tickets.set(ticket.id, ticket);
  quick.read.set(ticket.id, Date.now());
}

/** The lobby opens: what it saw of the tickets starts afresh (a ticket waiting now is one it saw waiting). */
export function openQuickMatch() {
  quick.seenWaiting = new Set([...quick.tickets.values()].filter((ticket) => ticket.status === "waiting").map((ticket) => ticket.id));
  quick.another = false;
  quick.drawn = "";
  drawTickets();
}

/**
 * Read tickets once (getMatchTicket): their fate, where the feed cannot tell it; then show them, or open a game found.
 * @param {string[]} ids
 */
async function readTickets(ids) {
  await Promise.all(ids.filter((id) => !quick.reading.has(id)).map(async (id) => {
    quick.reading.add(id);
    try {
      took((await api("GET", `/v1/match-tickets/${encodeURIComponent(id)}`, { quiet: true })).data);
    } catch (problem) {
      const status = /** @type {{ status?: number }} */ (problem).status;
      if (status === 404) forgetTicket(id);  // over for more than a day: the server forgot it
      else if (status && onLobby()) showProblem(problem);
    } finally {
      quick.reading.delete(id);
    }
  }));
  const found = [...quick.tickets.values()].find((ticket) => ticket.status === "matched" && ticket.game_id
    && quick.seenWaiting.has(ticket.id));
  if (found && found.game_id && onLobby()) {
    openFound(found.id, found.game_id);
    return;
  }
  if (onLobby()) drawTickets();
}

/**
 * A ticket this page saw waiting was matched: its game opens.
 * @param {string} id
 * @param {string} game
 */
function openFound(id, game) {
  forgetTicket(id);
  notice(t("play.game_found"));
  location.hash = "game=" + encodeURIComponent(game);
}

/**
 * The feed opened: its waiting tickets are the page's; one kept here that no longer waits is read for its fate.
 * @param {FeedState} state
 */
function fromState(state) {
  const waiting = new Set(state.tickets.map((ticket) => ticket.id));
  for (const ticket of state.tickets) {
    took(ticket);
    keepTicket(ticket.id);
  }
  readTickets(storedTickets().filter((id) => !waiting.has(id) && (quick.tickets.get(id) || { status: "waiting" }).status === "waiting"));
}

/**
 * A match found (the feed's ``match_found``): the ticket waiting here is matched with its game (several waiting: each
 * read once, to know which).
 * @param {string} game
 */
function matchFound(game) {
  const waiting = [...quick.tickets.values()].filter((ticket) => ticket.status === "waiting");
  if (waiting.length !== 1) {
    readTickets(waiting.map((ticket) => ticket.id));
    return;
  }
  const [ticket] = waiting;
  took({ ...ticket, status: "matched", game_id: game, waited_seconds: waitedNow(ticket) });
  if (onLobby() && quick.seenWaiting.has(ticket.id)) openFound(ticket.id, game);
  else if (onLobby()) drawTickets();
}

/** Each second, while the lobby is shown: the waiting tickets' clocks, and a read of one due to have expired. */
export function tickTickets() {
  tickClocks();
  const over = [...quick.tickets.values()].filter((ticket) => ticket.status === "waiting" && Date.parse(ticket.expires_at) + 1000 < Date.now());
  if (over.length) readTickets(over.map((ticket) => ticket.id));
}

/**
 * How long a ticket has waited, counting on from its last read while it waits.
 * @param {Ticket} ticket
 */
const waitedNow = (ticket) => ticket.waited_seconds
  + (ticket.status === "waiting" ? (Date.now() - (quick.read.get(ticket.id) || Date.now())) / 1000 : 0);

/**
 * The ratings a waiting ticket takes now, "950–1050": ``rating_range`` either side of its rating, wider by
 * ``rating_range_widen`` a minute of waiting, up to ``rating_range_max`` (as the server widens it).
 * @param {Ticket} ticket
 */
function rangeWords(ticket) {
  if (ticket.status !== "waiting") return `${ticket.rating_range_now.low}–${ticket.rating_range_now.high}`;
  const width = Math.min(ticket.rating_range_max, ticket.rating_range + Math.floor(ticket.rating_range_widen * waitedNow(ticket) * 1000 / MINUTE));
  return `${ticket.rating - width}–${ticket.rating + width}`;
}

/**
 * A ticket as an item of the list, with what the player may do about it.
 * @param {Ticket} ticket
 */
function ticketItem(ticket) {
  const id = ticket.id;
  /**
   * @param {string} act
   * @param {string} text
   * @param {() => void} onclick
   * @param {boolean} [primary]
   */
  const button = (act, text, onclick, primary) => h("button", { type: "button", class: primary ? "primary" : null, "data-act": act, onclick }, text);
  const dismiss = button("dismiss", t("play.dismiss"), () => { forgetTicket(id); drawTickets(); });
  /** @type {HTMLElement | HTMLElement[]} */
  let title;
  /** @type {string | (string | HTMLElement)[]} */
  let facts = ticketWords(/** @type {any} */ (ticket));
  const actions = h("div", { class: "actions" });
  switch (ticket.status) {
    case "waiting": {
      title = [h("strong", { text: t("play.looking") + " · " }), h("strong", { class: "qm-clock", text: clockWords(waitedNow(ticket)) })];
      const fill = fillWords(/** @type {any} */ (ticket));
      const [before, after] = t("play.ratings_now", { rating: ticket.rating }).split("%(range)s");
      facts = [facts, h("span", { class: "muted" }, before, h("span", { class: "qm-range", text: rangeWords(ticket) }),
        `${after || ""}${fill ? ` · ${fill}` : ""} · ${t("play.waits_until", { when: momentWords(ticket.expires_at) })}`)];
      actions.append(button("cancel", t("play.stop_looking"), () => cancelTicket(ticket)));
      break;
    }
    case "matched":
      title = h("strong", { text: t("play.matched") });
      facts = `${facts} · ${t("play.found_after", { time: clockWords(ticket.waited_seconds) })}`;
      actions.append(h("a", { class: "button primary", "data-act": "open", href: "#game=" + encodeURIComponent(String(ticket.game_id)),
        onclick: () => forgetTicket(id), text: t("play.open_the_game") }), dismiss);
      break;
    case "expired":
      title = h("strong", { text: t("play.ticket_expired") });
      facts = `${facts} · ${t("play.waited", { time: clockWords(ticket.waited_seconds) })}`;
      actions.append(button("again", t("play.look_again"), () => { forgetTicket(id); openTicket(requestOf(ticket)); }, true), dismiss);
      break;
    default:
      title = h("strong", { text: t("play.stopped_looking_ticket") });
      actions.append(dismiss);
  }
  const [kind, ...more] = Array.isArray(facts) ? facts : [facts];
  return h("li", { "data-ticket": id, "data-status": ticket.status, "data-game": ticket.game_id },
    h("span", { class: "what" }, title, h("span", { class: "muted", text: kind }), ...more), actions);
}

/** The tickets kept here, drawn again only when one came or went, or changed its status: the clocks tick in place. */
function drawTickets() {
  /** @type {Ticket[]} */
  const tickets = [];
  for (const id of storedTickets()) {
    const ticket = quick.tickets.get(id);
    if (ticket) tickets.push(ticket);
  }
  const key = JSON.stringify(tickets.map((ticket) => [ticket.id, ticket.status]));
  if (quick.drawn !== key) {
    quick.drawn = key;
    $("qm-tickets").replaceChildren(...tickets.map(ticketItem));
  }
  tickClocks();
  const waiting = tickets.some((ticket) => ticket.status === "waiting");
  $("qm-form").hidden = waiting && !quick.another;
  $("qm-another").hidden = !waiting || quick.another;
}

function tickClocks() {
  for (const item of $("qm-tickets").querySelectorAll('li[data-status="waiting"]')) {
    const ticket = quick.tickets.get(/** @type {HTMLElement} */ (item).dataset.ticket || "");
    if (!ticket) continue;
    const waited = waitedNow(ticket);
    /** @type {HTMLElement} */ (item).dataset.waited = String(Math.floor(waited));
    const clock = item.querySelector(".qm-clock");
    const range = item.querySelector(".qm-range");
    if (clock) clock.textContent = clockWords(waited);
    if (range) range.textContent = rangeWords(ticket);
  }
}

/** @param {string} id */
const chosen = (id) => $(id, HTMLSelectElement).value;

/** The form's preferences as createMatchTicket's body. */
function ticketRequest() {
  const time = chosen("qm-time");
  const range = Number(chosen("qm-range"));
  return {
    player_counts: Array.from(document.querySelectorAll('input[name="qm-count"]:checked'))
      .map((box) => Number(/** @type {HTMLInputElement} */ (box).value)),
    variant: chosen("qm-variant"), action_rules: $("qm-action-rules", HTMLInputElement).checked, rated: $("qm-rated", HTMLInputElement).checked,
    ...(time.startsWith("d:") ? { days_per_turn: Number(time.slice(2)) } : { turn_seconds: Number(time.slice(2)) }),
    rating_range: range, rating_range_widen: Number(chosen("qm-widen")),
    rating_range_max: Math.max(range, Number(chosen("qm-range-max"))),
    ai_fill_after: chosen("qm-ai-after") === "" ? null : Number(chosen("qm-ai-after")),
    ai_level: chosen("qm-ai-level"), expires_in: Number(chosen("qm-expires")),
  };
}

/**
 * A ticket's preferences again (to look again once it expired): its request, waiting as long as it did.
 * @param {Ticket} ticket
 */
function requestOf(ticket) {
  const waited = Math.round((Date.parse(ticket.expires_at) - Date.parse(ticket.created_at)) / 1000);
  return {
    player_counts: ticket.player_counts, variant: ticket.variant, action_rules: ticket.action_rules, rated: ticket.rated,
    ...(ticket.days_per_turn ? { days_per_turn: ticket.days_per_turn } : { turn_seconds: ticket.turn_seconds }),
    rating_range: ticket.rating_range, rating_range_widen: ticket.rating_range_widen, rating_range_max: ticket.rating_range_max,
    ai_fill_after: ticket.ai_fill_after, ai_level: ticket.ai_level, expires_in: waited,
  };
}

/**
 * Open a ticket; one of the same kind already open elsewhere (another browser of the player's) is adopted.
 * @param {{ player_counts: number[], [member: string]: unknown }} body
 */
async function openTicket(body) {
  clearProblem();
  if (!body.player_counts.length) {
    showProblem({ title: t("play.table_size_first"), detail: t("play.tick_players") });
    return;
  }
  const button = $("qm-submit", HTMLButtonElement);
  button.disabled = true;
  try {
    const ticket = (await api("POST", "/v1/match-tickets", { body, headers: newKey() })).data;
    keepTicket(ticket.id);
    took(ticket);
    quick.another = false;
    if (ticket.status === "waiting") quick.seenWaiting.add(ticket.id);
    notice(t("play.you_are_looking"));
  } catch (problem) {
    const refused = /** @type {{ code?: string, body?: Record<string, any> }} */ (problem);
    if (refused.code === "match_ticket_already_open" && refused.body && refused.body.ticket_id) {
      keepTicket(refused.body.ticket_id);  // opened elsewhere (another browser of yours): it is this page's too now
      quick.another = false;
      notice(t("play.already_looking"));
      await readTickets([refused.body.ticket_id]);
    } else showProblem(problem);
  } finally {
    button.disabled = false;
  }
  drawTickets();
}

/**
 * "Stop looking" (cancelMatchTicket); a ticket matched just before opens its game.
 * @param {Ticket} ticket
 */
async function cancelTicket(ticket) {
  clearProblem();
  try {
    await api("DELETE", `/v1/match-tickets/${encodeURIComponent(ticket.id)}`);
    forgetTicket(ticket.id);
    notice(t("play.stopped_looking"));
  } catch (problem) {
    const refused = /** @type {{ code?: string, status?: number, body?: Record<string, any> }} */ (problem);
    if (refused.code === "match_ticket_matched" && refused.body && refused.body.game_id) {  // a table sat down just before
      forgetTicket(ticket.id);
      notice(t("play.found_before"));
      location.hash = "game=" + encodeURIComponent(refused.body.game_id);
      return;
    }
    if (refused.status === 404) forgetTicket(ticket.id);
    else showProblem(problem);
  }
  drawTickets();
}

/** The form: its choices filled in (a correspondence game's ticket waits a week unless told), its buttons. */
export function setUpQuickMatch() {
  onFeed({ state: fromState, notice: (got) => { if (got.event === "match_found" && got.game_id) matchFound(got.game_id); } });
  fillTimeControl("qm-time");
  const choices = { "qm-ai-after": aiFillChoices(), ...ticketChoices() };
  /** @type {Record<string, string>} */
  const first = { "qm-ai-after": "", "qm-range": "100", "qm-widen": "100", "qm-range-max": "500", "qm-expires": "3600" };
  for (const [id, list] of Object.entries(choices)) {
    const select = $(id, HTMLSelectElement);
    fillChoices(select, list);
    select.value = first[id];
  }
  const time = $("qm-time", HTMLSelectElement);
  const expires = $("qm-expires", HTMLSelectElement);
  time.value = "t:60";
  expires.addEventListener("change", () => { quick.expiresChosen = true; });
  time.addEventListener("change", () => {
    if (!quick.expiresChosen) expires.value = time.value.startsWith("d:") ? String(7 * 86400) : "3600";
  });
  $("qm-form").addEventListener("submit", (event) => {
    event.preventDefault();
    openTicket(ticketRequest());
  });
  $("qm-another").addEventListener("click", () => {
    quick.another = true;
    drawTickets();
    $("qm-submit").scrollIntoView({ block: "nearest" });
  });
}
