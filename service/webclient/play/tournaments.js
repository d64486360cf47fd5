// Tournaments: "#tournaments", the newest (listTournaments), and "#tournament=<id>", one of them (getTournament): enter
// or withdraw (joinTournament, withdrawFromTournament), your game of the round being played (getTournamentRound's
// your_game) and the standings with their tie-breaks (getTournamentStandings).  Anyone may read them; entering needs
// a player.  docs/tournaments.md states the rules.

import { $, h } from "../core/dom.js";
import { t } from "../core/words.js";
import { api, me } from "./session.js";
import { clearProblem, onScreen, screen, showProblem } from "./ui.js";

/** The tournament shown, and the last read asked for (an answer to an older one is dropped). */
const shown = { id: "", asked: 0 };

/** @param {string} status */
const statusWord = (status) => t("play.tournament_status." + status);

export async function showTournaments() {
  screen("tournaments");
  clearProblem();
  const asked = ++shown.asked;
  let page;
  try {
    page = (await api("GET", "/v1/tournaments?limit=20", { auth: false })).data;
  } catch (problem) {
    showProblem(problem);
    return;
  }
  if (asked !== shown.asked || !onScreen("tournaments")) return;
  const rows = page.tournaments.map((/** @type {Record<string, any>} */ x) =>
    h("tr", { "data-tournament": x.id, "data-status": x.status },
      h("td", {}, h("a", { href: "#tournament=" + encodeURIComponent(x.id), text: x.name })),
      h("td", { text: statusWord(x.status) }),
      h("td", { class: "num", text: `${x.entrants} / ${x.max_players}` })));
  $("tournament-rows").replaceChildren(...rows);
  $("tournament-list").hidden = rows.length === 0;
  $("tournaments-none").hidden = rows.length > 0;
}

/**
 * One tournament: its terms in a line, entering or withdrawing, your game of the round, the standings.
 * @param {string} id
 */
export async function showTournament(id) {
  screen("tournament");
  clearProblem();
  shown.id = id;
  const asked = ++shown.asked;
  const path = "/v1/tournaments/" + encodeURIComponent(id);
  let tournament;
  let standings;
  let round = null;
  try {
    [tournament, standings] = (await Promise.all([api("GET", path, { auth: false }), api("GET", path + "/standings", { auth: false })]))
      .map((answer) => answer.data);
    if (me() && tournament.started > 0) round = (await api("GET", `${path}/rounds/${tournament.started}`)).data;
  } catch (problem) {
    showProblem(problem);
    return;
  }
  if (asked !== shown.asked || !onScreen("tournament")) return;
  const player = me();
  const entry = player ? tournament.entrants.find((/** @type {{ player_id: string }} */ e) => e.player_id === player.id) : undefined;
  $("tournament-h").textContent = tournament.name;
  $("tournament-about").textContent = t("play.tournament_about", {
    status: statusWord(tournament.status), round: tournament.started, rounds: tournament.rounds, entrants: tournament.entrants.length,
  });
  $("tournament-join").hidden = !player || !!entry || tournament.status !== "entering";
  $("tournament-withdraw").hidden = !entry || entry.withdrawn !== null || tournament.status === "finished";
  $("tournament-entered").hidden = !entry || entry.withdrawn !== null;
  const game = round && !round.closed ? round.your_game : null;
  const link = $("tournament-game", HTMLAnchorElement);
  link.hidden = !game;
  link.href = game ? "#game=" + encodeURIComponent(game) : "#tournaments";
  const lines = standings.groups.flat();
  $("standings-rows").replaceChildren(...lines.map((/** @type {Record<string, any>} */ line) => standingRow(line, player)));
  $("standings").hidden = lines.length === 0;
  Object.assign($("tournament").dataset, { tournament: id, status: tournament.status, loaded: String(asked) });
}

/**
 * A line of the standings: rank, player (you marked; a withdrawal said), points, Buchholz, first places.
 * @param {Record<string, any>} line
 * @param {{ id: string } | null} player
 */
function standingRow(line, player) {
  const you = !!player && line.player_id === player.id;
  return h("tr", { "data-player": line.player_id, "data-you": you ? "true" : null },
    h("td", { class: "num", text: String(line.rank) }),
    h("td", { class: "who" }, h("a", { href: "#player=" + encodeURIComponent(line.player_id), text: line.name }),
      you ? " " + t("play.you_mark") : null, line.withdrawn ? h("small", { text: t("play.withdrawn") }) : null),
    h("td", { class: "num", text: String(line.points) }),
    h("td", { class: "num wide", text: String(line.buchholz) }),
    h("td", { class: "num wide", text: String(line.firsts) }));
}

/**
 * Enter, or withdraw from, the tournament shown; then show it again.
 * @param {"POST" | "DELETE"} method
 */
async function entry(method) {
  if (!me() || !shown.id) return;
  clearProblem();
  try {
    await api(method, `/v1/tournaments/${encodeURIComponent(shown.id)}/entries`);
  } catch (problem) {
    showProblem(problem);
    return;
  }
  await showTournament(shown.id);
}

export function setUpTournaments() {
  $("tournament-join").addEventListener("click", () => entry("POST"));
  $("tournament-withdraw").addEventListener("click", () => entry("DELETE"));
}
