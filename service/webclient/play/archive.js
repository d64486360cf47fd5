// A player's archive of finished games, "#archive=<handle or id>" ("#archive=" alone: your own), from listPlayerGames:
// its filters (since, until, variant, card actions, players, rated, result, opponent, analysed), newest first, a page
// at a time by its cursor; each game's date, seats with places and ratings, and a link to its replay in the viewer.
// Most players never open it, so the page does not name this module: main.js imports it when first opened.

import { $, h } from "../core/dom.js";
import { ordinal, signed } from "../core/format.js";
import { language, t } from "../core/words.js";
import { dayWords } from "./format.js";
import { inViewer } from "./mistakes.js";
import { currentRoute } from "./router.js";
import { api, me } from "./session.js";
import { clearProblem, screen, showProblem } from "./ui.js";

const PAGE = 20;  // games a page
const state = {
  /** the archive's owner, as the address names them */
  ref: "",
  /** @type {string | null} */
  cursor: null,
  /** the last page asked for: an answer to an older one is dropped */
  asked: 0,
};
const onArchive = () => currentRoute()[0] === "archive";

/** Three-way choices: any, yes or no (the query's booleans). */
const YES_NO = () => [["", t("play.any")], ["true", t("play.archive.yes")], ["false", t("play.archive.no")]];

/**
 * A labelled select of a filter.
 * @param {string} name the query's parameter
 * @param {string} label
 * @param {string[][]} options [value, words]
 */
function choice(name, label, options) {
  return h("div", { class: "field" },
    h("label", { for: "archive-" + name, text: label }),
    h("select", { id: "archive-" + name, name }, ...options.map(([value, words]) => h("option", { value, text: words }))));
}

/**
 * A labelled input of a filter.
 * @param {string} name
 * @param {string} label
 * @param {string} type
 */
function input(name, label, type) {
  return h("div", { class: "field" },
    h("label", { for: "archive-" + name, text: label }),
    h("input", { id: "archive-" + name, name, type, autocomplete: "off" }));
}

/** The screen's content, made once (its words are the page's language: a new language is a new page). */
function build() {
  const form = h("form", { id: "archive-filters", class: "filters", "aria-labelledby": "archive-filters-h" },
    h("h3", { id: "archive-filters-h", class: "sr-only", text: t("play.archive.filters") }),
    input("since", t("play.since"), "date"),
    input("until", t("play.archive.until"), "date"),
    choice("variant", t("play.archive.variant"), [["", t("play.any")], ["basic", t("play.basic")], ["advanced", t("play.advanced")]]),
    choice("action_rules", t("play.card_actions"), YES_NO()),
    choice("players", t("play.players"), [["", t("play.any")], ["2", "2"], ["3", "3"], ["4", "4"]]),
    choice("rated", t("play.rated"), YES_NO()),
    choice("result", t("play.archive.result"), [["", t("play.any")], ["won", t("play.won")], ["lost", t("play.archive.lost")]]),
    input("opponent", t("play.archive.opponent"), "text"),
    choice("analysed", t("play.archive.analysed"), YES_NO()),
    h("div", { class: "actions" }, h("button", { type: "submit", class: "primary", text: t("play.archive.filter") })));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    loadArchive(false);
  });
  const more = h("button", { type: "button", id: "archive-more", hidden: true, text: t("play.show_more") });
  more.addEventListener("click", () => loadArchive(true));
  $("archive").replaceChildren(
    h("h2", { id: "archive-h", class: "big" }),
    h("p", {}, h("a", { id: "archive-profile", href: "#lobby" })),
    form,
    h("ol", { id: "archive-games", class: "plain", "aria-labelledby": "archive-h" }),
    h("p", { id: "archive-none", class: "none", hidden: true, text: t("play.archive.none") }),
    more);
}

/**
 * The archive of ``ref`` (a handle or an id; empty: yours), from its first page.
 * @param {string} ref
 */
export async function showArchive(ref) {
  screen("archive");
  if (!document.getElementById("archive-filters")) build();
  const you = me();
  const own = !ref || (you !== null && (ref === you.id || ref === you.handle));
  state.ref = ref || (you ? you.id : "");
  $("archive-h").textContent = own ? t("play.archive.yours") : t("play.archive.of", { player: ref.startsWith("p_") ? ref : "@" + ref });
  const profile = $("archive-profile", HTMLAnchorElement);
  profile.href = "#player=" + encodeURIComponent(state.ref);
  profile.textContent = t("play.archive.profile");
  await loadArchive(false);
}

/** The query the filters make, with the page's size. */
function query() {
  const form = $("archive-filters", HTMLFormElement);
  const params = new URLSearchParams({ limit: String(PAGE) });
  for (const [name, value] of new FormData(form)) {
    const text = String(value).trim();
    if (!text) continue;
    if (name === "since") params.set(name, new Date(text + "T00:00:00Z").toISOString());
    else if (name === "until") params.set(name, new Date(text + "T23:59:59.999Z").toISOString());
    else params.set(name, text);
  }
  return params;
}

/**
 * A page of the archive (``more``: the games after those shown, by the last page's next_cursor).
 * @param {boolean} more
 */
async function loadArchive(more) {
  clearProblem();
  const params = query();
  if (more && state.cursor) params.set("cursor", state.cursor);
  const asked = ++state.asked;
  const button = $("archive-more", HTMLButtonElement);
  button.disabled = true;
  let page;
  try {
    page = (await api("GET", `/v1/players/${encodeURIComponent(state.ref)}/archive?${params}`)).data;
  } catch (problem) {
    if (asked === state.asked && onArchive()) showProblem(problem);
    return;
  } finally {
    if (asked === state.asked) button.disabled = false;
  }
  if (asked !== state.asked || !onArchive()) return;  // another page was asked for meanwhile, or the player left
  const items = page.games.map(gameItem);
  if (more) $("archive-games").append(...items);
  else $("archive-games").replaceChildren(...items);
  state.cursor = page.next_cursor;
  button.hidden = !page.next_cursor;
  const empty = $("archive-games").children.length === 0;
  $("archive-games").hidden = empty;
  $("archive-none").hidden = !empty;
  Object.assign($("archive-games").dataset, { loaded: String(asked), player: page.player_id });
}

/**
 * One seat of an archived game: its place, name (a link to the profile when it has a handle) and rating change.
 * @param {Record<string, any>} seat
 */
function seatItem(seat) {
  const name = seat.handle ? h("a", { href: "#player=" + encodeURIComponent(seat.handle), text: seat.name }) : h("span", { text: seat.name || "—" });
  const change = seat.rating_before !== null && seat.rating_after !== null
    ? h("span", { class: "muted", text: `${seat.rating_before} → ${seat.rating_after} (${signed(seat.rating_after - seat.rating_before)})` }) : null;
  return h("li", { "data-place": seat.place }, h("span", { class: "place", text: ordinal(seat.place, language()) }), " ", name, change ? " " : null, change);
}

/**
 * One finished game: its date and options, the owner's result, its seats, and a link to its replay.
 * @param {Record<string, any>} game
 */
function gameItem(game) {
  const options = [t(game.variant === "advanced" ? "play.w.advanced" : "play.w.basic"), game.action_rules ? t("play.w.card_actions") : null,
    game.rated ? t("play.w.rated") : null].filter(Boolean).join(", ");
  return h("li", { class: "archived", "data-game": game.game_id, "data-result": game.result },
    h("h3", {}, h("span", { text: dayWords(game.finished_at) }), " · ",
      h("span", { class: "result", "data-result": game.result, text: t(game.result === "won" ? "play.won" : "play.archive.lost") })),
    h("p", { class: "muted", text: options }),
    h("ol", { class: "plain seats" }, ...game.seats.map(seatItem)),
    h("a", { href: inViewer(game.view_url), class: "replay", text: t("play.watch_the_replay") }));
}
