// Statistics across games as charts (charts.js): "#stats" everyone's (getGameStatistics: the winning rules and
// cards of a variant and player count, chosen by two rows of buttons), "#stats=<handle or id>" a player's
// (getPlayerStatistics: places, games won by seat and by table size, rounds won by the rule in force, the colours
// played to the palette and to the canvas, the accuracy trend of their analysed games), reached from their profile.
// Anyone may read both, signed in or not; with a token, your own statistics even with your archive hidden.  The
// charts are drawn at the width they are shown, and again when it changes.

import { $, h } from "../core/dom.js";
import { ordinal } from "../core/format.js";
import { RULES, cardName, ruleName } from "../core/rules.js";
import { counted, language, t } from "../core/words.js";
import { barChart, lineChart, percentText } from "./charts.js";
import { currentRoute } from "./router.js";
import { api } from "./session.js";
import { clearProblem, onScreen, screen, showProblem } from "./ui.js";

const VARIANTS = Object.freeze(["basic", "advanced"]);
const TABLES = Object.freeze([2, 3, 4]);

const state = {
  /** the answer drawn: a player's statistics, or everyone's */
  /** @type {Record<string, any> | null} */
  shown: null,
  /** whose ("" everyone's) */
  who: "",
  variant: "basic",
  players: 2,
  /** the last read asked for: an answer to an older one is dropped */
  asked: 0,
  /** the width the charts were drawn at */
  width: 0,
  /** whether its buttons listen (the module is loaded when the screen is first opened) */
  ready: false,
};

/**
 * The statistics of ``who`` (a handle or a player's id), or everyone's (``who`` empty).
 * @param {string} who
 */
export async function showStats(who) {
  if (!state.ready) setUpStats();
  screen("stats");
  clearProblem();
  state.who = who;
  state.shown = null;
  const asked = ++state.asked;
  $("stats-h").textContent = who ? t("play.statistics_of", { name: "@" + who }) : t("play.everyones_statistics");
  $("stats-back").hidden = !who;
  $("stats-back-link").setAttribute("href", "#player=" + encodeURIComponent(who));
  $("stats-choice").hidden = !!who;
  $("stats-body").replaceChildren();
  $("stats").dataset.loaded = "";
  try {
    const path = who ? `/v1/players/${encodeURIComponent(who)}/statistics` : "/v1/statistics";
    const answer = (await api("GET", path, { auth: !!who })).data;
    if (asked !== state.asked || currentRoute()[0] !== "stats") return;
    state.shown = answer;
    draw();
  } catch (problem) {
    if (asked !== state.asked) return;
    if (/** @type {{ status?: number }} */ (problem).status === 404) $("stats-h").textContent = t("play.no_such_player");
    showProblem(problem);
  }
}

/** The width the charts have: the body's. */
const chartWidth = () => Math.floor($("stats-body").clientWidth || 320);

/** Draw the answer shown at the width the screen has now. */
function draw() {
  const answer = state.shown;
  if (!answer) return;
  state.width = chartWidth();
  const body = state.who ? playerCharts(answer) : groupCharts(answer);
  $("stats-body").replaceChildren(...body);
  for (const button of document.querySelectorAll("#stats-choice [data-variant], #stats-choice [data-players]")) {
    const b = /** @type {HTMLElement} */ (button);
    const on = b.dataset.variant ? b.dataset.variant === state.variant : Number(b.dataset.players) === state.players;
    b.setAttribute("aria-pressed", String(on));
  }
  Object.assign($("stats").dataset, { loaded: String(state.asked), who: state.who, variant: state.variant, players: String(state.players) });
}

/**
 * A chart under its heading (a figure and its caption).
 * @param {string} id
 * @param {string} caption
 * @param {Node} chart
 */
function figure(id, caption, chart) {
  return h("figure", { class: "stat", id: "stats-" + id }, h("figcaption", { text: caption }), chart);
}

/**
 * A few facts as a definition list (label, value).
 * @param {[string, string][]} facts
 */
function facts(facts) {
  return h("dl", { class: "info" }, ...facts.map(([label, value]) => h("div", {}, h("dt", { text: label }), h("dd", { text: value }))));
}

/** @param {string} rule */
const letter = (rule) => RULES[/** @type {keyof RULES} */ (rule)];

/**
 * A player's charts.
 * @param {Record<string, any>} stats
 */
function playerCharts(stats) {
  const width = state.width;
  const out = [facts([
    [t("play.games"), String(stats.games)],
    [t("play.won"), `${stats.won} (${percentText(stats.won_percent)})`],
    [t("play.rounds_won"), `${stats.rounds_won} / ${stats.rounds}`],
  ])];
  if (!stats.games) {
    out.push(h("p", { class: "none", text: t("play.no_finished_game_yet") }));
    return out;
  }
  out.push(figure("places", t("play.places"), barChart({ label: t("play.places"), width,
    bars: stats.places.map((/** @type {any} */ p) => ({ label: ordinal(p.place, language()), percent: p.percent, count: p.count })) })));
  out.push(figure("seats", t("play.won_by_seat"), barChart({ label: t("play.won_by_seat"), width,
    bars: stats.seats.map((/** @type {any} */ s) => ({ label: t("play.seat_n", { n: s.seat + 1 }), percent: s.percent, count: s.won, of: s.games })) })));
  out.push(figure("tables", t("play.won_by_players"), barChart({ label: t("play.won_by_players"), width,
    bars: stats.tables.map((/** @type {any} */ s) => ({ label: counted("players", s.players), percent: s.percent, count: s.won, of: s.games })) })));
  out.push(figure("rules", t("play.rounds_won_by_rule"), barChart({ label: t("play.rounds_won_by_rule"), width,
    bars: stats.rounds_won_by_rule.map((/** @type {any} */ r) => ({ label: ruleName(r.rule), percent: r.percent, count: r.count, colour: letter(r.rule) })) })));
  out.push(figure("palette", t("play.cards_played_by_colour"), barChart({ label: t("play.cards_played_by_colour"), width,
    bars: stats.colours_played.map((/** @type {any} */ c) => ({ label: ruleName(c.colour), percent: c.palette_percent, count: c.palette, colour: letter(c.colour) })) })));
  out.push(figure("canvas", t("play.rules_set_by_colour"), barChart({ label: t("play.rules_set_by_colour"), width,
    bars: stats.colours_played.map((/** @type {any} */ c) => ({ label: ruleName(c.colour), percent: c.canvas_percent, count: c.canvas, colour: letter(c.colour) })) })));
  const trend = stats.accuracy;
  out.push(trend.length
    ? figure("accuracy", t("play.accuracy_trend"), lineChart({ label: t("play.accuracy_trend"), along: t("play.analysed_games"), width,
      points: trend.map((/** @type {any} */ p) => ({ value: p.accuracy, title: `${new Date(p.finished_at).toLocaleDateString(language())}: ${percentText(p.accuracy)}` })) }))
    : h("p", { class: "none", id: "stats-no-accuracy", text: t("play.no_analysed_game_yet") }));
  return out;
}

/**
 * Everyone's charts of the variant and player count chosen.
 * @param {Record<string, any>} stats
 */
function groupCharts(stats) {
  const width = state.width;
  const group = stats.groups.find((/** @type {any} */ g) => g.variant === state.variant && g.players === state.players);
  const out = [facts([[t("play.games"), String(group ? group.games : 0)], [t("play.rounds"), String(group ? group.rounds : 0)]])];
  if (!group || !group.rounds) {
    out.push(h("p", { class: "none", text: t("play.no_finished_game_yet") }));
    return out;
  }
  out.push(figure("rules", t("play.winning_rules"), barChart({ label: t("play.winning_rules"), width,
    bars: group.rules.map((/** @type {any} */ r) => ({ label: ruleName(r.rule), percent: r.percent, count: r.count, colour: letter(r.rule) })) })));
  out.push(figure("cards", t("play.winning_cards"), barChart({ label: t("play.winning_cards"), width,
    bars: group.cards.map((/** @type {any} */ c) => ({
      label: c.card === "-" ? t("play.no_card_counted") : cardName(c.card), percent: c.percent, count: c.count,
      colour: c.card === "-" ? undefined : c.card.charAt(0),
    })) })));
  return out;
}

function setUpStats() {
  state.ready = true;
  for (const variant of VARIANTS) {
    $("stats-variant-" + variant).addEventListener("click", () => { state.variant = variant; draw(); });
  }
  for (const players of TABLES) {
    $("stats-players-" + players).addEventListener("click", () => { state.players = players; draw(); });
  }
  let waiting = 0;
  window.addEventListener("resize", () => {
    window.clearTimeout(waiting);
    waiting = window.setTimeout(() => { if (onScreen("stats") && chartWidth() !== state.width) draw(); }, 150);
  });
}
