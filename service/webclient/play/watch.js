// Live games to watch, "#watch" (listLiveGames): the public games in play, by its filters (rated, variant, card
// actions, players) and order (the highest rated or the most watched first), each with how many are watching; "Watch"
// opens the game's table as a spectator sees it (its public view and feed, which count this watcher too).
// Most players never open it, so the page does not name this module: main.js imports it when first opened.

import { $, h } from "../core/dom.js";
import { t } from "../core/words.js";
import { currentRoute } from "./router.js";
import { api } from "./session.js";
import { clearProblem, screen, showProblem } from "./ui.js";

const state = { asked: 0 };
const onWatch = () => currentRoute()[0] === "watch";

/**
 * A labelled select of a filter.
 * @param {string} name the query's parameter
 * @param {string} label
 * @param {string[][]} options [value, words]
 */
function choice(name, label, options) {
  return h("div", { class: "field" },
    h("label", { for: "watch-" + name, text: label }),
    h("select", { id: "watch-" + name, name }, ...options.map(([value, words]) => h("option", { value, text: words }))));
}

/** The screen's content, made once. */
function build() {
  const yesNo = [["", t("play.any")], ["true", t("play.archive.yes")], ["false", t("play.archive.no")]];
  const form = h("form", { id: "watch-filters", class: "filters", "aria-labelledby": "watch-filters-h" },
    h("h3", { id: "watch-filters-h", class: "sr-only", text: t("play.archive.filters") }),
    choice("order", t("play.watch.order"), [["rating", t("play.watch.by_rating")], ["watchers", t("play.watch.by_watchers")]]),
    choice("rated", t("play.rated"), yesNo),
    choice("variant", t("play.archive.variant"), [["", t("play.any")], ["basic", t("play.basic")], ["advanced", t("play.advanced")]]),
    choice("action_rules", t("play.card_actions"), yesNo),
    choice("players", t("play.players"), [["", t("play.any")], ["2", "2"], ["3", "3"], ["4", "4"]]),
    h("div", { class: "actions" }, h("button", { type: "submit", class: "primary", text: t("play.watch.refresh") })));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    loadLive();
  });
  $("watch").replaceChildren(
    h("h2", { id: "watch-h", class: "big", text: t("play.watch.title") }),
    h("p", { class: "hint", text: t("play.watch.hint") }),
    form,
    h("ul", { id: "watch-games", class: "plain", "aria-labelledby": "watch-h" }),
    h("p", { id: "watch-none", class: "none", hidden: true, text: t("play.watch.none") }));
}

/** The live games, as the filters ask. */
export async function showWatch() {
  screen("watch");
  if (!document.getElementById("watch-filters")) build();
  await loadLive();
}

async function loadLive() {
  clearProblem();
  const params = new URLSearchParams({ limit: "50" });
  for (const [name, value] of new FormData($("watch-filters", HTMLFormElement))) if (value) params.set(name, String(value));
  const asked = ++state.asked;
  let list;
  try {
    list = (await api("GET", `/v1/live-games?${params}`, { auth: false })).data;
  } catch (problem) {
    if (asked === state.asked && onWatch()) showProblem(problem);
    return;
  }
  if (asked !== state.asked || !onWatch()) return;
  $("watch-games").replaceChildren(...list.games.map(liveItem));
  $("watch-games").hidden = list.games.length === 0;
  $("watch-none").hidden = list.games.length > 0;
  $("watch-games").dataset.loaded = String(asked);
}

/**
 * One live game: who plays, its options and round, its rating, how many watch, and a link to watch it.
 * @param {Record<string, any>} game
 */
function liveItem(game) {
  const variant = t(game.variant === "advanced" ? "play.w.advanced" : "play.w.basic");
  const options = [t("play.variant_round", { variant, round: game.round }), game.action_rules ? t("play.w.card_actions") : null,
    game.rated ? t("play.w.rated") : null].filter(Boolean).join(", ");
  return h("li", { class: "live", "data-game": game.id, "data-watchers": game.watchers },
    h("h3", { text: game.seats.join(" · ") }),
    h("p", { class: "muted", text: options }),
    h("p", {}, h("span", { text: t("play.watch.rating", { rating: game.rating }) }), " · ",
      h("span", { class: "watchers", text: t("play.watch.watchers", { n: game.watchers }) })),
    h("a", { href: "#game=" + encodeURIComponent(game.id), class: "button", id: "watch-" + game.id, text: t("play.watch.watch") }));
}
