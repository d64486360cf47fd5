// The moderators' screen, "#moderation": the open reports oldest first (listReports), each with how long it has
// waited against the 24-hour target and the evidence it kept (the name then, the messages, the game), an action for
// each (decideReport: dismiss, warn, force a rename, mute or suspend for a while, ban) with its reason; and the audit
// log (listModerationLog).  The queue comes a page at a time ("More reports": its next_cursor); reports and the log
// name the players as they are now beside what the evidence kept (a deleted account's name is gone).  The server checks the role on every call: for anyone else the screen says so, and the
// nav shows its link only to a moderator (getMe's ``moderator``).

import { $, h } from "../core/dom.js";
import { counted, t } from "../core/words.js";
import { api } from "./session.js";
import { confirmStep, notice, onScreen, screen, showProblem } from "./ui.js";

/** What a moderator may do about a report (decideReport's action). */
export const ACTIONS = Object.freeze(["dismiss", "warn", "rename", "mute", "suspend", "ban"]);
/** What a moderator may do to a player without a report (moderatePlayer's action): lifting a ban too. */
export const PLAYER_ACTIONS = Object.freeze(["warn", "rename", "mute", "suspend", "ban", "unban"]);
/** The actions that last a while, and the whiles offered (seconds). */
const TIMED = new Set(["mute", "suspend"]);
export const PERIODS = Object.freeze([3600, 86400, 7 * 86400, 30 * 86400]);

/**
 * How long something has waited, in its largest unit: "5 minutes", "3 hours", "2 days".
 * @param {number} seconds
 */
export function ageWords(seconds) {
  if (seconds < 3600) return counted("minutes", Math.floor(seconds / 60));
  if (seconds < 2 * 86400) return counted("hours", Math.floor(seconds / 3600));
  return counted("days", Math.floor(seconds / 86400));
}

/** @param {number} seconds a period offered, in words */
const periodWords = (seconds) => (seconds % 86400 === 0 ? counted("days", seconds / 86400) : counted("hours", seconds / 3600));

/** How many open reports a page of the queue brings. */
export const QUEUE_PAGE = 50;
/** @type {string | null} the queue's next page (listReports' next_cursor), null after the last */
let queueNext = null;

/**
 * Who an id names, as shown: their name now, or what the id is when no account has it (now).
 * @param {string} id
 * @param {string | null | undefined} name
 */
export function nameOf(id, name) {
  if (name) return name;
  if (id === "operator") return t("play.mod_operator");
  if (id === "filter") return t("play.mod_filter");
  return t("play.mod_no_name");
}

export async function showModeration() {
  screen("moderation");
  $("mod-denied").hidden = true;
  $("mod-body").hidden = true;
  try {
    const [queue, log] = await Promise.all([api("GET", `/v1/reports?limit=${QUEUE_PAGE}`), api("GET", "/v1/moderation/log?limit=200")]);
    if (!onScreen("moderation")) return;
    drawQueue(queue.data.reports, queue.data.next_cursor);
    drawLog(log.data.entries);
    $("mod-body").hidden = false;
  } catch (problem) {
    if (/** @type {{ code?: string }} */ (problem).code === "not_a_moderator") $("mod-denied").hidden = false;
    else showProblem(problem);
  }
}

/**
 * @param {Record<string, any>[]} reports the open reports, oldest first: the queue's first page
 * @param {string | null} next the cursor of the page after it
 */
function drawQueue(reports, next) {
  $("mod-queue").replaceChildren(...reports.map(reportItem));
  moreShown(next);
}

/** @param {string | null} next the queue's next page, if any: the "More reports" button shown for it */
function moreShown(next) {
  queueNext = next;
  $("mod-more").hidden = !next;
  $("mod-none").hidden = $("mod-queue").children.length > 0 || !!next;
}

/** The queue's next page, after those shown (a place in the queue: reports decided meanwhile move none of these). */
async function moreReports() {
  if (!queueNext) return;
  try {
    const page = (await api("GET", `/v1/reports?limit=${QUEUE_PAGE}&cursor=${encodeURIComponent(queueNext)}`)).data;
    if (!onScreen("moderation")) return;
    const shown = new Set([...$("mod-queue").children].map((item) => /** @type {HTMLElement} */ (item).dataset.report));
    $("mod-queue").append(...page.reports.filter((/** @type {any} */ r) => !shown.has(r.id)).map(reportItem));
    moreShown(page.next_cursor);
  } catch (problem) {
    showProblem(problem);
  }
}

/** @param {Record<string, any>} report one report with its evidence and the form that decides it */
function reportItem(report) {
  const evidence = report.evidence;
  const who = evidence.handle ? `${evidence.name} (@${evidence.handle})` : evidence.name;
  const now = report.reported_name === evidence.name ? null : nameOf(report.reported_id, report.reported_name);
  const id = report.id;
  const action = h("select", { id: `mod-action-${id}`, "data-action": id },
    ...ACTIONS.map((code) => h("option", { value: code, text: t("play.mod_action." + code) })));
  const period = h("select", { id: `mod-period-${id}`, "data-period": id },
    ...PERIODS.map((seconds) => h("option", { value: String(seconds), text: periodWords(seconds) })));
  const periodField = h("div", { class: "field", hidden: true },
    h("label", { for: `mod-period-${id}`, text: t("play.mod_for_how_long") }), period);
  action.addEventListener("change", () => { periodField.hidden = !TIMED.has(/** @type {HTMLSelectElement} */ (action).value); });
  const why = h("input", { type: "text", id: `mod-why-${id}`, "data-why": id, required: true, maxlength: 1000 });
  const form = h("form", { class: "mod-decide", "data-report": id },
    h("div", { class: "field" }, h("label", { for: `mod-action-${id}`, text: t("play.mod_action") }), action),
    periodField,
    h("div", { class: "field" }, h("label", { for: `mod-why-${id}`, text: t("play.mod_why") }), why),
    h("button", { type: "submit", class: "danger", text: t("play.mod_decide") }));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    decide(report, /** @type {HTMLSelectElement} */ (action).value, /** @type {HTMLInputElement} */ (why).value.trim(),
      Number(/** @type {HTMLSelectElement} */ (period).value), who);
  });
  return h("li", { "data-report": id, class: report.overdue ? "overdue" : null },
    h("p", {},
      h("strong", { text: t("play.reason." + report.reason) }), " · ",
      h("span", { "data-reported": report.reported_id, text: t("play.mod_reported", { name: who }) }),
      now ? h("span", { class: "muted", "data-now": "", text: " " + t("play.mod_now", { name: now }) }) : null, " · ",
      h("span", { "data-reporter": report.reporter_id, text: t("play.mod_reported_by", { name: nameOf(report.reporter_id, report.reporter_name) }) }), " · ",
      h("span", { "data-age": report.age_seconds, text: t("play.mod_waiting", { time: ageWords(report.age_seconds) }) }),
      report.overdue ? h("span", { class: "badge overdue", text: t("play.mod_overdue") }) : null),
    report.comment ? h("p", { class: "muted", text: t("play.mod_comment", { comment: report.comment }) }) : null,
    evidence.messages.length ? h("ul", { class: "evidence", "aria-label": t("play.mod_evidence") },
      ...evidence.messages.map((/** @type {Record<string, any>} */ m) => h("li", { text: String(m.text ?? m.phrase ?? "") }))) : null,
    evidence.game_id ? h("p", {}, h("a", {
      href: `/replay?game=${encodeURIComponent(evidence.game_id)}`, text: t("play.mod_game", { game: evidence.game_id, version: evidence.game_version ?? "—" }),
    })) : null,
    form);
}

/**
 * Ask first (the player is told, a ban ends their games), then send ``body`` to ``path``; the screen read again.
 * @param {string} path
 * @param {{ action: string, reason: string, seconds?: number }} body
 * @param {string} who
 * @returns {Promise<boolean>} whether it was done
 */
async function act(path, body, who) {
  const sure = await confirmStep(t("play.mod_confirm_title", { action: t("play.mod_action." + body.action), name: who }),
    t("play.mod_confirm_text"), t("play.mod_action." + body.action));
  if (!sure) return false;
  if (!TIMED.has(body.action)) delete body.seconds;
  try {
    await api("POST", path, { body });
    notice(t("play.mod_done"));
    await showModeration();
    return true;
  } catch (problem) {
    showProblem(problem);
    return false;
  }
}

/**
 * Decide ``report`` with ``action`` (asked first: the reported player is told, and a ban ends their games).
 * @param {Record<string, any>} report
 * @param {string} action
 * @param {string} reason
 * @param {number} seconds
 * @param {string} who
 */
async function decide(report, action, reason, seconds, who) {
  await act(`/v1/reports/${encodeURIComponent(report.id)}/decision`, { action, reason, seconds }, who);
}

/** @param {Record<string, any>[]} entries the audit log, oldest first: shown newest first */
function drawLog(entries) {
  $("mod-log-none").hidden = entries.length > 0;
  $("mod-log").replaceChildren(...[...entries].reverse().map((entry) => h("tr", { "data-action": entry.action },
    h("td", { text: new Date(entry.at).toLocaleString() }),
    h("td", { title: entry.by, "data-id": entry.by, text: nameOf(entry.by, entry.by_name) }),
    h("td", { text: t("play.mod_action." + entry.action) }),
    h("td", { title: entry.player_id, "data-id": entry.player_id, text: nameOf(entry.player_id, entry.player_name) }),
    h("td", { text: entry.reason }),
    h("td", { text: entry.until ? new Date(entry.until).toLocaleString() : "—" }))));
}

export function setUpModeration() {
  $("mod-more").addEventListener("click", moreReports);
  const action = $("mod-act-action", HTMLSelectElement);
  action.replaceChildren(...PLAYER_ACTIONS.map((code) => new Option(t("play.mod_action." + code), code)));
  $("mod-act-period", HTMLSelectElement).replaceChildren(...PERIODS.map((seconds) => new Option(periodWords(seconds), String(seconds))));
  action.addEventListener("change", () => { $("mod-act-period-field").hidden = !TIMED.has(action.value); });
  $("mod-act").addEventListener("submit", async (event) => {
    event.preventDefault();
    const who = $("mod-act-player", HTMLInputElement).value.trim();
    const body = { action: action.value, reason: $("mod-act-why", HTMLInputElement).value.trim(), seconds: Number($("mod-act-period", HTMLSelectElement).value) };
    if (!who || !body.reason) return;
    if (await act(`/v1/players/${encodeURIComponent(who)}/moderation`, body, who)) {
      $("mod-act-player", HTMLInputElement).value = "";
      $("mod-act-why", HTMLInputElement).value = "";
    }
  });
}
