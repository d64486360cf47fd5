// The lobby's open tables (listOpenGames): listed games with a seat open, filtered by rules, card actions, players,
// time a turn and rated, ten a page, each joined in a click (no code).

import { $, h } from "../core/dom.js";
import { counted, t } from "../core/words.js";
import { settingsWords, timeControl } from "./format.js";
import { api, newKey } from "./session.js";
import { clearProblem, fillTimeControl, notice, onScreen, showProblem } from "./ui.js";

const TABLES_PAGE = 10;

const tables = {
  /** @type {string | null} */
  cursor: null,
  /** the last page asked for: an answer to an older one (the filters changed since) is dropped */
  asked: 0,
};

/** The filters as listOpenGames' query. */
function tablesQuery() {
  const query = new URLSearchParams({ limit: String(TABLES_PAGE) });
  for (const [id, name] of [["f-variant", "variant"], ["f-actions", "action_rules"], ["f-players", "players"], ["f-rated", "rated"]]) {
    const value = $(id, HTMLSelectElement).value;
    if (value) query.set(name, value);
  }
  for (const [name, value] of Object.entries(timeControl($("f-time", HTMLSelectElement).value))) query.set(name, String(value));
  return query;
}

/**
 * An open table as an item of the list: whose, its settings and seats, and "Join" (or "Your table").
 * @param {Record<string, any>} table
 */
function tableItem(table) {
  const open = table.open_seats.length;
  const seats = table.seats.map((/** @type {string | null} */ name) => name || t("play.b.open_seat")).join(" · ");
  const facts = t("play.table_facts", {
    players: counted("players", table.players), open: counted("seats_open", open), settings: settingsWords(/** @type {any} */ (table)),
    rating: table.rating,
  });
  const mine = table.your_seat !== null && table.your_seat !== undefined;
  return h("li", { "data-table": table.id },
    h("span", { class: "what" }, h("strong", { text: table.creator ? t("play.someones_table", { player: table.creator }) : t("play.a_table") }),
      h("span", { class: "muted", text: facts }), h("span", { class: "muted", text: seats })),
    h("div", { class: "actions" }, mine
      ? h("a", { class: "button", href: "#game=" + encodeURIComponent(table.id), text: t("play.your_table") })
      : h("button", { type: "button", class: "primary", "data-join": table.id, onclick: () => joinTable(table.id) }, t("play.join"))));
}

/**
 * A page of the open tables (``more``: the next one).
 * @param {boolean} more
 */
export async function loadTables(more) {
  const query = tablesQuery();
  if (more && tables.cursor) query.set("cursor", tables.cursor);
  const asked = ++tables.asked;
  let page;
  try {
    page = (await api("GET", "/v1/games?" + query)).data;
  } catch (problem) {
    showProblem(problem);
    return;
  }
  if (asked !== tables.asked || !onScreen("lobby")) return;  // the filters changed meanwhile: the newer answer counts
  const list = $("tables");
  if (!more) list.replaceChildren();
  list.append(...page.games.map(tableItem));
  tables.cursor = page.next_cursor;
  $("more-tables").hidden = !page.next_cursor;
  $("no-tables").hidden = list.children.length > 0;
  list.dataset.loaded = String(asked);
}

/**
 * Sit down at an open table (joinGame, without a code: it is listed); to the table.
 * @param {string} gameId
 */
async function joinTable(gameId) {
  clearProblem();
  try {
    await api("POST", `/v1/games/${encodeURIComponent(gameId)}/join`, { body: {}, headers: newKey() });
    notice(t("play.joined_table"));
    location.hash = "game=" + encodeURIComponent(gameId);
  } catch (problem) {
    if (/** @type {{ code?: string }} */ (problem).code === "already_seated") {
      location.hash = "game=" + encodeURIComponent(gameId);
      return;
    }
    showProblem(problem);
    loadTables(false);
  }
}

export function setUpTables() {
  fillTimeControl("f-time");
  $("table-filters").addEventListener("change", () => loadTables(false));
  $("table-filters").addEventListener("submit", (event) => { event.preventDefault(); loadTables(false); });
  $("refresh-tables").addEventListener("click", () => loadTables(false));
  $("more-tables").addEventListener("click", () => loadTables(true));
}
