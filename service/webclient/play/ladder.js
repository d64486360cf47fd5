// A ladder's leaderboard, "#ladder=basic" or "#ladder=advanced" (getLeaderboard, 20 a page): its top, or the page
// around you ("Around me"); anyone may read it, signed in or not.

import { $, h } from "../core/dom.js";
import { t } from "../core/words.js";
import { LADDERS } from "./profile.js";
import { currentRoute } from "./router.js";
import { api, me } from "./session.js";
import { clearProblem, screen, showProblem } from "./ui.js";

const BOARD_PAGE = 20;

const board = {
  ladder: "basic",
  /** @type {"top" | "around"} */
  mode: "top",
  /** the rank the next page starts after */
  next: 0,
  /** the last page asked for: an answer to an older one is dropped */
  asked: 0,
};

/**
 * The leaderboard of ``value`` (basic unless it names the advanced ladder).
 * @param {string} value
 */
export async function showLadder(value) {
  const ladder = LADDERS.includes(value) ? value : "basic";
  screen("ladder");
  board.ladder = ladder;
  $("ladder-h").textContent = t(ladder === "basic" ? "play.basic_ladder" : "play.advanced_ladder");
  for (const link of document.querySelectorAll("#ladder .tabs a")) {
    if (/** @type {HTMLElement} */ (link).dataset.ladder === ladder) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  $("board-modes").hidden = !me();  // "around me" needs a player; without one the top is all there is
  await loadBoard(board.mode === "around" && me() ? "around" : "top", false);
}

/**
 * A page of the leaderboard: the top (``more``: the next ranks), or the page around the player (getLeaderboard ?around).
 * @param {"top" | "around"} mode
 * @param {boolean} more
 */
async function loadBoard(mode, more) {
  clearProblem();
  board.mode = mode;
  $("board-top").setAttribute("aria-pressed", String(mode === "top"));
  $("board-around").setAttribute("aria-pressed", String(mode === "around"));
  const query = new URLSearchParams({ limit: String(BOARD_PAGE) });
  const player = me();
  if (more) query.set("offset", String(board.next));
  else if (mode === "around" && player) query.set("around", player.id);
  const asked = ++board.asked;
  const ladder = board.ladder;
  const path = `/v1/ladders/${encodeURIComponent(ladder)}/leaderboard?${query}`;
  let page = null;
  let none = t("play.board_none");
  try {
    page = (await api("GET", path, { auth: false })).data;
  } catch (problem) {
    if (asked !== board.asked) return;
    if (/** @type {{ code?: string }} */ (problem).code !== "player_not_rated") {
      showProblem(problem);
      return;
    }
    none = t(ladder === "basic" ? "play.no_rating_basic" : "play.no_rating_advanced");
  }
  if (asked !== board.asked || currentRoute()[0] !== "ladder") return;  // another page was asked for meanwhile
  const rows = page ? page.players.map(boardRow) : [];
  const body = $("board-rows");
  if (more) body.append(...rows);
  else body.replaceChildren(...rows);
  board.next = page ? page.offset + page.players.length : 0;
  $("board-more").hidden = !page || board.next >= page.ranked;
  const empty = body.children.length === 0;
  $("board").hidden = empty;
  $("board-none").hidden = !empty;
  $("board-none").textContent = none;
  Object.assign($("board").dataset, { ladder, mode, loaded: String(asked), ranked: String(page ? page.ranked : 0) });
  const mine = mode === "around" && !more ? body.querySelector('tr[data-you="true"]') : null;
  if (mine) mine.scrollIntoView({ block: "center" });
}

/**
 * A line of the leaderboard: rank, player (a link to the profile; an AI level said so), rating, games, won, place.
 * @param {Record<string, any>} line
 */
function boardRow(line) {
  const ai = line.player_id.startsWith("ai:");
  const player = me();
  const you = !!player && line.player_id === player.id;
  const who = ai ? h("span", { text: line.name })
    : h("a", { href: "#player=" + encodeURIComponent(line.player_id), text: line.name });
  return h("tr", { "data-player": line.player_id, "data-rank": line.rank, "data-rating": line.rating, "data-you": you ? "true" : null },
    h("td", { class: "num", text: String(line.rank) }),
    h("td", { class: "who" }, who, you ? " " + t("play.you_mark") : null, ai ? h("small", { text: t("play.an_ai_level") }) : null),
    h("td", { class: "num" }, String(line.rating), line.provisional ? h("small", { text: t("play.provisional") }) : null),
    h("td", { class: "num", text: String(line.played) }),
    h("td", { class: "num wide", text: String(line.won) }),
    h("td", { class: "num wide", text: line.average_place === null ? "—" : line.average_place.toFixed(2) }));
}

export function setUpLadder() {
  $("board-top").addEventListener("click", () => loadBoard("top", false));
  $("board-around").addEventListener("click", () => { if (me()) loadBoard("around", false); });
  $("board-more").addEventListener("click", () => loadBoard(board.mode, true));
}
