// Safety on a profile: another player's profile blocks or mutes them (blockPlayer, mutePlayer) and lifts either; your
// own profile says who may challenge you and talk to you at a table (updateMe's challenge_from, talk_from). A block is
// private: nothing here is shown to the player blocked.

import { $ } from "../core/dom.js";
import { t } from "../core/words.js";
import { openReport } from "./report.js";
import { api, me } from "./session.js";
import { notice, showProblem } from "./ui.js";

/** Pages of a list read at most to find a player in it (100 a page: a list holds 1,000 at most). */
const PAGES = 10;

/** @type {{ id: string, name: string, blocked: boolean, muted: boolean } | null} the player whose profile is shown, as you keep them */
let other = null;

/**
 * Whether ``playerId`` is in your list ``which`` (blocks or mutes), read a page at a time.
 * @param {"blocks" | "mutes"} which
 * @param {string} playerId
 * @returns {Promise<boolean>}
 */
async function listed(which, playerId) {
  /** @type {string | null} */
  let cursor = null;
  for (let page = 0; page < PAGES; page++) {
    /** @type {string} */
    const query = `list=${which}&limit=100` + (cursor ? `&cursor=${encodeURIComponent(cursor)}` : "");
    /** @type {{ players: { id: string }[], next_cursor: string | null }} */
    const data = (await api("GET", `/v1/players/me/blocks?${query}`)).data;
    if (data.players.some((entry) => entry.id === playerId)) return true;
    cursor = data.next_cursor;
    if (!cursor) return false;
  }
  return false;
}

/** The block and mute buttons as the shown player stands with you. */
function renderButtons() {
  if (!other) return;
  $("profile-block").textContent = t(other.blocked ? "play.unblock" : "play.block");
  $("profile-block").dataset.blocked = String(other.blocked);
  $("profile-mute").textContent = t(other.muted ? "play.unmute" : "play.mute");
  $("profile-mute").dataset.muted = String(other.muted);
  $("profile-blocked-note").hidden = !other.blocked;
}

/**
 * A profile's safety: the block and mute buttons on another player's, the reach settings on your own.
 * @param {{ id: string, name?: string }} player
 */
export async function renderSafety(player) {
  const you = me();
  other = null;
  $("profile-safety").hidden = true;
  $("profile-reach").hidden = true;
  if (!you) return;
  if (player.id === you.id) {
    const mine = (await api("GET", "/v1/players/me")).data;
    $("reach-challenge", HTMLSelectElement).value = mine.challenge_from;
    $("reach-talk", HTMLSelectElement).value = mine.talk_from;
    $("reach-saved").hidden = true;
    $("profile-reach").hidden = false;
    return;
  }
  const [blocked, muted] = await Promise.all([listed("blocks", player.id), listed("mutes", player.id)]);
  other = { id: player.id, name: player.name || player.id, blocked, muted };
  renderButtons();
  $("profile-safety").hidden = false;
}

/**
 * Add the shown player to your list ``which``, or take them off it.
 * @param {"blocks" | "mutes"} which
 */
async function toggle(which) {
  if (!other) return;
  const on = which === "blocks" ? other.blocked : other.muted;
  try {
    await api(on ? "DELETE" : "PUT", `/v1/players/me/${which}/${encodeURIComponent(other.id)}`);
    if (which === "blocks") other.blocked = !on;
    else other.muted = !on;
    renderButtons();
    const said = { blocks: ["play.blocked", "play.unblocked"], mutes: ["play.muted", "play.unmuted"] }[which];
    notice(t(on ? said[1] : said[0]));
  } catch (problem) {
    showProblem(problem);
  }
}

export function setUpSafety() {
  $("profile-block").addEventListener("click", () => toggle("blocks"));
  $("profile-mute").addEventListener("click", () => toggle("mutes"));
  $("profile-report").addEventListener("click", () => { if (other) openReport({ player: other.id, name: other.name }); });
  $("profile-reach").addEventListener("submit", async (event) => {
    event.preventDefault();
    const body = { challenge_from: $("reach-challenge", HTMLSelectElement).value, talk_from: $("reach-talk", HTMLSelectElement).value };
    try {
      await api("PATCH", "/v1/players/me", { body });
      $("reach-saved").hidden = false;
    } catch (problem) {
      showProblem(problem);
    }
  });
}
