// Home, "#play": a new game (against one to three AIs or with friends; an open seat gives a share link) and your
// games; and "#join=<game>:<code>", a share link that seats whoever opens it.

import { $, h } from "../core/dom.js";
import { t } from "../core/words.js";
import { aiLevels, timeControl } from "./format.js";
import { showNotices } from "./notices.js";
import { api, newKey } from "./session.js";
import { openGame } from "./table.js";
import { clearProblem, fillTimeControl, notice, screen, showProblem } from "./ui.js";

/** @type {string | null} the next page of your games */
let gamesCursor = null;

/** The seats after yours, as many as the game has players: an AI of a level, or a friend. */
function seatChoices() {
  const box = $("seat-choices");
  const previous = Array.from(box.querySelectorAll("select")).map((select) => select.value);
  box.replaceChildren();
  const players = Number($("players", HTMLSelectElement).value);
  const levels = aiLevels();
  for (let n = 1; n < players; n += 1) {
    const id = `seat-${n}`;
    const select = /** @type {HTMLSelectElement} */ (h("select", { id, name: id },
      ...Object.entries(levels).map(([level, label]) => h("option", { value: `ai:${level}`, text: label })),
      h("option", { value: "human", text: t("play.a_friend") })));
    select.value = previous[n - 1] || "ai:greedy";
    box.append(h("div", { class: "field" }, h("label", { for: id, text: t("play.player_n", { n: n + 1 }) }), select));
  }
}

/** @param {SubmitEvent} event */
async function createGame(event) {
  event.preventDefault();
  clearProblem();
  /** @type {Record<string, string>[]} */
  const seats = [{ kind: "human" }];
  for (const select of $("seat-choices").querySelectorAll("select")) {
    seats.push(select.value === "human" ? { kind: "human" } : { kind: "ai", level: select.value.slice(3) });
  }
  const variant = /** @type {HTMLInputElement} */ (document.querySelector('input[name="variant"]:checked')).value;
  const body = {
    seats, variant, action_rules: $("action-rules", HTMLInputElement).checked, ...timeControl($("time-control", HTMLSelectElement).value),
    listed: $("listed", HTMLInputElement).checked, rated: $("rated", HTMLInputElement).checked,
  };
  const button = $("create", HTMLButtonElement);
  button.disabled = true;
  try {
    const game = (await api("POST", "/v1/games", { body, headers: newKey() })).data;
    location.hash = "game=" + encodeURIComponent(game.id);
  } catch (problem) {
    showProblem(problem);
  } finally {
    button.disabled = false;
  }
}

/** Your games and a new game. */
export async function showHome() {
  screen("home");
  if (!$("seat-choices").children.length) seatChoices();
  showNotices();
  await loadGames(false);
}

/**
 * A game of yours as an item of the list: its players, rules and round, and where it stands.
 * @param {Record<string, any>} game
 */
function gameSummary(game) {
  const status = game.status === "active" && game.your_turn ? t("play.s.your_turn")
    : game.status === "active" ? t("play.s.in_play")
      : game.status === "waiting" ? t("play.s.waiting")
        : game.status === "finished" ? (game.winner === null ? t("play.s.finished") : t("play.s.won", { player: game.seats[game.winner] }))
          : game.status === "aborted" ? t("play.s.aborted") : t("play.s.called_off");
  const variant = game.variant === "basic" ? t("play.w.basic") : game.variant === "advanced" ? t("play.w.advanced") : game.variant;
  const detail = game.round ? t("play.variant_round", { variant, round: game.round }) : variant;
  return h("li", { "data-game": game.id, "data-your-turn": game.your_turn ? "true" : "false", "data-status": game.status },
    h("a", { href: "#game=" + encodeURIComponent(game.id) },
      h("span", {}, h("span", { class: "game-players", text: game.seats.join(" · ") }), h("br"),
        h("span", { class: "muted", text: detail })),
      h("span", { class: "badge" + (game.your_turn ? " yours" : ""), text: status })));
}

/**
 * A page of your games (listMyGames; ``more``: the next one).
 * @param {boolean} more
 */
async function loadGames(more) {
  const list = $("games");
  try {
    const query = more && gamesCursor ? `?cursor=${encodeURIComponent(gamesCursor)}` : "";
    const page = (await api("GET", "/v1/players/me/games" + query)).data;
    if (!more) list.replaceChildren();
    for (const game of page.games) list.append(gameSummary(game));
    gamesCursor = page.next_cursor;
    $("more-games").hidden = !gamesCursor;
    $("no-games").hidden = list.children.length > 0;
  } catch (problem) {
    showProblem(problem);
  }
}

/**
 * A share link's game joined with its code (joinGame), then its table; the code leaves the address bar.
 * @param {string} value "<game>:<code>"
 */
export async function join(value) {
  const split = value.indexOf(":");
  const gameId = split > 0 ? value.slice(0, split) : "";
  const code = split > 0 ? value.slice(split + 1) : "";
  if (!gameId || !code) {
    showProblem({ title: t("play.link_incomplete"), detail: t("play.ask_again") });
    history.replaceState(null, "", location.pathname + location.search);  // ?lang= kept
    return showHome();
  }
  try {
    await api("POST", `/v1/games/${encodeURIComponent(gameId)}/join`, { body: { code } });
    notice(t("play.joined_game"));
  } catch (problem) {
    const refused = /** @type {{ code?: string, status?: number }} */ (problem);
    if (refused.code !== "already_seated") {
      showProblem(problem);
      if (refused.status === 404 || refused.code === "bad_join_code") {
        history.replaceState(null, "", location.pathname + location.search);  // ?lang= kept
        return showHome();
      }
    }
  }
  history.replaceState(null, "", "#game=" + encodeURIComponent(gameId));  // the join code leaves the address bar
  return openGame(gameId);
}

export function setUpHome() {
  fillTimeControl("time-control");
  $("players").addEventListener("change", seatChoices);
  $("new-game").addEventListener("submit", createGame);
  $("refresh-games").addEventListener("click", () => loadGames(false));
  $("more-games").addEventListener("click", () => loadGames(true));
}
