// The lobby, "#lobby": where players find each other.  Quick match (quick-match.js), the challenges received and
// sent and the players found (challenges.js), the open tables (tables.js), your handle, and deleting your account.

import { $, h } from "../core/dom.js";
import { t } from "../core/words.js";
import { focusChallenge, openChallenges } from "./challenges.js";
import { openQuickMatch, tickTickets } from "./quick-match.js";
import { api, me, reloadMe, savePlayer, signedIn } from "./session.js";
import { HANDLE_CODES, forgetPlayer } from "./signup.js";
import { loadTables } from "./tables.js";
import { clearProblem, confirmStep, every, fieldError, notice, onScreen, screen, showProblem } from "./ui.js";

/** The lobby: drawn, its challenges and tickets as the player's feed says them (feed.js), the tickets' clocks ticking. */
export async function showLobby() {
  screen("lobby");
  openChallenges();
  renderMe();
  reloadMe().then(renderMe, () => {});
  openQuickMatch();
  await loadTables(false);
  if (!onScreen("lobby")) return;  // a game just found opened meanwhile
  every(1000, tickTickets);
  focusChallenge();
}

/** How others find you: your handle (a link to your profile), or that you have none yet. */
function renderMe() {
  const player = me();
  if (!player) return;
  const line = $("me-line");
  $("me-panel").dataset.handle = player.handle ? "yes" : "none";
  if (player.handle) {
    const [before, after] = t("play.others_find_you").split("%(handle)s");
    line.replaceChildren(before, h("a", { href: "#player=" + encodeURIComponent(player.handle), text: "@" + player.handle }), after || "");
  } else line.textContent = t("play.no_handle_yet", { name: player.name });
  const input = $("handle-input", HTMLInputElement);
  if (document.activeElement !== input) input.value = player.handle || "";
}

/** @param {SubmitEvent} event */
async function saveHandle(event) {
  event.preventDefault();
  clearProblem();
  fieldError("handle-input", null);
  const handle = $("handle-input", HTMLInputElement).value.trim().replace(/^@/, "");
  const button = $("handle-save", HTMLButtonElement);
  button.disabled = true;
  try {
    const updated = (await api("PATCH", "/v1/players/me", { body: { handle: handle || null } })).data;
    savePlayer({ ...signedIn(), name: updated.name, handle: updated.handle || null });
    renderMe();
    notice(updated.handle ? t("play.handle_is", { handle: "@" + updated.handle }) : t("play.no_handle_now"));
  } catch (problem) {
    const refused = /** @type {{ code?: string }} */ (problem);
    if (refused.code && HANDLE_CODES.has(refused.code)) fieldError("handle-input", refused);
    else showProblem(problem);
  } finally {
    button.disabled = false;
  }
}

async function deleteAccount() {
  const sure = await confirmStep(t("play.delete_q"), t("play.delete_text"), t("play.delete_my_account"));
  if (!sure) return;
  try {
    await api("DELETE", "/v1/players/me");
  } catch (problem) {
    if (/** @type {{ status?: number }} */ (problem).status !== 401) { showProblem(problem); return; }
  }
  forgetPlayer(t("play.account_deleted"), true);
}

export function setUpLobby() {
  $("handle-form").addEventListener("submit", saveHandle);
  $("delete-account").addEventListener("click", deleteAccount);
}
