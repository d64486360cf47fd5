// A game as the table tells it: where it stands, each legal step and where it leads, each event, and what the others
// did since your last turn.  Pure (a view and events from the API in, words out), so node's tests run it.

import { cardName, ruleName } from "../core/rules.js";
import { counted, t } from "../core/words.js";

/**
 * A game's view as the API answers getGame (its schema in the OpenAPI document); the table reads what it shows.
 * @typedef {Record<string, any>} View
 */
/**
 * An event of a game's feed (listEvents, the stream): its number ``n``, ``type`` and the type's members.
 * @typedef {{ n: number, type: string, seat?: number, card?: string, [member: string]: any }} GameEvent
 */

/** The events that are a seat's own move in its turn (what "since your last turn" is counted from). */
export const MOVES = new Set([
  "card_played", "card_discarded", "card_drawn", "card_taken", "card_placed", "player_eliminated", "turn_timed_out", "seat_resigned",
]);

/**
 * A card's colour in words ("R5": "Red"); a letter the page does not know as it is.
 * @param {string} card
 */
export const colorOf = (card) => ("ROYGBIV".includes(card[0]) ? t("play.color." + card[0]) : card[0]);

/**
 * A seat's player's name; "—" for no seat.
 * @param {View} view
 * @param {number | null | undefined} seat
 */
export function seatName(view, seat) {
  if (seat === null || seat === undefined || !view.seats[seat]) return "—";
  return String(view.seats[seat].name);
}

/**
 * The seat the reader plays, or null (a spectator).
 * @param {View} view
 * @returns {number | null}
 */
export const mySeat = (view) => (view.you ? view.you.seat : null);

/**
 * Why a player went out of a round, in words.
 * @param {string} reason
 */
export const outReason = (reason) => (["not_winning", "folded", "empty_hand"].includes(reason) ? t("play.out." + reason) : reason);

/**
 * A legal step in words: "Play R5 (Red 5) to your palette".
 * @param {Record<string, any>} step
 * @param {View} view
 */
export function stepLabel(step, view) {
  switch (step.type) {
    case "play": return t("play.st.play", { card: step.card, name: cardName(step.card) });
    case "discard": return t("play.st.discard", { card: step.card, name: cardName(step.card), color: colorOf(step.card) });
    case "take": return t("play.st.take", { card: step.card, name: cardName(step.card), player: seatName(view, step.seat) });
    case "place": return step.to === "canvas"
      ? t("play.st.place_canvas", { card: step.card, name: cardName(step.card), color: colorOf(step.card) })
      : t("play.st.place_deck", { card: step.card, name: cardName(step.card) });
    case "end_turn": return t("play.st.end_turn");
    case "fold": return t("play.st.fold");
    default: return String(step.type);
  }
}

/**
 * Where a step leads, in words, from the flags the view puts on it (eliminates, ends_turn, can_win, draws).
 * @param {Record<string, any>} step
 */
export function consequences(step) {
  const out = [];
  if (step.eliminates) out.push(t("play.c.out"));
  else if (step.ends_turn) out.push(step.can_win ? t("play.c.ends_winning") : t("play.c.ends"));
  else out.push(step.can_win ? t("play.c.can_win") : t("play.c.cannot_win"));
  if (step.draws) out.push(t("play.c.draw"));
  return out.join("; ");
}

/**
 * Where a game stands, in a line: "Your turn.", "Bo is playing.", "Game over: you won!".
 * @param {View} view
 * @param {GameEvent[]} log the events read (who aborted a game is in its event)
 */
export function statusText(view, log) {
  const mine = mySeat(view);
  /** @param {number} seat */
  const name = (seat) => (seat === mine ? t("play.you_lower") : seatName(view, seat));
  switch (view.phase) {
    case "waiting": {
      const open = view.seats.filter((/** @type {any} */ seat) => seat.open).length;
      return t("play.waiting_for", { players: counted("more_players", open) });
    }
    case "turn":
      if (view.turn.seat === mine) return t("play.your_turn_dot");
      return t("play.is_playing", { player: seatName(view, view.turn.seat) });
    case "round_won":
      return t("play.round_won_by", { round: view.round, player: name(view.round_winner) });
    case "round_scored":
      return t("play.round_scored", { round: view.round });
    case "finished":
      return view.winner === mine ? t("play.over_you_won") : t("play.over_won", { player: seatName(view, view.winner) });
    case "cancelled":
      return t("play.was_called_off");
    case "aborted": {
      const by = log.find((event) => event.type === "game_aborted");
      if (!by) return t("play.aborted");
      return by.seat === mine ? t("play.aborted_by_you") : t("play.aborted_by", { player: seatName(view, by.seat) });
    }
    default:
      return String(view.phase);
  }
}

/**
 * One move of a seat's turn, in a few words ("played O5", "discarded B3 → Blue"); null for what is no move.
 * @param {GameEvent} event
 * @param {View} view
 */
export function movedWords(event, view) {
  const mine = mySeat(view);
  const card = event.card;
  switch (event.type) {
    case "card_played": return t("play.m.played", { card });
    case "card_discarded": return t("play.m.discarded", { card, color: colorOf(String(card)) });
    case "card_drawn": return card ? t("play.m.drew", { card }) : t("play.m.drew_a_card");
    case "card_taken": return event.from_seat === mine ? t("play.m.took_yours", { card })
      : t("play.m.took", { card, player: seatName(view, event.from_seat) });
    case "card_placed": return event.to === "canvas" ? t("play.m.put_canvas", { card, color: colorOf(String(card)) }) : t("play.m.put_deck", { card });
    case "player_eliminated": return event.reason === "folded" ? t("play.out.folded")
      : t("play.m.went_out", { reason: outReason(event.reason) });
    case "turn_timed_out": return t("play.m.timed_out");
    case "seat_resigned": return t("play.m.resigned", { level: t("play.level." + event.level) });
    default: return null;
  }
}

/**
 * An event in a sentence, for the news: each in two forms, yours ("e.you.*") and another player's ("e.*"), so that
 * each language can conjugate.
 * @param {GameEvent} event
 * @param {View} view
 */
export function describe(event, view) {
  const mine = mySeat(view);
  const you = event.seat === mine;
  /**
   * @param {string} code
   * @param {Record<string, unknown>} [params]
   */
  const say = (code, params) => t(you ? "play.e.you." + code : "play.e." + code, { player: seatName(view, event.seat), card: event.card, ...params });
  const from = event.from_seat === mine ? t("play.e.your_palette") : t("play.e.players_palette", { player: seatName(view, event.from_seat) });
  switch (event.type) {
    case "game_created": return t("play.e.created");
    case "seat_taken": return t("play.e.seat_taken", { player: event.name, seat: Number(event.seat) + 1 });
    case "seat_left": return t("play.e.seat_left", { seat: Number(event.seat) + 1 });
    case "game_started": return t("play.e.started");
    case "round_dealt": return event.first_seat === mine ? t("play.e.dealt_you", { round: event.round })
      : t("play.e.dealt", { round: event.round, player: seatName(view, event.first_seat) });
    case "turn_started": return say("turn");
    case "card_played": return say("played");
    case "card_discarded": return say("discarded", { color: colorOf(String(event.card)) });
    case "card_drawn": return event.card ? say("drew") : say("drew_a_card");
    case "card_taken": return say("took", { from });
    case "card_placed": return event.to === "canvas" ? say("put_canvas", { color: colorOf(String(event.card)) }) : say("put_deck");
    case "player_eliminated": return say("out", { reason: outReason(event.reason) });
    case "turn_timed_out": return say("timed_out");
    case "seat_resigned": return say("resigned", { level: t("play.level." + event.level) });
    case "game_cancelled": return t("play.e.called_off");
    case "game_aborted": return say("aborted");
    case "round_won": return say("round_won", { rule: ruleName(event.rule) });
    case "round_scored": return say("scored", { points: counted("points", event.points) });
    case "game_finished": return event.winner === mine ? t("play.e.you_won_game") : t("play.e.won_game", { player: seatName(view, event.winner) });
    default: return event.type.replaceAll("_", " ") + ".";
  }
}

/**
 * What the others did since your own last turn.
 * @typedef {{ bySeat: Map<number, string[]>, arrived: Set<string>, ruleBy: number | null }} Recent
 * bySeat: a seat's moves in words; arrived: the cards they played that are on a palette now; ruleBy: who last
 * changed the rule (a discard, or a 7 putting a card on the canvas), or null.
 */

/**
 * What the others did since your own last turn, from the events read (the live feed, and its backlog when the game
 * was opened): the events after your last move of a turn before this one (or after the last deal), without yours.
 * @param {GameEvent[]} log
 * @param {View} view
 * @returns {Recent}
 */
export function recentMoves(log, view) {
  const mine = mySeat(view);
  /** @type {Recent} */
  const none = { bySeat: new Map(), arrived: new Set(), ruleBy: null };
  if (mine === null || !log.length) return none;
  let i = log.length - 1;
  // Your turn now: its own events are not news; the others' moves are those before it began.
  if (view.phase === "turn" && view.turn && view.turn.seat === mine) {
    while (i >= 0 && !(log[i].type === "turn_started" && log[i].seat === mine) && log[i].type !== "round_dealt") i -= 1;
    if (i >= 0 && log[i].type === "round_dealt") return none;  // you lead the round: nobody moved yet
    i -= 1;
  }
  const since = [];
  for (; i >= 0; i -= 1) {
    const event = log[i];
    if (event.type === "round_dealt" || event.type === "game_started") break;
    if (MOVES.has(event.type) && event.seat === mine) break;  // your last move of a turn
    since.push(event);
  }
  since.reverse();
  const onPalettes = new Set(view.seats.flatMap((/** @type {any} */ seat) => seat.palette));
  /** @type {Recent} */
  const recent = { bySeat: new Map(), arrived: new Set(), ruleBy: null };
  for (const event of since) {
    if (!MOVES.has(event.type) || event.seat === mine || event.seat === undefined) continue;
    const said = movedWords(event, view);
    if (!said) continue;
    const moves = recent.bySeat.get(event.seat) || [];
    recent.bySeat.set(event.seat, [...moves, said]);
    if (event.type === "card_played" && event.card && onPalettes.has(event.card)) recent.arrived.add(event.card);
    if (event.type === "card_discarded" || (event.type === "card_placed" && event.to === "canvas")) recent.ruleBy = event.seat;
  }
  return recent;
}
