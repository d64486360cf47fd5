// Moves you watch, on the page: the others' cards travel from their hand (the seat's name) to their palette or to the
// canvas, the rule swells as it changes, a round's end shows its winner in a banner over the palettes; your turn come,
// the device vibrates where it can and, if the player turned it on (off by default), a short tone sounds.  With
// prefers-reduced-motion nothing moves: the marks of what changed stay, and the banner shows still.  What moved is
// travel.js's; the moves are Web Animations, so nothing waits on them and nothing is left behind.

import { $, h } from "../core/dom.js";
import { changes } from "./travel.js";

/** @import { View } from "./moves.js" */

const SOUND = "red7.sound";  // "on" when the player wants a tone on their turn (localStorage)
const TRAVEL_MS = 650;
const BANNER_MS = 4000;
/** @type {{ audio: AudioContext | null, banner: ReturnType<typeof setTimeout> | undefined }} */
const state = { audio: null, banner: undefined };

/** Whether the player asked for less motion (the system's setting, read at each move: it may change). */
export function reducedMotion() {
  return typeof matchMedia === "function" && matchMedia("(prefers-reduced-motion: reduce)").matches;
}

/**
 * The centre of ``node`` on the screen.
 * @param {Element} node
 */
function centre(node) {
  const box = node.getBoundingClientRect();
  return { x: box.left + box.width / 2, y: box.top + box.height / 2 };
}

/**
 * ``card`` (on ``seat``'s palette, drawn already) flies in from the seat's name, where its hand is told.
 * @param {Element} seat
 * @param {Element} card
 */
function flyIn(seat, card) {
  const from = centre(seat.querySelector(".seat-name") || seat);
  const to = centre(card);
  card.animate([
    { transform: `translate(${from.x - to.x}px, ${from.y - to.y}px) scale(.5)`, opacity: 0.3 },
    { transform: "none", opacity: 1 },
  ], { duration: TRAVEL_MS, easing: "cubic-bezier(.2, .7, .2, 1)", id: "travel-palette" });
}

/**
 * A card of the rule's colour flies from ``seat``'s name to the canvas (the rule box), then is gone.
 * @param {Element} seat
 * @param {string} rule
 */
function flyToCanvas(seat, rule) {
  const from = centre(seat.querySelector(".seat-name") || seat);
  const to = centre($("rule-box"));
  const ghost = h("span", { class: `card ghost c-${rule[0].toUpperCase()}`, "aria-hidden": "true" });
  Object.assign(ghost.style, { left: `${to.x}px`, top: `${to.y}px` });
  document.body.append(ghost);
  const flight = ghost.animate([
    { transform: `translate(-50%, -50%) translate(${from.x - to.x}px, ${from.y - to.y}px)`, opacity: 0.4 },
    { transform: "translate(-50%, -50%)", opacity: 1 },
  ], { duration: TRAVEL_MS, easing: "ease-in-out", id: "travel-canvas" });
  flight.onfinish = () => ghost.remove();
  flight.oncancel = () => ghost.remove();
}

/**
 * The banner over the palettes: ``text`` for a few seconds (still, under reduced motion).
 * @param {string} text
 * @param {boolean} still
 */
function banner(text, still) {
  const box = $("round-banner");
  box.textContent = text;
  box.hidden = false;
  if (!still) box.animate([{ transform: "scale(.6)", opacity: 0 }, { transform: "none", opacity: 1 }], { duration: 400, id: "round" });
  clearTimeout(state.banner);
  state.banner = setTimeout(() => { box.hidden = true; }, BANNER_MS);
}

/** A short tone (the player turned it on, with a tap: the page may play sound then). */
function tone() {
  const audio = state.audio;
  if (!audio) return;
  const oscillator = audio.createOscillator();
  const gain = audio.createGain();
  oscillator.frequency.value = 660;
  gain.gain.setValueAtTime(0.15, audio.currentTime);
  gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.25);
  oscillator.connect(gain).connect(audio.destination);
  oscillator.start();
  oscillator.stop(audio.currentTime + 0.25);
}

/**
 * Show what moved from ``before`` to ``view`` (drawn a moment ago) for the player at ``mine``; ``roundWords``: the
 * round's end in words, as the status line says it.
 * @param {View | null} before
 * @param {View} view
 * @param {number | null} mine
 * @param {string} roundWords
 */
export function showMoves(before, view, mine, roundWords) {
  const still = reducedMotion();
  $("table").dataset.motion = still ? "reduced" : "full";
  const seen = changes(before, view, mine);
  if (!still) {
    for (const travel of seen.travels) {
      const seat = document.querySelector(`#seats [data-seat="${travel.seat}"]`);
      if (!seat) continue;
      if (travel.to === "canvas") flyToCanvas(seat, view.rule);
      else {
        const card = seat.querySelector(`[data-card="${travel.card}"]`);
        if (card) flyIn(seat, card);
      }
    }
    if (seen.rule) $("rule-box").animate([{ transform: "scale(1.12)" }, { transform: "none" }], { duration: 600, id: "rule" });
  }
  if (seen.winner !== null) banner(roundWords, still);
  if (seen.yourTurn) {
    // A browser vibrates only for a page the player has touched (else it logs the call as blocked).
    if (typeof navigator.vibrate === "function" && navigator.userActivation?.hasBeenActive) navigator.vibrate(120);
    if (localStorage.getItem(SOUND) === "on") tone();
  }
}

/** The sound switch: off by default; turned on, it keeps an audio context made within the tap (browsers ask one). */
export function setUpMotion() {
  const button = $("sound");
  const show = () => button.setAttribute("aria-pressed", String(localStorage.getItem(SOUND) === "on"));
  show();
  button.addEventListener("click", () => {
    const on = localStorage.getItem(SOUND) !== "on";
    if (on) localStorage.setItem(SOUND, "on");
    else localStorage.removeItem(SOUND);
    if (on && !state.audio && typeof AudioContext === "function") state.audio = new AudioContext();
    show();
  });
}
