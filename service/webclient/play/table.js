// The table, "#game=<id>": where the game stands, the rule and every palette (what the others did since your last
// turn marked), your legal steps as buttons that say where they lead, your hand, the news; followed live (live.js).
// Every action goes with the view's version (If-Match) and a fresh Idempotency-Key; a 409 reads the view again.

import { $, h } from "../core/dom.js";
import { ruleHelp, ruleName } from "../core/rules.js";
import { seatLabel } from "../core/seats.js";
import { counted, language, t } from "../core/words.js";
import { current, newGame } from "./game.js";
import { startLive } from "./live.js";
import { consequences, describe, mySeat, recentMoves, seatName, statusText, stepLabel } from "./moves.js";
import { api, newKey } from "./session.js";
import { showClocks } from "./table-clock.js";
import { heard, openTalk, setUpTalk, showTalk } from "./talk.js";
import { setUpTouch, showTouch } from "./touch.js";
import { setUpMotion, showMoves } from "./motion.js";
import { renderShare, setUpShare } from "./share.js";
import { ratingBadge, ratingsBySeat, renderOutcome, renderRematch, setUpEnd, watchRatings } from "./table-end.js";
import { cardList, clearProblem, confirmStep, notice, screen, showProblem } from "./ui.js";

/** @import { Game } from "./game.js" */
/** @import { Table } from "./live.js" */
/** @import { GameEvent, View } from "./moves.js" */

/**
 * How far back the page reads a game's events when it opens it: enough to reach the player's last turn (a round
 * of four players with the card actions is some twenty events), so that what the others did since is marked
 * from the first screen on.  They come through the live feed the page follows anyway (it starts that far back).
 */
const BACKLOG = 60;
const LOG_SIZE = 300;  // the events kept for the marks: far more than a round between two of your turns
/** The card actions a turn may be in the middle of, that the table says (a draw is over as soon as it is chosen). */
const PENDING = ["take", "play", "place"];
/** The fields of a legal step that an action sends. */
const STEP_FIELDS = ["type", "card", "draw", "seat", "to"];

/**
 * The table for ``gameId``: its view read, then followed live.
 * @param {string} gameId
 */
export async function openGame(gameId) {
  screen("table");
  const game = newGame(gameId);
  $("news").replaceChildren();
  $("news").setAttribute("aria-live", "off");  // the backlog is not news: announced from the first new event on
  $("status").textContent = t("play.loading_game");
  openTalk(gameId);
  for (const id of ["invite", "outcome", "move", "leave", "call-off", "abort", "pending"]) $(id).hidden = true;
  try {
    const view = (await api("GET", `/v1/games/${encodeURIComponent(gameId)}`)).data;
    if (game !== current()) return;
    game.opened = view.version;
    game.after = Math.max(0, view.version - BACKLOG);
    render(view);
    startLive(game, following(game));
  } catch (problem) {
    showProblem(problem);
    if (/** @type {{ status?: number }} */ (problem).status === 404) $("status").textContent = t("play.no_such_game");
  }
}

/**
 * Draw ``view`` (of the game on the table; an answer older than the one shown is dropped).
 * @param {View} view
 */
export function render(view) {
  const game = current();
  if (!game || view.id !== game.id) return;
  if (game.view && view.version < game.view.version && !game.resetting) return;  // an older answer arrived late
  for (const seat of view.seats) seat.name = seatLabel(seat, seat.seat);  // "AI 1 (greedy)" in the page's language
  game.resetting = false;
  const before = game.view;
  game.view = view;
  const table = $("table");
  const mine = mySeat(view);
  const yourTurn = mine !== null && view.phase === "turn" && view.turn && view.turn.seat === mine && !view.seats[mine].resigned;
  table.dataset.version = String(view.version);
  table.dataset.phase = view.phase;
  table.dataset.yourTurn = yourTurn ? "true" : "false";
  document.title = yourTurn ? t("play.title_your_turn") : t("play.title");

  $("status").textContent = statusText(view, game.log);
  const pending = yourTurn && PENDING.includes(view.turn.pending) ? t("play.pending." + view.turn.pending) : null;
  $("pending").hidden = !pending;
  $("pending").textContent = pending || "";

  // Leader, round, deck.
  const leader = $("leader");
  leader.dataset.seat = view.leader === null ? "" : String(view.leader);
  leader.textContent = view.leader === null ? "—"
    : view.leader === mine ? t("play.name_you", { name: seatName(view, view.leader) }) : seatName(view, view.leader);
  $("round").textContent = view.round ? String(view.round) : "—";
  $("deck").textContent = view.deck_size === null ? "—" : counted("cards", view.deck_size);
  const meta = [view.variant === "basic" ? t("play.basic_rules") : t("play.advanced_rules", { target: view.target ?? "—" })];
  if (view.action_rules) meta.push(t("play.w.card_actions"));
  if (view.days_per_turn) meta.push(t("play.a_turn", { time: counted("days", view.days_per_turn) }));
  meta.push(view.rated ? t("play.w.rated") : t("play.w.casual"));
  if (view.listed) meta.push(t("play.listed"));
  if (view.rematch_of) meta.push(t("play.a_rematch"));
  if (view.turn && view.turn.deadline) meta.push(t("play.turn_ends_by", { time: new Date(view.turn.deadline).toLocaleTimeString(language()) }));
  $("game-meta").textContent = meta.join(" · ");
  renderShare(view.id);

  // Invitation (the creator sees the join code while seats are open).
  const inviting = view.phase === "waiting" && !!view.join_code;
  $("invite").hidden = !inviting;
  if (inviting) {
    const link = `${location.origin}${location.pathname}#join=${encodeURIComponent(view.id)}:${encodeURIComponent(view.join_code)}`;
    $("share-link", HTMLInputElement).value = link;
    const open = view.seats.filter((/** @type {any} */ seat) => seat.open).length;
    $("invite-text").textContent = t(view.listed ? "play.invite_listed" : "play.invite", { seats: counted("open_seats", open) });
  }

  // Your hand.
  $("hand-panel").hidden = !view.you || view.phase === "finished" || view.phase === "aborted";
  if (view.you) {
    const empty = view.phase === "waiting" ? t("play.dealt_at_start") : t("play.no_cards");
    $("hand").replaceWith(Object.assign(cardList(view.you.hand, null, empty), { id: "hand" }));
  }

  renderTable(view);  // the rule and the palettes, with what the others did since your last turn
  renderSteps(view, yourTurn);  // your move
  showMoves(before, view, mine, $("status").textContent);  // the others' cards travel, the rule swells, a round's winner
  renderOutcome(view, game);  // the end, and a rematch
  renderRematch(view, before);
  watchRatings(view, game);  // a finished rated game's changes: its ladder takes it seconds after the end

  // Leaving.
  const seated = mine !== null && !view.seats[mine].resigned;
  $("leave").hidden = !(seated && (view.status === "active" || (view.status === "waiting" && !view.join_code)));
  $("leave").textContent = view.status === "waiting" ? t("play.leave_game") : t("play.resign");
  $("call-off").hidden = !(view.status === "waiting" && view.join_code);
  showTalk(view);  // the table talk, where it is on

  // Abort: while the view says it may be (dealt, not every seat has moved once), for a player who still plays.
  $("abort").hidden = !(seated && view.abortable);
}

/**
 * The rule and every palette; the cards and the rule that changed since your last turn are marked.
 * @param {View} view
 */
function renderTable(view) {
  const game = current();
  const mine = mySeat(view);
  const recent = recentMoves(game ? game.log : [], view);
  const rule = view.rule;
  $("rule").textContent = ruleName(rule);
  $("rule").dataset.rule = rule || "";
  $("rule-swatch").className = rule ? `swatch c-${rule[0].toUpperCase()}` : "swatch";
  $("rule-help").textContent = rule ? ruleHelp(rule) : t("play.rule_dealt");
  const changed = recent.ruleBy;
  $("rule-new").hidden = changed === null;
  $("rule-new").textContent = changed === null ? "" : t("play.new_set_by", { player: seatName(view, changed) });
  $("seats-hint").hidden = mine === null;

  const rated = ratingsBySeat(view);
  const seats = view.seats.map((/** @type {Record<string, any>} */ seat) => {
    const badges = [];
    const rating = rated.get(seat.seat);
    if (rating && rating.rating !== null) badges.push(ratingBadge(rating));
    if (seat.seat === mine) badges.push(h("span", { class: "badge", text: t("play.you_lower") }));
    if (view.turn && view.turn.seat === seat.seat && view.phase === "turn") badges.push(h("span", { class: "badge yours", text: t("play.b.to_play") }));
    if (view.leader === seat.seat) badges.push(h("span", { class: "badge lead", text: t("play.b.leading") }));
    if (view.winner === seat.seat) badges.push(h("span", { class: "badge lead", text: t("play.b.winner") }));
    if (seat.open) badges.push(h("span", { class: "badge", text: t("play.b.open_seat") }));
    else if (!seat.in_round && !["waiting", "finished", "aborted"].includes(view.phase)) badges.push(h("span", { class: "badge out", text: t("play.b.out") }));
    if (seat.resigned) badges.push(h("span", { class: "badge out", text: t("play.b.resigned") }));
    const facts = [t("play.in_hand", { cards: counted("cards", seat.hand_size) })];
    if (view.variant === "advanced") facts.push(counted("points", seat.score));
    const did = recent.bySeat.get(seat.seat);
    return h("article", {
      class: "seat", "data-seat": seat.seat, "data-turn": view.turn && view.turn.seat === seat.seat ? "true" : "false",
      "data-in-round": seat.in_round || view.phase === "waiting" ? "true" : "false",
      "data-leader": view.leader === seat.seat ? "true" : "false", "data-winner": view.winner === seat.seat ? "true" : "false",
      "aria-label": seat.name,
    },
    h("div", { class: "seat-head" }, h("h3", { class: "seat-name", text: seat.name }), ...badges,
      h("p", { class: "seat-meta", text: facts.join(" · ") })),
    h("div", { class: "seat-body" },
      cardList(seat.palette, seat.qualifying, view.phase === "waiting" ? "" : t("play.empty_palette"), recent.arrived),
      did ? h("p", { class: "seat-recent", "data-recent": seat.seat, title: `${seat.name} ${did.join(", ")}.` },
        h("span", { class: "seat-recent-who", text: seat.name }), ` ${did.join(", ")}.`) : null));
  });
  $("seats").replaceChildren(...seats);
  showClocks(view, $("seats"));  // the turn's clock beside the status line and the name of the seat to play
  showTouch(view, $("table").dataset.yourTurn === "true", !!game?.acting);  // the cards you tap, the places that glow
}

/**
 * Your legal steps, each a button that says where it leads.
 * @param {View} view
 * @param {boolean} yourTurn
 */
function renderSteps(view, yourTurn) {
  $("move").hidden = !yourTurn;
  const box = $("steps");
  if (!yourTurn) { box.replaceChildren(); return; }
  const acting = !!current()?.acting;
  box.replaceChildren(...view.legal_steps.map((/** @type {Record<string, any>} */ step, /** @type {number} */ index) => h("button", {
    type: "button", class: "step", "data-index": index, "data-type": step.type, "data-card": step.card || null,
    "data-eliminates": step.eliminates ? "true" : "false", "data-can-win": step.can_win ? "true" : "false",
    "data-ends-turn": step.ends_turn ? "true" : "false", "data-draws": step.draws ? "true" : "false",
    disabled: acting, onclick: () => takeStep(step),
  }, h("span", { class: "what", text: stepLabel(step, view) }), h("span", { class: "why", text: consequences(step) }))));
}

/**
 * A step taken: asked about first if it puts you out, then sent with the view's version.  Taken from its button, the
 * keyboard's focus goes on to the next steps; taken by a tap on the table (``tapped``), the page stays where it is.
 * @param {Record<string, any>} step
 * @param {boolean} [tapped]
 */
async function takeStep(step, tapped = false) {
  const game = current();
  if (!game || !game.view || game.acting) return;
  const view = game.view;
  if (step.eliminates) {
    const sure = await confirmStep(t("play.would_be_out"),
      t(view.variant === "basic" ? "play.no_longer_win_game" : "play.no_longer_win", { step: stepLabel(step, view) }), t("play.go_out"));
    if (!sure || game !== current() || game.view !== view) return;
  }
  const body = { steps: [Object.fromEntries(STEP_FIELDS.filter((key) => key in step).map((key) => [key, step[key]]))] };
  game.acting = true;
  for (const button of $("table").querySelectorAll("button.step")) /** @type {HTMLButtonElement} */ (button).disabled = true;
  clearProblem();
  try {
    const answer = await api("POST", `/v1/games/${encodeURIComponent(game.id)}/actions`, {
      body, headers: { "If-Match": `"${view.version}"`, "Idempotency-Key": crypto.randomUUID() },
    });
    game.acting = false;
    if (game === current()) {
      render(answer.data);
      // The buttons were replaced: keep the keyboard where the game goes on.
      const next = $("steps").querySelector("button");
      if (!tapped) (next || $("status-panel")).focus();
    }
  } catch (problem) {
    game.acting = false;
    if (game !== current()) return;
    if (/** @type {{ code?: string }} */ (problem).code === "version_conflict") notice(t("play.moved_on"));
    else showProblem(problem);
    refresh();
  }
}

/**
 * Resign (or leave a game not started), or call a game off; asked first.
 * @param {boolean} callOff
 */
async function leaveGame(callOff) {
  const game = current();
  if (!game || !game.view) return;
  const waiting = game.view.status === "waiting";
  const sure = callOff
    ? await confirmStep(t("play.call_off_q"), t("play.call_off_text"), t("play.call_it_off"))
    : await confirmStep(waiting ? t("play.leave_q") : t("play.resign_q"), waiting ? t("play.leave_text") : t("play.resign_text"),
      waiting ? t("play.leave") : t("play.resign"));
  if (!sure) return;
  try {
    const path = `/v1/games/${encodeURIComponent(game.id)}`;
    const answer = callOff ? await api("DELETE", path) : await api("POST", path + "/leave");
    if (game === current()) render(answer.data);
  } catch (problem) {
    showProblem(problem);
  }
}

async function abortGame() {
  const game = current();
  if (!game || !game.view) return;
  const sure = await confirmStep(t("play.abort_q"), t("play.abort_text"), t("play.abort_it"));
  if (!sure || game !== current()) return;
  try {
    const answer = await api("POST", `/v1/games/${encodeURIComponent(game.id)}/abort`, { headers: newKey() });
    if (game === current()) render(answer.data);
  } catch (problem) {
    if (game === current()) { showProblem(problem); refresh(); }
  }
}

async function copyLink() {
  const link = $("share-link", HTMLInputElement);
  try {
    await navigator.clipboard.writeText(link.value);
    notice(t("play.link_copied"));
  } catch (error) {
    link.select();
    notice(t("play.select_link"));
  }
}

/**
 * Read the view again; calls made meanwhile are folded into one more read.
 * @returns {Promise<void>}
 */
export function refresh() {
  const game = current();
  if (!game) return Promise.resolve();
  if (game.refreshing) { game.refreshAgain = true; return game.refreshing; }
  game.refreshing = (async () => {
    do {
      game.refreshAgain = false;
      try {
        const view = (await api("GET", `/v1/games/${encodeURIComponent(game.id)}`, { quiet: true })).data;
        if (game === current()) render(view);
      } catch (problem) {
        if (game === current()) showProblem(problem);
        return;
      }
    } while (game.refreshAgain && game === current());
  })().finally(() => { game.refreshing = null; });
  return game.refreshing;
}

/**
 * What the live feed hands the table of ``game``.
 * @param {Game} game
 * @returns {Table}
 */
function following(game) {
  return {
    take: (event) => news(game, event),
    caughtUp: () => caughtUp(game),
    lost: (version) => lostEvents(game, version),
    refresh,
    shown: () => game === current(),
    said: (message) => { if (game === current()) heard(message); },
  };
}

/**
 * Take an event in: the news list, the log the marks are read from.  False if it was seen already.
 * @param {Game} game
 * @param {GameEvent} event
 */
function news(game, event) {
  if (typeof event.n !== "number" || event.n <= game.after) return false;
  game.after = event.n;
  game.log.push(event);
  if (game.log.length > LOG_SIZE) game.log.splice(0, game.log.length - LOG_SIZE);
  const list = $("news");
  if (event.n > game.opened) list.setAttribute("aria-live", "polite");
  list.prepend(h("li", { "data-n": event.n, "data-type": event.type, text: describe(event, game.view || { seats: [] }) }));
  while (list.children.length > 40) list.lastElementChild?.remove();
  return true;
}

/**
 * After events came in: read the view again if they are newer than it, else only redraw the marks (the backlog).
 * @param {Game} game
 */
function caughtUp(game) {
  if (game !== current() || !game.view) return;
  if (game.after > game.view.version) refresh();
  else if (!game.redraw) {
    game.redraw = true;
    setTimeout(() => {
      game.redraw = false;
      if (game !== current() || !game.view) return;
      renderTable(game.view);
      $("status").textContent = statusText(game.view, game.log);  // who aborted it, say, comes with its event
    }, 0);
  }
}

/**
 * The server lost events this page was sent: carry on from where it stands now, the marks read afresh.
 * @param {Game} game
 * @param {number} version
 */
function lostEvents(game, version) {
  game.after = version;
  game.log = [];
  game.resetting = true;
  return refresh();
}

export function setUpTable() {
  $("abort").addEventListener("click", abortGame);
  $("leave").addEventListener("click", () => leaveGame(false));
  $("call-off").addEventListener("click", () => leaveGame(true));
  $("copy-link").addEventListener("click", copyLink);
  setUpShare();
  setUpEnd({ render, refresh });
  setUpTouch((step) => takeStep(step, true));
  setUpMotion();
  setUpTalk();
}
