// Your mistakes, "#mistakes=<inaccuracy|mistake|blunder>" (listMyMistakes, five finished games a page, newest
// first): your own labelled decisions across your analysed games, the least label shown chosen (mistake unless
// asked); the page's games without an analysis listed with a button that asks for it.

import { $, h } from "../core/dom.js";
import { LABELS, verdict } from "../core/rules.js";
import { language, t } from "../core/words.js";
import { awaitAnalysis } from "./analysis.js";
import { dayWords } from "./format.js";
import { currentRoute } from "./router.js";
import { api } from "./session.js";
import { stepsWords } from "./slips.js";
import { clearProblem, screen, showProblem } from "./ui.js";

const SLIPS_GAMES = 5;  // finished games a page looks at: each is an analysis for the server to read
const slips = {
  label: "mistake",
  /** @type {string | null} */
  cursor: null,
  /** the last page asked for: an answer to an older one is dropped */
  asked: 0,
};
const onMistakes = () => currentRoute()[0] === "mistakes";

/**
 * Your mistakes from the label ``value`` up (mistake unless it names a label).
 * @param {string} value
 */
export async function showMistakes(value) {
  const label = LABELS.includes(value) ? value : "mistake";
  screen("mistakes");
  slips.label = label;
  $("mistakes-state").textContent = "";
  for (const link of document.querySelectorAll("#mistakes .tabs a")) {
    if (/** @type {HTMLElement} */ (link).dataset.label === label) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  await loadMistakes(false);
}

/**
 * A page of your mistakes (``more``: the games after those shown, by the last page's next_cursor).
 * @param {boolean} more
 */
async function loadMistakes(more) {
  clearProblem();
  const query = new URLSearchParams({ label: slips.label, games: String(SLIPS_GAMES) });
  if (more && slips.cursor) query.set("cursor", slips.cursor);
  const asked = ++slips.asked;
  const button = $("slips-more", HTMLButtonElement);
  button.disabled = true;
  let page;
  try {
    page = (await api("GET", `/v1/players/me/mistakes?${query}`)).data;
  } catch (problem) {
    if (asked === slips.asked) showProblem(problem);
    return;
  } finally {
    if (asked === slips.asked) button.disabled = false;
  }
  if (asked !== slips.asked || !onMistakes()) return;  // another page was asked for meanwhile
  const items = page.mistakes.map(slipItem);
  const waiting = page.unanalysed.map(unanalysedItem);
  if (more) {
    $("slips").append(...items);
    $("unanalysed-games").append(...waiting);
  } else {
    $("slips").replaceChildren(...items);
    $("unanalysed-games").replaceChildren(...waiting);
  }
  slips.cursor = page.next_cursor;
  button.hidden = !page.next_cursor;
  const empty = $("slips").children.length === 0;
  $("slips").hidden = empty;
  $("slips-none").hidden = !empty;
  $("slips-none").textContent = t(page.next_cursor ? "play.mistakes_none_more" : "play.mistakes_none");
  $("unanalysed").hidden = $("unanalysed-games").children.length === 0;
  Object.assign($("slips").dataset, { label: slips.label, loaded: String(asked) });
}

/**
 * The replay viewer's address in the page's language, at the step it names.
 * @param {string} address
 */
export function inViewer(address) {
  const lang = language();
  if (lang === "en") return address;
  const [path, step] = address.split("#");
  return `${path}${path.includes("?") ? "&" : "?"}lang=${lang}${step ? "#" + step : ""}`;
}

/**
 * One labelled decision: the game's date and round, the verdict, what you played and what was best, a link to it.
 * @param {Record<string, any>} slip
 */
function slipItem(slip) {
  const decision = slip.decision;
  const label = t("viewer.label." + decision.label);
  const [before, ...rest] = verdict(decision).split(label);
  return h("li", { "data-game": slip.game_id, "data-step": decision.step, "data-label": decision.label, "data-delta": decision.delta },
    h("h3", { text: t("play.date_round", { date: dayWords(slip.finished_at), round: decision.round }) }),
    h("p", { class: "verdict" }, before, h("span", { "data-label": decision.label, text: label }), rest.join(label)),
    h("dl", {},
      h("dt", { text: t("play.you_played") }), h("dd", { class: "played", text: stepsWords(decision.played, slip.variant) }),
      h("dt", { text: t("play.best_was") }), h("dd", { class: "best", text: stepsWords(decision.best, slip.variant) })),
    h("a", { href: inViewer(slip.view_url), class: "replay", text: t("play.see_it_in_the_replay") }));
}

/**
 * A game of the page without an analysis, with a button that asks for it.
 * @param {string} gameId
 */
function unanalysedItem(gameId) {
  const name = t("play.game_named", { game: gameId });
  const link = h("a", { href: "#game=" + encodeURIComponent(gameId), id: "unanalysed-" + gameId, text: name });
  const button = /** @type {HTMLButtonElement} */ (h("button", { type: "button", "aria-describedby": "unanalysed-" + gameId, text: t("play.analyse_the_decisions") }));
  button.addEventListener("click", () => analyseListed(gameId, button));
  return h("li", { "data-game": gameId }, h("span", { class: "what" }, link), button);
}

/**
 * A listed game's analysis asked for (requestAnalysis) and waited for, said as it goes; then the list read again.
 * @param {string} gameId
 * @param {HTMLButtonElement} button
 */
async function analyseListed(gameId, button) {
  const state = $("mistakes-state");
  /** @param {string} words */
  const say = (words) => { state.textContent = t("play.game_analysing", { game: gameId, state: words }); };
  button.disabled = true;
  clearProblem();
  try {
    const answer = await awaitAnalysis(gameId, say, onMistakes);
    if (!answer) return;
    state.textContent = t("play.analysed_listed", { game: gameId });
    await loadMistakes(false);
  } catch (problem) {
    state.textContent = "";
    if (onMistakes()) showProblem(problem);
  } finally {
    button.disabled = false;
  }
}

export function setUpMistakes() {
  $("slips-more").addEventListener("click", () => loadMistakes(true));
}
