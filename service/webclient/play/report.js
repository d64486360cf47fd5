// Reporting a player (createReport): from a seat at a table, from one of their messages, or from their profile.  A
// dialog asks for a reason code and an optional comment, says what is reported, and confirms once it is sent: a
// moderator reads it (with its evidence, kept as it was) within a day.  The reported player is not told who.

import { $ } from "../core/dom.js";
import { t } from "../core/words.js";
import { api } from "./session.js";
import { notice, showProblem } from "./ui.js";

/** The API's report reasons (createReport's reason). */
export const REASONS = Object.freeze(["harassment", "offensive_name", "cheating", "stalling", "other"]);
/** The longest comment the API takes. */
export const MAX_COMMENT = 1000;

/**
 * What a report is about: the player (id or handle) and their name; at a game, and maybe one of their messages.
 * @typedef {{ player: string, name: string, gameId?: string, messageId?: string, words?: string }} Reported
 */

/** @type {Reported | null} */
let reported = null;

/**
 * Ask about a report of ``about``.
 * @param {Reported} about
 */
export function openReport(about) {
  const dialog = $("report-dialog", HTMLDialogElement);
  if (dialog.open) return;
  reported = about;
  $("report-title").textContent = about.messageId ? t("play.report_message", { name: about.name }) : t("play.report_player", { name: about.name });
  $("report-quote").hidden = !about.words;
  $("report-quote").textContent = about.words || "";
  $("report-reason", HTMLSelectElement).value = about.messageId ? "harassment" : "other";
  $("report-comment", HTMLTextAreaElement).value = "";
  $("report-form").hidden = false;
  $("report-done").hidden = true;
  dialog.showModal();
  $("report-reason").focus();
}

async function send() {
  if (!reported) return;
  /** @type {Record<string, string>} */
  const body = { player: reported.player, reason: $("report-reason", HTMLSelectElement).value };
  const comment = $("report-comment", HTMLTextAreaElement).value.trim();
  if (comment) body.comment = comment;
  if (reported.gameId) body.game_id = reported.gameId;
  if (reported.messageId) body.message_id = reported.messageId;
  try {
    await api("POST", "/v1/reports", { body });
    $("report-form").hidden = true;
    $("report-done").hidden = false;
    $("report-ok").focus();
    notice(t("play.report_sent"));
  } catch (problem) {
    $("report-dialog", HTMLDialogElement).close();
    showProblem(problem);
  }
}

export function setUpReport() {
  const select = $("report-reason", HTMLSelectElement);
  select.replaceChildren(...REASONS.map((reason) => new Option(t("play.reason." + reason), reason)));
  $("report-comment", HTMLTextAreaElement).maxLength = MAX_COMMENT;
  $("report-form").addEventListener("submit", (event) => { event.preventDefault(); send(); });
  $("report-cancel").addEventListener("click", () => $("report-dialog", HTMLDialogElement).close());
  $("report-ok").addEventListener("click", () => $("report-dialog", HTMLDialogElement).close());
}
