// "Share" on the game's page: the link to watch the game in the replay viewer (a spectator's view while it is played,
// the whole game once it is over) and the code that embeds it in another page, as getOEmbed gives it (an iframe of the
// viewer's embed mode), to copy.

import { $ } from "../core/dom.js";
import { t } from "../core/words.js";
import { api } from "./session.js";
import { notice } from "./ui.js";

/** The game whose code is shown (or being asked for), so that it is asked for once a game. */
let shown = "";

/**
 * The viewer's link for a game, on this origin.
 * @param {string} gameId
 */
export function watchLink(gameId) {
  return `${location.origin}/v1/games/${encodeURIComponent(gameId)}/replay/view`;
}

/**
 * Fill the share panel for the game on the table (its code asked for once).
 * @param {string} gameId
 */
export function renderShare(gameId) {
  const link = watchLink(gameId);
  $("watch-link", HTMLTextAreaElement).value = link;
  if (shown === gameId) return;
  shown = gameId;
  const code = $("embed-code", HTMLTextAreaElement);
  code.value = "";
  api("GET", `/v1/oembed?url=${encodeURIComponent(link)}`, { quiet: true }).then(
    (answer) => {
      const body = /** @type {{ html?: string }} */ (answer.data);
      if (shown === gameId && body && typeof body.html === "string") code.value = body.html;
    },
    () => { if (shown === gameId) shown = ""; },  // asked again at the next view
  );
}

/**
 * Copy a field's text, or select it where the clipboard is closed to the page.
 * @param {HTMLTextAreaElement} field
 * @param {string} copied the words said once it is copied
 */
async function copy(field, copied) {
  try {
    await navigator.clipboard.writeText(field.value);
    notice(t(copied));
  } catch (error) {
    field.select();
    notice(t("play.select_link"));
  }
}

export function setUpShare() {
  $("copy-watch-link").addEventListener("click", () => copy($("watch-link", HTMLTextAreaElement), "play.link_copied"));
  $("copy-embed-code").addEventListener("click", () => copy($("embed-code", HTMLTextAreaElement), "play.code_copied"));
}
