// Moves you watch: what changed on the table between two views of a game, as the table shows it moving — the cards the
// others played travelling from their hand to their palette, a card they discarded to the canvas, the rule that
// changed, the round's winner, your turn come.  Pure (two views in, the moves out), so node's tests run it; motion.js
// moves the page.

/** @import { View } from "./moves.js" */

/** The phases a round ends in. */
const ENDED = ["round_won", "round_scored", "finished"];

/**
 * A card that travelled: onto ``seat``'s palette (``card`` named), or from ``seat``'s hand to the canvas (the rule's
 * colour; the card itself is the rule now).
 * @typedef {{ seat: number, card: string | null, to: "palette" | "canvas" }} Travel
 */

/**
 * What moved between ``before`` and ``after`` (views of one game, ``after`` the newer), for the player at ``mine``:
 * the others' cards (your own moves are yours: they do not travel), whether the rule changed, the round's winner if
 * the round ended, and whether your turn came.  Nothing travels across a deal (a new round's palettes are dealt).
 * @param {View | null} before
 * @param {View} after
 * @param {number | null} mine
 * @returns {{ travels: Travel[], rule: boolean, winner: number | null, yourTurn: boolean }}
 */
export function changes(before, after, mine) {
  const none = { travels: [], rule: false, winner: null, yourTurn: false };
  if (!before || before.id !== after.id || after.version <= before.version) return none;
  // Your turn came: it was not yours before, or it was and the others have moved since (the page may not have seen
  // their turn in between: the AIs play in milliseconds).
  const yours = (/** @type {View} */ v) => mine !== null && v.phase === "turn" && v.turn?.seat === mine;
  const othersMoved = after.seats.some((/** @type {Record<string, any>} */ seat) => {
    const was = before.seats[seat.seat];
    return seat.seat !== mine && !!was && (was.hand_size !== seat.hand_size || was.palette.length !== seat.palette.length);
  });
  const yourTurn = yours(after) && (!yours(before) || othersMoved);
  if (before.phase !== "turn" || before.round !== after.round) return { ...none, yourTurn };
  /** @type {Travel[]} */
  const travels = [];
  const handsLeft = [];  // seats whose hand gave more cards than reached their palette: one of them discarded
  for (const seat of after.seats) {
    const was = before.seats[seat.seat];
    if (!was || seat.seat === mine) continue;
    const had = new Set(was.palette);
    const arrived = seat.palette.filter((/** @type {string} */ card) => !had.has(card));
    for (const card of arrived) travels.push({ seat: seat.seat, card, to: "palette" });
    if (was.hand_size - seat.hand_size > arrived.length) handsLeft.push(seat.seat);
  }
  const rule = before.rule !== after.rule;
  if (rule && handsLeft.length === 1) travels.push({ seat: handsLeft[0], card: null, to: "canvas" });
  const winner = ENDED.includes(after.phase) ? (after.round_winner ?? after.winner ?? null) : null;
  return { travels, rule, winner, yourTurn };
}
