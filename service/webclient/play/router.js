// The screens of /play behind a small router over the address's fragment: "#play" (or nothing) is your games and a
// new game, "#game=<id>" a table, "#join=<game>:<code>" a share link that seats whoever opens it, "#lobby" the lobby
// (quick match, your handle, challenges, players, the open tables), "#player=<handle or id>" a player's public
// profile, "#ladder=<basic|advanced>" a ladder's leaderboard, "#mistakes=<inaccuracy|mistake|blunder>" your
// labelled decisions across your games, "#stats" everyone's statistics and "#stats=<handle or id>" a player's,
// "#tournaments" the tournaments and "#tournament=<id>" one of them, "#archive=<handle or id>" a player's finished
// games ("#archive=": yours) and "#watch" the live games to watch.  A screen
// to come is one more <section class="screen"> in play.html, a module of its own, and one more route in main.js.

/**
 * A route: ``show(value)`` draws its screen.  ``signedOut``: shown without a player too (every other route asks a
 * new visitor for a name first); ``invitation``: the sign-up then says a game waits for them.
 * @typedef {{ show: (value: string) => unknown, signedOut?: boolean, invitation?: boolean }} Route
 */

/**
 * A fragment as [route, value]: its first key and that key's value ("#game=g_1": ["game", "g_1"]; "": ["play", ""]).
 * @param {string} hash
 * @returns {[string, string]}
 */
export function parseRoute(hash) {
  const first = new URLSearchParams(hash.replace(/^#/, "")).entries().next();
  return first.done ? ["play", ""] : first.value;
}

/** The route of this page's address. */
export const currentRoute = () => parseRoute(location.hash);

/**
 * Which route draws a fragment: its own (an unknown one: "play"), or the sign-up when it needs a player and there is
 * none (``invited``: that route is an invitation).
 * @param {Record<string, Route>} table
 * @param {[string, string]} asked
 * @param {boolean} signedIn
 * @returns {{ route: Route, value: string } | { signUp: true, invited: boolean }}
 */
export function resolve(table, asked, signedIn) {
  const [name, value] = asked;
  const route = Object.hasOwn(table, name) ? table[name] : table.play;
  if (!signedIn && !route.signedOut) return { signUp: true, invited: !!route.invitation };
  return { route, value };
}

/**
 * What the router needs of the page: its routes, what ends when the screen changes (a game's live feed, a screen's
 * timers, the problem shown), whether a player is signed in, and the sign-up.
 * @typedef {object} Pages
 * @property {Record<string, Route>} routes
 * @property {() => void} leaving
 * @property {() => boolean} signedIn
 * @property {(invited: boolean) => unknown} signUp
 */

/** @type {Pages | null} */
let pages = null;

/**
 * The page's routes (main.js, once).
 * @param {Pages} given
 */
export function setPages(given) {
  pages = given;
}

/** Draw the screen the address names. */
export async function route() {
  if (!pages) return undefined;
  pages.leaving();
  const chosen = resolve(pages.routes, currentRoute(), pages.signedIn());
  if ("signUp" in chosen) return pages.signUp(chosen.invited);
  return chosen.route.show(chosen.value);
}
