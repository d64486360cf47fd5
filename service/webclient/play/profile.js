// A player's public profile, "#player=<handle or id>" (getPlayer): name, since when, games played and won, and on
// each ladder the rating, rank, record and last rating changes with their games; a button to challenge them, and
// the safety of blocks.js: block and mute them, or on your own profile who may reach you.

import { $, h } from "../core/dom.js";
import { ordinal, signOf, signed } from "../core/format.js";
import { language, t } from "../core/words.js";
import { renderSafety, setUpSafety } from "./blocks.js";
import { challengeFromProfile } from "./challenges.js";
import { dayWords } from "./format.js";
import { currentRoute } from "./router.js";
import { api, me } from "./session.js";
import { notCounted, screen, showProblem } from "./ui.js";

/** The ladders, by name. */
export const LADDERS = Object.freeze(["basic", "advanced"]);

/** @type {{ id: string, handle: string, name: string, [member: string]: any } | null} the profile shown */
let shown = null;

/**
 * The profile of ``handle`` (a handle, or a player's id).
 * @param {string} handle
 */
export async function showProfile(handle) {
  screen("profile");
  shown = null;
  $("profile-h").textContent = handle ? "@" + handle : t("play.a_player");
  $("profile-facts").hidden = true;
  $("profile-ratings").hidden = true;
  $("profile-challenge").hidden = true;
  $("profile-stats").hidden = true;
  try {
    const player = (await api("GET", `/v1/players/${encodeURIComponent(handle)}`, { auth: false })).data;
    if (currentRoute()[0] !== "player") return;
    shown = player;
    $("profile-h").textContent = player.handle ? "@" + player.handle : player.name;
    $("profile-name").textContent = player.name;
    $("profile-handle").textContent = player.handle ? "@" + player.handle : "—";
    $("profile-since").textContent = dayWords(player.since);
    $("profile-played").textContent = String(player.games.played);
    $("profile-won").textContent = String(player.games.won);
    $("profile-facts").hidden = false;
    $("profile-archive", HTMLAnchorElement).href = "#archive=" + encodeURIComponent(player.handle || player.id);
    $("profile-stats").setAttribute("href", "#stats=" + encodeURIComponent(player.handle || player.id));
    $("profile-stats").hidden = false;
    renderProfileRatings(player);
    const you = me();
    $("profile-challenge").hidden = !(you && player.handle && player.id !== you.id);
    await renderSafety(player);
  } catch (problem) {
    if (/** @type {{ status?: number }} */ (problem).status === 404) $("profile-h").textContent = t("play.no_such_player");
    showProblem(problem);
  }
}

/**
 * A profile's ratings (getPlayer's ``ratings``): on each ladder the rating, rank, record and the last changes.
 * @param {Record<string, any>} player
 */
function renderProfileRatings(player) {
  const ladders = player.ratings || {};
  const names = LADDERS.filter((ladder) => ladders[ladder]);
  /**
   * @param {string} label
   * @param {...(Node | string | null)} value
   */
  const fact = (label, ...value) => h("div", {}, h("dt", { text: label }), h("dd", {}, ...value));
  $("profile-ratings").hidden = false;
  $("profile-unrated").hidden = names.length > 0;
  $("profile-ladders").replaceChildren(...names.map((ladder) => {
    const standing = ladders[ladder];
    return h("article", { "data-ladder": ladder, "data-rating": standing.rating, "data-rank": standing.rank },
      h("h4", { text: t(ladder === "basic" ? "play.basic_ladder" : "play.advanced_ladder") }),
      h("dl", { class: "info" },
        fact(t("play.rating"), String(standing.rating), standing.provisional ? h("small", { class: "muted", text: t("play.provisional") }) : null),
        fact(t("play.rank"), standing.rank === null ? h("span", { class: "muted", text: t("play.not_ranked_yet") })
          : h("a", { href: "#ladder=" + ladder, text: t("play.n_of", { n: standing.rank, of: standing.ranked }) })),
        fact(t("play.rated_games"), String(standing.played)),
        fact(t("play.won"), String(standing.won)),
        fact(t("play.average_place"), standing.average_place === null ? "—" : standing.average_place.toFixed(2))),
      standing.history.length
        ? h("ul", { class: "history", "aria-label": t("play.last_changes") }, ...standing.history.map(changeItem)) : null);
  }));
}

/**
 * One rating change of a profile: its sign and size, from and to, the place in its game, and when.
 * @param {Record<string, any>} change
 */
function changeItem(change) {
  const day = new Date(change.finished_at).toLocaleDateString(undefined, { month: "short", day: "numeric" });
  return h("li", { "data-game": change.game_id, "data-change": change.change, "data-counted": String(change.counted) },
    h("span", { class: "change", "data-sign": signOf(change.change), text: signed(change.change) }),
    h("span", { text: `${change.before} → ${change.after}` }),
    h("a", { href: "#game=" + encodeURIComponent(change.game_id), text: t("play.n_of", { n: ordinal(change.place, language()), of: change.players }) }),
    change.counted ? null : notCounted(change.not_counted),
    h("span", { class: "muted", text: day }));
}

export function setUpProfile() {
  setUpSafety();
  $("profile-challenge").addEventListener("click", () => {
    if (shown) challengeFromProfile(shown);
  });
}
