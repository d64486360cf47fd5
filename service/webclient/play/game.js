// The game on the table: the one /play shows at "#game=<id>", what it knows of it, and what is under way.

/** @import { GameEvent, View } from "./moves.js" */

/**
 * @typedef {object} Game
 * @property {string} id
 * @property {View | null} view the last view read (getGame, or an action's answer)
 * @property {number} after the last event read
 * @property {number} opened the game's version when the table opened it: later events are news
 * @property {GameEvent[]} log the events read, for the marks of what the others did (the last LOG_SIZE)
 * @property {boolean} acting a step is being sent
 * @property {Promise<void> | null} refreshing a read of the view under way
 * @property {boolean} refreshAgain another read is due when it ends
 * @property {boolean} resetting the next view may be older (the server lost events)
 * @property {boolean} redraw the marks are to be drawn again
 * @property {ReturnType<typeof setInterval> | undefined} ratingsWatch a rated game's reads until its ladder has it
 */

/** @type {Game | null} */
let game = null;

/** The game on the table, or null. */
export const current = () => game;

/**
 * A game put on the table, nothing read of it yet.
 * @param {string} id
 * @returns {Game}
 */
export function newGame(id) {
  game = {
    id, view: null, after: 0, opened: 0, log: [], acting: false, refreshing: null, refreshAgain: false, resetting: false,
    redraw: false, ratingsWatch: undefined,
  };
  return game;
}
