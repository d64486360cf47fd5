// A game's end at the table: the players by place, a rated game's ratings (before, and the change once its ladder
// has it), the decision analysis asked for, and a rematch offered, declined and opened.

import { $, h } from "../core/dom.js";
import { ordinal, signOf, signed } from "../core/format.js";
import { counted, language, t } from "../core/words.js";
import { awaitAnalysis } from "./analysis.js";
import { onFeed } from "./feed.js";
import { current } from "./game.js";
import { mySeat, seatName } from "./moves.js";
import { api, newKey } from "./session.js";
import { clearProblem, every, notCounted, notice, showProblem, stopEvery } from "./ui.js";

/** @import { Game } from "./game.js" */
/** @import { View } from "./moves.js" */

/** The notices that change a finished game's rematch: its view is read again when one comes. */
const REMATCH_NOTICES = ["rematch_offered", "rematch_declined", "rematch_started"];
const RATINGS_POLL = 2000;  // ms: how often a finished rated game's view is read until its ladder has it
const FINISH = ["round_won", "target_reached", "deck_exhausted"];

/**
 * A seat's rating at a rated table (the view's ``ratings``): its player's rating, whether provisional, and its change
 * once the ladder has the game.
 * @typedef {{ seat: number, rating: number, provisional: boolean, change: number | null, counted?: boolean, not_counted?: string }} SeatRating
 */

/**
 * What the end needs of the table: draw a view, read the view again.
 * @typedef {{ render: (view: View) => void, refresh: () => Promise<void> }} Drawing
 */

/** @type {Drawing} */
let table = { render: () => {}, refresh: () => Promise.resolve() };

/**
 * The seats' ratings at a rated table, by seat.
 * @param {View} view
 * @returns {Map<number, SeatRating>}
 */
export const ratingsBySeat = (view) => new Map((view.ratings ? view.ratings.seats : []).map((/** @type {SeatRating} */ rating) => [rating.seat, rating]));

/**
 * A seat's rating as a badge: "1012", "1000 provisional".
 * @param {SeatRating} rating
 */
export function ratingBadge(rating) {
  const said = t(rating.provisional ? "play.rating_provisional" : "play.rating_n", { rating: rating.rating });
  return h("span", {
    class: "badge rating", "data-rating": rating.rating, "data-provisional": rating.provisional ? "true" : "false", title: said,
  }, h("span", { class: "sr-only", text: t("play.rating_lower") + " " }), String(rating.rating),
  rating.provisional ? h("small", { text: " " + t("play.provisional") }) : null);
}

/**
 * A player's rating before a rated game and after it, once its ladder has it: "Rating 1000 → 1012 (+12)".
 * @param {SeatRating & { change: number }} rating
 */
function ratingLine(rating) {
  return h("span", { class: "rating-line", "data-change": rating.change, "data-before": rating.rating, "data-counted": String(rating.counted) },
    t("play.rating_to", { before: rating.rating, after: rating.rating + rating.change }) + " ",
    h("span", { class: "change", "data-sign": signOf(rating.change), text: `(${signed(rating.change)})` }),
    rating.counted === false ? [" ", notCounted(rating.not_counted ?? "")] : null);
}

/**
 * Under the places of a rated game: its ratings are being updated (the ladder takes it seconds after the end), or are.
 * @param {View} view
 */
function renderRatingsState(view) {
  const box = $("ratings-state");
  const ratings = view.ratings;
  box.hidden = !ratings;
  if (!ratings) return;
  box.dataset.applied = String(ratings.applied);
  const ladder = h("a", {
    href: "#ladder=" + encodeURIComponent(ratings.ladder),
    text: t(ratings.ladder === "basic" ? "play.the_basic_ladder" : "play.the_advanced_ladder"),
  });
  const [before, after] = t(ratings.applied ? "play.rated_applied" : "play.rated_updating").split("%(ladder)s");
  box.replaceChildren(before, ladder, after || "");
}

/**
 * A finished rated game's view read every RATINGS_POLL ms until its ladder has the game (``ratings.applied``).
 * @param {View} view
 * @param {Game} game
 */
export function watchRatings(view, game) {
  if (view.phase !== "finished" || !view.ratings || view.ratings.applied || game.ratingsWatch) return;
  game.ratingsWatch = every(RATINGS_POLL, () => {
    if (game !== current() || (game.view && game.view.ratings && game.view.ratings.applied)) stopEvery(game.ratingsWatch);
    else table.refresh();
  });
}

/** The game whose analysis this page asked for and has not failed. */
let analysing = /** @type {string | null} */ (null);

/**
 * The end: the players by place, as the view's standing gives them (the winner first, then by points in the
 * advanced game, by how long each stayed in the round in the basic one), never by seat.
 * @param {View} view
 * @param {Game} game
 */
export function renderOutcome(view, game) {
  const over = view.phase === "finished";
  $("outcome").hidden = !over;
  if (!over) return;
  const mine = mySeat(view);
  const known = FINISH.includes(view.finish);
  const reason = known ? t("play.finish." + view.finish) : t("play.won_lower");
  const yours = view.winner === mine && known ? t("play.finish.you." + view.finish) : null;
  $("winner").textContent = view.winner === mine ? yours || t("play.you_reason", { reason })
    : t("play.player_reason", { player: seatName(view, view.winner), reason });
  /** @type {number[]} */
  const order = view.standing || [view.winner, ...view.seats.map((/** @type {any} */ seat) => seat.seat).filter((/** @type {number} */ seat) => seat !== view.winner)];
  const advanced = view.variant === "advanced";
  const players = order.length;
  const rated = ratingsBySeat(view);
  /** @param {number} n */
  const points = (n) => counted("points", n);
  let place = 0;
  const items = order.map((number, index) => {
    const seat = view.seats[number];
    const previous = index > 0 ? view.seats[order[index - 1]] : null;
    // Equal places only where the rules cannot tell players apart: an advanced game's players who scored nothing.
    const tied = advanced && previous && index > 1 && seat.score === 0 && previous.score === 0;
    if (!tied) place = index + 1;
    let how;
    if (index === 0) how = advanced ? t("play.winner_points", { points: points(seat.score) }) : t("play.winner_last_in");
    else if (advanced) how = points(seat.score);
    else how = index === 1 ? t("play.last_out") : index === players - 1 ? t("play.first_out") : t("play.out_nth", { nth: ordinal(players - index, language()) });
    const rating = rated.get(number);
    return h("li", { value: place, "data-seat": number, "data-place": place },
      h("span", { class: "who", text: number === mine ? t("play.name_you", { name: seat.name }) : seat.name }),
      h("span", { class: "how", text: ` — ${how}` }),
      rating && rating.change !== null ? ratingLine({ ...rating, change: rating.change }) : null);
  });
  $("final-scores").replaceChildren(...items);
  renderRatingsState(view);
  const lang = language();
  const replay = `/v1/games/${encodeURIComponent(view.id)}/replay/view${lang === "en" ? "" : `?lang=${lang}`}`;
  $("replay-link", HTMLAnchorElement).href = replay;
  $("analysis-link", HTMLAnchorElement).href = replay;
  if (analysing !== game.id) {
    $("analysis-button").hidden = false;
    $("analysis-link").hidden = true;
    $("analysis-state").hidden = true;
  }
}

/**
 * A finished game's decision analysis (requestAnalysis): asked for, then read with its progress until the workers are
 * done; the replay viewer then shows it (the win-chance chart, the labels, each player's accuracy).
 */
async function analyse() {
  const game = current();
  if (!game || !game.view || game.view.phase !== "finished") return;
  analysing = game.id;
  const button = $("analysis-button", HTMLButtonElement);
  button.disabled = true;
  const state = $("analysis-state");
  state.hidden = false;
  try {
    const answer = await awaitAnalysis(game.id, (words) => { state.textContent = words; }, () => current() === game);
    if (!answer) return;
    state.textContent = t("play.analysis_ready");
    button.hidden = true;
    $("analysis-link").hidden = false;
  } catch (problem) {
    analysing = null;
    state.hidden = true;
    if (game === current()) showProblem(problem);
  } finally {
    button.disabled = false;
  }
}

/**
 * The human seats whose players a rematch waits for (a resigned seat is an AI's).
 * @param {View} view
 * @returns {number[]}
 */
const rematchSeats = (view) => view.seats.filter((/** @type {any} */ seat) => seat.kind === "human" && seat.player_id && !seat.resigned)
  .map((/** @type {any} */ seat) => seat.seat);

/**
 * @param {View} view
 * @param {number[]} seats
 */
const namesOf = (view, seats) => seats.map((seat) => (seat === mySeat(view) ? t("play.you_lower") : seatName(view, seat))).join(", ");

/**
 * A rematch at a finished game's end: who wants one (the view's rematch_offers), an offer or a decline, and the new
 * game, which opens here when it starts while this page looks on.  Another player's answer comes as a notice of the
 * player's own feed (feed.js), and the view is read again then (the feed of a finished game is over).
 * @param {View} view
 * @param {View | null} before the view shown before this one
 */
export function renderRematch(view, before) {
  const box = $("rematch-box");
  const mine = mySeat(view);
  const seats = rematchSeats(view);
  const player = mine !== null && seats.includes(mine);
  /** @type {number[]} */
  const offers = view.rematch_offers || [];
  box.hidden = view.phase !== "finished" || !(player || offers.length || view.rematch);
  if (box.hidden) return;
  box.dataset.offers = offers.join(",");
  const offered = mine !== null && offers.includes(mine);
  const waitingFor = seats.filter((seat) => !offers.includes(seat));
  let state;
  if (view.rematch) state = t("play.rematch_started");
  else if (view.rematch_declined !== null) {
    state = view.rematch_declined === mine ? t("play.you_declined_rematch") : t("play.declined_rematch", { player: seatName(view, view.rematch_declined) });
  } else if (offered) state = t("play.you_want_rematch", { players: namesOf(view, waitingFor) });
  else if (offers.length) {
    const who = offers.map((seat) => seatName(view, seat)).join(", ");
    state = t(offers.length === 1 ? "play.wants_rematch" : "play.want_rematch", { players: who });
  } else state = t("play.play_again");
  $("rematch-state").textContent = state;
  const open = player && !view.rematch && view.rematch_declined === null;
  const offer = $("rematch-offer");
  offer.hidden = !open || offered;
  offer.textContent = offers.length ? t("play.accept_rematch") : t("play.offer_a_rematch");
  const decline = $("rematch-decline");
  decline.hidden = !open;
  decline.textContent = offered ? t("play.no_rematch_after_all") : t("play.no_rematch");
  const link = $("rematch-link", HTMLAnchorElement);
  link.hidden = !view.rematch;
  if (view.rematch) link.href = "#game=" + encodeURIComponent(view.rematch);
  if (view.rematch && before && before.phase === "finished" && !before.rematch && player) {
    notice(t("play.rematch_starts"));
    location.hash = "game=" + encodeURIComponent(view.rematch);
    return;
  }
}

/**
 * Offer (or accept) a rematch, or decline one.
 * @param {boolean} offer
 */
async function answerRematch(offer) {
  const game = current();
  if (!game || !game.view) return;
  clearProblem();
  const path = `/v1/games/${encodeURIComponent(game.id)}/rematch${offer ? "" : "/decline"}`;
  const buttons = [$("rematch-offer", HTMLButtonElement), $("rematch-decline", HTMLButtonElement)];
  for (const button of buttons) button.disabled = true;
  try {
    const answer = await api("POST", path, { headers: newKey() });
    if (game === current()) table.render(answer.data);
  } catch (problem) {
    if (game === current()) { showProblem(problem); table.refresh(); }
  } finally {
    for (const button of buttons) button.disabled = false;
  }
}

/**
 * The end's buttons, drawing with the table's ``render`` and ``refresh``.
 * @param {Drawing} drawing
 */
export function setUpEnd(drawing) {
  table = drawing;
  onFeed({ notice: (got) => {
    const game = current();
    if (!REMATCH_NOTICES.includes(got.event) || !game || !game.view || game.view.phase !== "finished") return;
    if (got.game_id === game.id || got.event === "rematch_started") table.refresh();
  } });
  $("analysis-button").addEventListener("click", analyse);
  $("rematch-offer").addEventListener("click", () => answerRematch(true));
  $("rematch-decline").addEventListener("click", () => answerRematch(false));
}
