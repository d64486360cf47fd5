// The replay viewer: one page that steps through a match (buttons, the slider, the keys, the step list), the replay
// inside it, so that it works saved to disk too.  The server puts this module and those it imports inside the page
// (service/webclient/assets.py, inline_script), with the replay and the words in the request's language.

import { $ } from "../core/dom.js";
import { languageSwitch } from "../core/language.js";
import { language, t } from "../core/words.js";
import { offerAnalysis } from "./analyse.js";
import { buildChart } from "./chart.js";
import { parseReplay, readReplay } from "./replay.js";
import { buildSeats, buildStepList, drawHeader, drawStep } from "./table.js";


const web = location.protocol === "http:" || location.protocol === "https:";
// The language switch: the page again in the chosen language, which is remembered for the next replay opened (a page
// saved to disk holds one language).
languageSwitch($("lang", HTMLSelectElement), { web });

/**
 * The way back to /play and to the player's mistakes, in the page's language (a page saved to disk has no /play), and
 * the game's details folded on a phone, so that the table comes first there.
 * @param {Replay | null} replay
 */
function frame(replay) {
  const about = $("about", HTMLDetailsElement);
  about.open = !window.matchMedia("(max-width: 600px)").matches;
  if (!web) return;
  const lang = language();
  const query = lang === "en" ? "" : "?lang=" + encodeURIComponent(lang);
  $("to-play").setAttribute("href", "/play" + query);
  $("to-mistakes").setAttribute("href", "/play" + query + "#mistakes=mistake");
  $("to-mistakes").hidden = !(replay && replay.analysis);
  $("links").hidden = false;
}

/** @param {string} message */
function showError(message) {
  const box = $("load-error");
  box.textContent = message;
  box.hidden = false;
}

/** The replay in the page, or null (its error said, the rest of the page hidden). */
function load() {
  try {
    const doc = parseReplay($("replay", HTMLScriptElement).textContent || "");
    if (doc.format !== "red7-replay/1") showError(t("viewer.format", { format: JSON.stringify(doc.format) }));
    return readReplay(doc);
  } catch (error) {
    showError(error instanceof Error ? error.message : String(error));
    $("app").hidden = true;
    return null;
  }
}

/** @param {Replay} replay */
function start(replay) {
  const total = replay.total;
  let current = 0;
  /** @type {ReturnType<typeof setInterval> | null} */
  let timer = null;
  drawHeader(replay);
  const seats = buildSeats(replay);
  const listButtons = buildStepList(replay, go);
  const mark = buildChart(replay, go);
  offerAnalysis(replay, web);

  function render() {
    drawStep(replay, current, seats);
    if (mark) mark(current);
    const atEnd = current === total;
    for (const [id, disabled] of /** @type {[string, boolean][]} */ ([["first", current === 0], ["prev", current === 0], ["next", atEnd], ["last", atEnd]])) {
      $(id).setAttribute("aria-disabled", String(disabled));
    }
    $("play").setAttribute("aria-disabled", String(total === 0));
    listButtons.forEach((button, i) => {
      if (i === current) button.setAttribute("aria-current", "step");
      else button.removeAttribute("aria-current");
    });
    const shown = listButtons[current];
    const list = $("step-list");
    if (shown && (shown.offsetTop < list.scrollTop || shown.offsetTop + shown.offsetHeight > list.scrollTop + list.clientHeight)) {
      list.scrollTop = Math.max(0, shown.offsetTop - list.clientHeight / 2);
    }
    try {
      history.replaceState(null, "", "#step=" + current);
    } catch (error) {
      // a page opened from a sandbox may refuse; the viewer works without it
    }
  }

  /** @param {unknown} index */
  function go(index) {
    current = Math.min(total, Math.max(0, Math.trunc(Number(index)) || 0));
    render();
    if (current === total) stop();
  }
  /** @param {string} words */
  function playLabel(words) {
    const button = $("play");
    button.setAttribute("aria-label", words);
    const label = button.querySelector(".play-label");
    if (label) label.textContent = words;
  }
  function stop() {
    if (timer !== null) clearInterval(timer);
    timer = null;
    $("play").dataset.playing = "false";
    playLabel(t("viewer.play"));
  }
  function play() {
    if (timer !== null) return stop();
    if (total === 0) return undefined;
    if (current === total) go(0);
    $("play").dataset.playing = "true";
    playLabel(t("viewer.pause"));
    timer = setInterval(() => go(current + 1), 900);
    return undefined;
  }

  $("first").addEventListener("click", () => go(0));
  $("prev").addEventListener("click", () => go(current - 1));
  $("next").addEventListener("click", () => go(current + 1));
  $("last").addEventListener("click", () => go(total));
  $("play").addEventListener("click", play);
  const slider = $("slider", HTMLInputElement);
  slider.max = String(total);
  slider.addEventListener("input", () => go(slider.value));
  document.addEventListener("keydown", (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey || event.defaultPrevented) return;
    if (event.target === slider) return; // the slider moves itself, and its input event renders
    /** @type {Record<string, () => void>} */
    const keys = { ArrowLeft: () => go(current - 1), ArrowRight: () => go(current + 1), Home: () => go(0), End: () => go(total) };
    const action = keys[event.key];
    if (action) {
      event.preventDefault();
      action();
    }
  });

  const fromHash = () => {
    const match = /^#step=(\d+)$/.exec(location.hash);
    return match ? Number(match[1]) : 0;
  };
  window.addEventListener("hashchange", () => go(fromHash()));
  go(fromHash());
}

const replay = load();
frame(replay);
if (replay) start(replay);
