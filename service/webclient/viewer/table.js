// The replay viewer's page: its header (the game, whose view, its options), the seats and the step list built once,
// and each step drawn: the explanation, the rule, the canvas, the deck, every seat's palette, hand and score, the end.

import { $ } from "../core/dom.js";
import { capitalized, signOf, signed, utc } from "../core/format.js";
import { cardName, ruleHelp, ruleName } from "../core/rules.js";
import { aiLevel } from "../core/seats.js";
import { counted, has, language, t, tNodes } from "../core/words.js";
import { accuracyText, seatName, statusOf } from "./replay.js";


const FINISH = ["round_won", "target_reached", "deck_exhausted"];
const PENDING = ["take", "draw", "play", "place"];

/**
 * An element of a class, with a text.
 * @param {string} tag
 * @param {string | null} [className]
 * @param {unknown} [text]
 */
export function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

/**
 * A card as an item of a list ("R5"), marked if it is new since the step before.
 * @param {string} name
 * @param {boolean} isNew
 */
function chip(name, isNew) {
  const li = el("li", "card c-" + name.charAt(0) + (isNew ? " new" : ""), name);
  li.dataset.card = name;
  li.title = cardName(name) + (isNew ? " " + t("viewer.new") : "");
  li.setAttribute("aria-label", li.title);
  return li;
}

/**
 * ``list`` holding ``cards`` (those not in ``before`` marked new; ``before`` null: none is), or ``emptyText``.
 * @param {HTMLElement} list
 * @param {string[]} cards
 * @param {string[] | null} before
 * @param {string} emptyText
 */
function fillCards(list, cards, before, emptyText) {
  list.replaceChildren();
  const had = new Set(before || []);
  for (const name of cards) list.append(chip(String(name), before !== null && !had.has(name)));
  if (!cards.length) list.append(el("li", "none", emptyText));
}

/**
 * A hand the reader may not see: one back for each card, and how many for screen readers.
 * @param {HTMLElement} list
 * @param {number} count
 */
function hiddenCards(list, count) {
  list.replaceChildren();
  for (let i = 0; i < count; i += 1) {
    const back = el("li", "card back", "?");
    back.setAttribute("aria-hidden", "true");
    list.append(back);
  }
  list.append(el("li", count ? "sr-only" : "none", count ? counted("hidden", count) : t("viewer.no_cards")));
}

/**
 * A seat's rating in words: "Rating 1000 before the game (provisional), 1012 after it (+12)".
 * @param {Replay} replay
 * @param {number} seat
 */
function ratingNode(replay, seat) {
  const rating = replay.ratingOf.get(seat);
  const box = el("div", "seat-rating");
  if (!rating) return box;
  box.dataset.rating = String(rating.rating);
  const change = typeof rating.change === "number" && replay.ratings && replay.ratings.applied ? rating.change : null;
  box.append(...tNodes(change !== null ? "viewer.rating_before" : "viewer.rating_now", {}, { rating: el("strong", null, rating.rating) }));
  if (rating.provisional) box.append(" " + t("viewer.provisional"));
  if (change !== null) {
    box.dataset.change = String(change);
    const shown = el("span", "change", signed(change));
    shown.dataset.sign = signOf(change);
    box.append(", ", ...tNodes("viewer.rating_after", { after: rating.rating + change }, { change: shown }));
  } else {
    box.append(" · " + t("viewer.change_pending"));
  }
  return box;
}

/**
 * The header: the game, whose view it is, when it was made, and its options.
 * @param {Replay} replay
 */
export function drawHeader(replay) {
  const { doc, options, ratings } = replay;
  const perspective = doc.perspective;
  let seen = t("viewer.full");
  if (perspective === "spectator") seen = t("viewer.spectator");
  else if (perspective && typeof perspective === "object") seen = t("viewer.seat_view", { player: seatName(replay, perspective.seat) });
  const parts = [t("viewer.game", { game: doc.game_id || "?" }), seen];
  if (doc.created_at) parts.push(t("viewer.created", { at: utc(doc.created_at) }));
  $("game-meta").textContent = parts.join(" · ");
  /**
   * @param {string} prefix
   * @param {unknown} value
   */
  const known = (prefix, value) => (value && has(prefix + value) ? t(prefix + value) : value || "?");
  /** @type {[string, string, unknown][]} */
  const rows = [
    ["players", t("viewer.players"), options.players || replay.seatCount],
    ["variant", t("viewer.variant"), known("viewer.variant.", options.variant)],
    ["action_rules", t("viewer.action_rules"), options.action_rules ? t("viewer.on") : t("viewer.off")],
    ["target", t("viewer.target"), options.target === null || options.target === undefined ? "—" : counted("points", options.target)],
    ["dealing", t("viewer.dealing"), known("viewer.dealing.", options.dealing)],
  ];
  if (options.seed !== null && options.seed !== undefined) rows.push(["seed", t("viewer.seed"), options.seed]);
  if (ratings) rows.push(["rated", t("viewer.rated"), t("viewer.rated_on", { ladder: ratings.ladder || "?" })]);
  for (const [key, label, value] of rows) {
    const row = el("div");
    row.dataset.option = key;
    row.append(el("dt", null, label), el("dd", null, value));
    $("options").append(row);
  }
}

/**
 * A seat's parts the steps change.
 * @typedef {{ box: HTMLElement, status: HTMLElement, acted: HTMLElement, score: HTMLElement, scored: HTMLElement,
 *   palette: HTMLElement, hand: HTMLElement, handLabel: HTMLElement }} SeatParts
 */

/**
 * The seats, built once: name, kind, rating and accuracy, palette, hand and score.
 * @param {Replay} replay
 * @returns {SeatParts[]}
 */
export function buildSeats(replay) {
  const parts = [];
  for (let seat = 0; seat < replay.seatCount; seat += 1) {
    const info = replay.seatInfo[seat] || {};
    const box = el("article", "seat");
    box.dataset.seat = String(seat);
    box.setAttribute("aria-labelledby", "seat-name-" + seat);
    const head = el("div", "seat-head");
    const name = el("h3", "seat-name", seatName(replay, seat));
    name.id = "seat-name-" + seat;
    const status = el("span", "status");
    head.append(name, status);
    const level = info.kind === "ai" ? aiLevel(info.level) : null;
    const kind = el("div", "seat-kind", info.kind === "ai" ? level || t("viewer.ai") + (info.level ? " · " + info.level : "") : t("viewer.human"));
    const acted = el("span", "acted");
    kind.append(" ", acted);
    const scoreRow = el("div", "row");
    const score = el("span", "score", "0");
    scoreRow.append(el("span", "row-label", t("viewer.score") + " "), score);
    const scored = el("ul", "cards small scored");
    scored.setAttribute("aria-label", t("viewer.score_pile"));
    scoreRow.append(scored);
    const paletteRow = el("div", "row");
    const palette = el("ul", "cards palette");
    palette.setAttribute("aria-label", t("viewer.palette"));
    paletteRow.append(el("div", "row-label", t("viewer.palette")), palette);
    const handRow = el("div", "row");
    const handLabel = el("div", "row-label", t("viewer.hand"));
    const hand = el("ul", "cards hand");
    hand.setAttribute("aria-label", t("viewer.hand"));
    handRow.append(handLabel, hand);
    box.append(head, kind);
    if (replay.ratingOf.has(seat)) box.append(ratingNode(replay, seat));
    const judged = replay.analysis && replay.analysis.players ? replay.analysis.players[seat] : null;
    if (judged) box.append(el("div", "seat-accuracy", accuracyText(/** @type {any} */ (judged))));
    box.append(paletteRow, handRow, scoreRow);
    $("seats").append(box);
    parts.push({ box, status, acted, score, scored, palette, hand, handLabel });
  }
  return parts;
}

/**
 * The step list, built once: each step a button (its labelled decision marked), a line at each new round.
 * @param {Replay} replay
 * @param {(step: number) => void} go
 * @returns {HTMLButtonElement[]}
 */
export function buildStepList(replay, go) {
  const list = $("step-list");
  /** @type {HTMLButtonElement[]} */
  const buttons = [];
  /**
   * @param {number} index
   * @param {string} text
   */
  const add = (index, text) => {
    const li = el("li");
    const button = /** @type {HTMLButtonElement} */ (el("button"));
    button.type = "button";
    button.tabIndex = -1;
    button.dataset.step = String(index);
    const words = el("span", "txt", text);
    button.append(el("span", "num", index), words);
    const decision = replay.verdictAt.get(index);
    if (decision) {
      /** @type {Record<string, string>} */
      const marks = { inaccuracy: "?! ", mistake: "? ", blunder: "?? " };
      const mark = el("span", "verdict", marks[decision.label] + t("viewer.label." + decision.label));
      mark.dataset.label = decision.label;
      const lost = { label: t("viewer.label." + decision.label), delta: decision.delta.toFixed(1), se: decision.se.toFixed(1) };
      mark.title = t(decision.went_out ? "viewer.verdict_went_out" : "viewer.verdict", lost);
      words.append(" ", mark);  // in the step's own text: beside what it judges, not in a row of its own
    }
    li.append(button);
    list.append(li);
    buttons.push(button);
  };
  add(0, t("viewer.start"));
  /** @type {unknown} */
  let round = null;
  replay.steps.forEach((step, i) => {
    const r = step.state ? step.state.round : null;
    if (r && r !== round) {
      list.append(el("li", "round-sep", t("viewer.round_n", { round: r })));
      round = r;
    }
    add(i + 1, step.text || step.type || "");
  });
  list.addEventListener("click", (event) => {
    const button = /** @type {Element} */ (event.target).closest("button[data-step]");
    if (button) go(Number(/** @type {HTMLElement} */ (button).dataset.step));
  });
  return buttons;
}

/**
 * Step ``current`` drawn (0: before the first step).
 * @param {Replay} replay
 * @param {number} current
 * @param {SeatParts[]} seats
 */
export function drawStep(replay, current, seats) {
  const { steps, total } = replay;
  const step = current > 0 ? steps[current - 1] : null;
  const state = step && step.state ? step.state : null;
  const dealt = step && step.type === "round_dealt";
  const before = current > 1 && !dealt && steps[current - 2].state ? steps[current - 2].state : null;
  const atEnd = current === total;

  $("step-counter").textContent = t("viewer.step_counter", { current, total });
  const slider = $("slider", HTMLInputElement);
  slider.value = String(current);
  slider.setAttribute("aria-valuetext", t("viewer.step_of", { current, total }));
  $("explanation").textContent = step ? step.text || "" : t("replay.before_first_step");
  const meta = [];
  if (step) {
    if (language() === "en") meta.push(capitalized(String(step.type || "").replace(/_/g, " ")));  // an event's type: English words
    if (step.seat !== null && step.seat !== undefined) meta.push(seatName(replay, step.seat));
    if (step.at) meta.push(utc(step.at));
  } else {
    meta.push(total ? t("viewer.press_forward") : t("viewer.no_steps"));
  }
  $("step-meta").textContent = meta.join(" · ");

  $("round").textContent = state && state.round ? String(state.round) : "—";
  const rule = state ? String(state.rule || "red") : "red";
  $("rule").textContent = ruleName(rule);
  $("rule").dataset.rule = rule;
  $("rule-swatch").className = "swatch c-" + rule.charAt(0).toUpperCase();
  $("rule-help").textContent = ruleHelp(rule);
  const canvas = state && Array.isArray(state.canvas) ? state.canvas : [];
  const top = $("canvas-top");
  top.replaceChildren();
  if (canvas.length) {
    const list = el("ul", "cards canvas-cards");
    list.append(chip(String(canvas[canvas.length - 1]), false));
    top.append(list);
    top.dataset.card = String(canvas[canvas.length - 1]);
    $("canvas-count").textContent = counted("cards", canvas.length);
  } else {
    const start = el("span", "start-card", t("viewer.start_card"));
    start.title = t("viewer.start_card_title");
    top.append(start);
    top.dataset.card = "";
    $("canvas-count").textContent = t("viewer.no_card_yet");
  }
  $("deck-size").textContent = state && state.deck_size !== undefined ? String(state.deck_size) : "—";
  let turn = "—";
  if (state && state.turn !== null && state.turn !== undefined) {
    const pending = state.pending ? ", " + (PENDING.includes(state.pending) ? t("viewer.pending." + state.pending) : state.pending) : "";
    turn = seatName(replay, state.turn) + pending;
  }
  $("turn").textContent = turn;

  seats.forEach((parts, seat) => drawSeat(replay, parts, seat, step, state, before, atEnd));
  drawOutcome(replay, atEnd);
}

/**
 * One seat at a step.
 * @param {Replay} replay
 * @param {SeatParts} parts
 * @param {number} seat
 * @param {Record<string, any> | null} step
 * @param {Record<string, any> | null} state
 * @param {Record<string, any> | null} before the state of the step before, when this step is not a deal
 * @param {boolean} atEnd
 */
function drawSeat(replay, parts, seat, step, state, before, atEnd) {
  const data = state && state.seats && state.seats[seat] ? state.seats[seat] : null;
  const prev = before && before.seats && before.seats[seat] ? before.seats[seat] : null;
  const [label, won] = statusOf(replay, state, seat, data || {}, atEnd);
  parts.status.textContent = label;
  parts.box.dataset.inRound = String(data ? Boolean(data.in_round) : true);
  parts.box.dataset.turn = String(Boolean(state && state.turn === seat));
  parts.box.dataset.winner = String(won);
  parts.acted.textContent = step && step.seat === seat ? "· " + t("viewer.this_step") : "";
  if (!data) {
    parts.score.textContent = "0";
    fillCards(parts.scored, [], null, "");
    fillCards(parts.palette, [], null, "—");
    fillCards(parts.hand, [], null, "—");
    parts.hand.dataset.size = "0";
    parts.handLabel.textContent = t("viewer.hand");
    return;
  }
  parts.score.textContent = String(data.score || 0);
  fillCards(parts.scored, data.scored || [], null, "");
  fillCards(parts.palette, data.palette || [], prev ? prev.palette || [] : null, t("viewer.empty"));
  const size = data.hand_size !== undefined ? data.hand_size : (data.hand || []).length;
  parts.hand.dataset.size = String(size);
  parts.handLabel.textContent = t("viewer.hand_of", { cards: counted("cards", size) });
  if (Array.isArray(data.hand)) {
    parts.hand.dataset.hidden = "false";
    fillCards(parts.hand, data.hand, prev && Array.isArray(prev.hand) ? prev.hand : null, t("viewer.empty"));
  } else {
    parts.hand.dataset.hidden = "true";
    hiddenCards(parts.hand, size);
  }
}

/**
 * The end, at the last step: who won and why, each player's points (and rating change).
 * @param {Replay} replay
 * @param {boolean} atEnd
 */
function drawOutcome(replay, atEnd) {
  const outcome = replay.doc.outcome;
  const box = $("outcome");
  box.hidden = !atEnd || replay.total === 0;
  box.dataset.final = String(Boolean(outcome));
  $("winner-line").hidden = !outcome;
  if (!atEnd) return;
  const scores = $("final-scores");
  scores.replaceChildren();
  const winner = $("winner");
  if (!outcome) {
    $("outcome-text").textContent = t("viewer.not_over");
    winner.textContent = "";
    winner.dataset.seat = "";
    return;
  }
  const reason = FINISH.includes(outcome.finish) ? t("replay.finish." + outcome.finish) : outcome.finish || "";
  const facts = { player: seatName(replay, outcome.winner), reason };
  $("outcome-text").textContent = outcome.rounds
    ? t("viewer.wins_after", { ...facts, rounds: counted("rounds", outcome.rounds) })
    : t("viewer.wins", facts);
  winner.textContent = seatName(replay, outcome.winner);
  winner.dataset.seat = String(outcome.winner);
  (outcome.scores || []).forEach((/** @type {number} */ points, /** @type {number} */ seat) => {
    const li = el("li", seat === outcome.winner ? "won" : "", t("viewer.points_of", { player: seatName(replay, seat), points: counted("points", points) }));
    li.dataset.outcomeSeat = String(seat);
    const rating = replay.ratingOf.get(seat);
    if (rating && replay.ratings && replay.ratings.applied && typeof rating.change === "number") {
      const change = el("span", "change", signed(rating.change));
      change.dataset.sign = signOf(rating.change);
      const words = tNodes("viewer.rating_change", { before: rating.rating, after: rating.rating + rating.change }, { change });
      li.append(el("span", "rating", " · "), ...words.map((part) => (typeof part === "string" ? el("span", "rating", part) : part)));
    }
    scores.append(li);
  });
}
