// What every screen of /play shares: the screens themselves, the problem and notice lines, the question before a
// step that cannot be undone, a refusal said under its field, the timers of a screen, and cards.

import { $, h } from "../core/dom.js";
import { cardName } from "../core/rules.js";
import { counted, t } from "../core/words.js";
import { matchTimeControls, timeControls } from "./format.js";

/** @import { Choice } from "./format.js" */

/**
 * Each screen is a <section class="screen"> of <main>: show ``name``'s, mark its link in the nav.
 * @param {string} name
 */
export function screen(name) {
  document.body.dataset.screen = name;
  for (const section of document.querySelectorAll("main > .screen")) /** @type {HTMLElement} */ (section).hidden = section.id !== name;
  for (const link of document.querySelectorAll("#nav a")) {
    if (/** @type {HTMLElement} */ (link).dataset.nav === name) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
}

/**
 * Whether ``name``'s screen is the one shown (a read that comes back after the player left it draws nothing).
 * @param {string} name
 */
export const onScreen = (name) => document.body.dataset.screen === name;

/**
 * A refusal, or anything that failed, as the problem line says it: a Problem's title and detail.
 * @typedef {{ title?: string, detail?: string, code?: string | null, name?: string, message?: string }} Shown
 */

/**
 * Show a problem at the top of the page (nothing for a call given up on purpose).
 * @param {unknown} problem
 */
export function showProblem(problem) {
  const shown = /** @type {Shown} */ (problem || {});
  if (shown.name === "AbortError") return;
  $("problem-title").textContent = shown.title || t("play.went_wrong");
  $("problem-detail").textContent = shown.detail || (shown.title ? "" : String(shown.message || problem));
  $("problem").hidden = false;
}

export function clearProblem() {
  $("problem").hidden = true;
}

/** @type {ReturnType<typeof setTimeout> | undefined} */
let noticeTimer;

/**
 * A line that says what just happened, read out by screen readers; gone after 8 s.
 * @param {string} text
 */
export function notice(text) {
  $("notice").textContent = text;
  clearTimeout(noticeTimer);
  noticeTimer = setTimeout(() => { $("notice").textContent = ""; }, 8000);
}

/**
 * An in-page confirmation (a modal dialog: keyboard and screen-reader friendly); resolves true or false.
 * @param {string} title
 * @param {string} text
 * @param {string} yes
 * @returns {Promise<boolean>}
 */
export function confirmStep(title, text, yes) {
  const dialog = $("confirm", HTMLDialogElement);
  if (dialog.open) return Promise.resolve(false);  // one question at a time
  $("confirm-title").textContent = title;
  $("confirm-text").textContent = text;
  $("confirm-yes").textContent = yes;
  return new Promise((resolve) => {
    /** @param {boolean} answer */
    const done = (answer) => {
      $("confirm-yes").removeEventListener("click", onYes);
      $("confirm-no").removeEventListener("click", onNo);
      dialog.removeEventListener("cancel", onCancel);
      if (dialog.open) dialog.close();
      resolve(answer);
    };
    const onYes = () => done(true);
    const onNo = () => done(false);
    /** @param {Event} event */
    const onCancel = (event) => { event.preventDefault(); done(false); };
    $("confirm-yes").addEventListener("click", onYes);
    $("confirm-no").addEventListener("click", onNo);
    dialog.addEventListener("cancel", onCancel);
    dialog.showModal();
    $("confirm-no").focus();
  });
}

/**
 * A refusal about one field, said under it (and tied to it for screen readers); null clears it.
 * @param {string} field the field's id (its words: "<id>-error")
 * @param {Shown | null} problem
 */
export function fieldError(field, problem) {
  const input = $(field);
  const said = $(field + "-error");
  said.hidden = !problem;
  said.textContent = problem ? problem.detail || problem.title || "" : "";
  said.dataset.code = problem ? problem.code || "" : "";
  if (problem) { input.setAttribute("aria-invalid", "true"); input.focus(); } else input.removeAttribute("aria-invalid");
}

// What a screen does again and again (the lobby's ticket clocks, a rated game's reads until its ladder has it): stopped by the next
// route, and skipped while the tab is not shown.  A plain read each time, which holds no wait slot of the player's.
/** @type {Set<ReturnType<typeof setInterval>>} */
const timers = new Set();

/**
 * Run ``task`` every ``ms`` while the tab is shown, until the screen changes.
 * @param {number} ms
 * @param {() => unknown} task
 */
export function every(ms, task) {
  const id = setInterval(() => { if (document.visibilityState === "visible") task(); }, ms);
  timers.add(id);
  return id;
}

/** @param {ReturnType<typeof setInterval> | undefined} id */
export function stopEvery(id) {
  clearInterval(id);
  if (id !== undefined) timers.delete(id);
}

export function clearTimers() {
  for (const id of timers) clearInterval(id);
  timers.clear();
}

/**
 * A card as an item of a list: its number and letter, its name for screen readers, and whether it counts under the
 * rule and is new since your last turn.
 * @param {string} card
 * @param {boolean} qualifying
 * @param {boolean} arrived
 */
export function cardItem(card, qualifying, arrived) {
  const said = [cardName(card), qualifying ? t("play.counts") : null, arrived ? t("play.new_since") : null].filter(Boolean);
  return h("li", {
    class: `card c-${card[0]}`, "data-card": card, "data-qualifying": qualifying ? "true" : null, "data-new": arrived ? "true" : null,
    title: said.join(", "),
  },
  h("span", { class: "sr-only", text: said[0] + (said.length > 1 ? ` (${said.slice(1).join(", ")})` : "") }),
  h("span", { "aria-hidden": "true" }, card.slice(1), h("small", { text: card[0] })));
}

/**
 * A list of cards; ``arrived``: those to mark as new since your last turn.
 * @param {string[]} cards
 * @param {string[] | null} qualifying
 * @param {string} emptyText
 * @param {Set<string>} [arrived]
 */
export function cardList(cards, qualifying, emptyText, arrived) {
  const list = h("ul", { class: "cards" });
  if (!cards.length && emptyText) list.append(h("li", { class: "none", text: emptyText }));
  const counts = new Set(qualifying || []);
  for (const card of cards) list.append(cardItem(card, counts.has(card), !!arrived && arrived.has(card)));
  const fresh = arrived ? cards.filter((card) => arrived.has(card)).length : 0;
  if (fresh) list.append(h("li", { class: "new-count", "aria-hidden": "true", text: counted("new_card", fresh) }));  // each card says it too
  return list;
}

/**
 * A select's options, from [value, label] choices.
 * @param {HTMLSelectElement} select
 * @param {Choice[]} choices
 */
export function fillChoices(select, choices) {
  for (const [value, label] of choices) select.append(h("option", { value, text: label }));
}

/**
 * A time-control select, by the kind its markup says (data-time-control): a game's ("no limit" first), a filter's
 * ("any" first), or quick match's.
 * @param {string} id
 */
export function fillTimeControl(id) {
  const select = $(id, HTMLSelectElement);
  const kind = select.dataset.timeControl;
  /** @type {Choice} */
  const first = kind === "filter" ? ["", t("play.any")] : ["", t("play.no_limit")];
  fillChoices(select, kind === "match" ? matchTimeControls() : [first, ...timeControls()]);
}

/** What the page does with its shared parts once: the problem line's close button. */
/**
 * A rated game that did not move a rating, and why (only established opponents and AI levels count; three games a
 * day against the same player at most).
 * @param {string} why "no_established_opponent" or "pair_limit"
 */
export function notCounted(why) {
  const said = t(why === "pair_limit" ? "play.not_counted_pair_limit" : "play.not_counted_no_established_opponent");
  return h("small", { class: "muted not-counted", title: said, "data-why": why }, t("play.not_counted"),
    h("span", { class: "sr-only", text: ": " + said }));
}

export function setUpUi() {
  $("problem-close").addEventListener("click", clearProblem);
}
