// The turn's clock on the table: beside the status line ("Your turn." 0:42) and beside the name of the seat to play,
// ticking while the table is shown.  A live turn counts minutes and seconds; a correspondence turn days and hours, its
// deadline in the player's own time zone on hover (title) or on a tap (the button opens it).  In the last fifth of
// the turn the clock turns urgent: a colour and a heavier ring, so that it is not told by colour alone.

import { h } from "../core/dom.js";
import { language } from "../core/words.js";
import { clockFace, clockLabel, deadlineWords, turnTime } from "./clock.js";

/** @import { TurnTime } from "./clock.js" */
/** @import { View } from "./moves.js" */

const TICK_MS = 250;  // a quarter of a second: the seconds change on time, whatever the phase of the first read
/**
 * The clock shown: its turn's time, the timer that ticks it, and which deadline was opened by a tap (kept open while
 * the table is drawn again for the same turn).
 * @type {{ time: TurnTime | null, timer: ReturnType<typeof setInterval> | undefined, opened: string | null }}
 */
const ticking = { time: null, timer: undefined, opened: null };

/**
 * A clock for ``time``: a timer (live), or a button that opens the deadline (correspondence).
 * @param {TurnTime} time
 * @param {string} where  "status" or "seat"
 */
function clockElement(time, where) {
  const face = h("span", { class: "clock-face", role: "timer" });
  if (!time.correspondence) return h("span", { class: "clock", "data-clock": where }, face);
  const deadline = deadlineWords(time.deadline, language());
  const opened = ticking.opened === time.deadline + where;
  const said = h("span", { class: "clock-deadline", text: deadline, hidden: !opened });
  const button = h("button", { type: "button", class: "clock", "data-clock": where, title: deadline, "aria-expanded": String(opened) }, face);
  button.addEventListener("click", () => {
    const open = said.hidden;
    said.hidden = !open;
    button.setAttribute("aria-expanded", String(open));
    ticking.opened = open ? time.deadline + where : null;
  });
  return h("span", { class: "clock-box" }, button, said);
}

/** Bring every clock on the page to the time now; stop when none is left. */
function tick() {
  const clocks = document.querySelectorAll("#table [data-clock]");
  const time = ticking.time;
  if (!time || !clocks.length || document.body.dataset.screen !== "table") { stop(); return; }
  const face = clockFace(time);
  for (const clock of clocks) {
    const node = /** @type {HTMLElement} */ (clock);
    const text = node.querySelector(".clock-face");
    if (text && text.textContent !== face.text) text.textContent = face.text;
    node.dataset.urgent = String(face.urgent);
    node.dataset.left = String(Math.ceil(face.left));
    node.setAttribute("aria-label", clockLabel(face.text));
  }
  if (face.left <= 0 || time.paused) stop();  // at zero the server's deadline job moves the game on; paused: it stands
}

function stop() {
  clearInterval(ticking.timer);
  ticking.timer = undefined;
}

/**
 * Put the clocks of ``view``'s turn on the table (nothing when no turn is timed): after the status line, and in the
 * head of the seat to play (``seats``: the seats' elements, drawn a moment ago).
 * @param {View} view
 * @param {HTMLElement} seats
 */
export function showClocks(view, seats) {
  const time = turnTime(view);
  ticking.time = time;
  const box = document.getElementById("turn-clock");
  const key = time ? `${time.deadline} ${time.correspondence} ${time.paused}` : "";
  if (box && box.dataset.key !== key) {  // the same turn's clock stays as it is (a tap on it kept, the focus on it too)
    box.replaceChildren(...(time ? [clockElement(time, "status")] : []));
    box.dataset.key = key;
  }
  if (box) box.hidden = !time;
  if (!time) { stop(); return; }
  const head = seats.querySelector(`[data-seat="${view.turn.seat}"] .seat-head`);
  if (head) head.querySelector(".seat-name")?.after(clockElement(time, "seat"));
  if (ticking.timer === undefined) ticking.timer = setInterval(tick, TICK_MS);
  tick();
}
