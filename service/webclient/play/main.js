// /play, the reference web client: a client of the public API and nothing else, the worked example for integrators.
// This module starts it: the language switch, each screen's module, the router over the address's fragment.

import { $ } from "../core/dom.js";
import { askedLanguage, keptLanguage, languageSwitch } from "../core/language.js";
import { setUpChallenges } from "./challenges.js";
import { setUpFeed } from "./feed.js";
import { join, setUpHome, showHome } from "./home.js";
import { setUpLadder, showLadder } from "./ladder.js";
import { stopLive, setUpLive } from "./live.js";
import { setUpLobby, showLobby } from "./lobby.js";
import { setUpMistakes, showMistakes } from "./mistakes.js";
import { offlineShell, setUpOffline } from "./offline.js";
import { setUpProfile, showProfile } from "./profile.js";
import { setUpPush } from "./push.js";
import { setUpQuickMatch } from "./quick-match.js";
import { setUpReport } from "./report.js";
import { route, setPages } from "./router.js";
import { api, loadPlayer, me, reloadMe, savePlayer } from "./session.js";
import { setUpSignup, showSignup } from "./signup.js";
import { openGame, setUpTable } from "./table.js";
import { setUpTables } from "./tables.js";
import { clearProblem, clearTimers, setUpUi, showProblem } from "./ui.js";

// The language switch: the page again in the chosen language, remembered in this browser (for the replay viewer
// too) and, when signed in, as the player's setting (which the pushes and webhooks follow).  Without a ?lang= the
// page takes the remembered one, else the player's setting (reloadMe), else what the browser asked for.
// The offline shell (offline.js) holds one language and reaches no server: its switch waits for the network.
languageSwitch($("lang", HTMLSelectElement), {
  web: !offlineShell(),
  chosen: (code) => (me() ? api("PATCH", "/v1/players/me", { body: { language: code }, quiet: true, retries: 0 }) : Promise.resolve()),
});

setUpOffline();
setUpUi();
setUpFeed();
setUpSignup();
setUpHome();
setUpQuickMatch();
setUpChallenges();
setUpTables();
setUpLobby();
setUpProfile();
setUpLadder();
setUpMistakes();
setUpTable();
setUpReport();
setUpLive();

setPages({
  routes: {
    play: { show: () => showHome() },
    game: { show: (gameId) => openGame(gameId) },
    join: { show: (value) => join(value), invitation: true },
    lobby: { show: () => showLobby() },
    player: { show: (handle) => showProfile(handle), signedOut: true },
    ladder: { show: (ladder) => showLadder(ladder), signedOut: true },
    mistakes: { show: (label) => showMistakes(label) },
    stats: { show: (who) => opened(statistics, (m) => m.showStats(who)), signedOut: true },
    moderation: { show: () => opened(moderation, (m) => m.showModeration()) },
    tournaments: { show: () => opened(tournaments, (m) => m.showTournaments()), signedOut: true },
    tournament: { show: (id) => opened(tournaments, (m) => m.showTournament(id)), signedOut: true },
    // Screens most players never open: their modules are loaded when first opened, not named by the page.
    archive: { show: async (ref) => (await import("./archive.js")).showArchive(ref), signedOut: true },
    watch: { show: async () => (await import("./watch.js")).showWatch(), signedOut: true },
  },
  leaving: () => {
    stopLive();
    clearTimers();
    clearProblem();
  },
  signedIn: () => !!me(),
  signUp: (invited) => showSignup(null, invited),
});

/**
 * A screen's module, loaded the first time the screen is opened and set up then, once: most visits open none of
 * these, and the page's first load stays within its weight (bench/page_weight.py).  ``load`` writes its dynamic
 * import out with the module's path, so the server knows every module the page may load (service/webclient/assets.py).
 * @template M
 * @param {() => Promise<M>} load
 * @param {(module: M) => void} [setUp]
 * @returns {() => Promise<M>}
 */
function lazily(load, setUp) {
  /** @type {Promise<M> | null} */
  let loading = null;
  return () => {
    loading ??= load().then((module) => {
      if (setUp) setUp(module);
      return module;
    });
    return loading.catch((problem) => {
      loading = null;  // not loaded (no network: the offline shell): the next opening tries again
      throw problem;
    });
  };
}

/**
 * Show a lazily loaded screen: ``show`` once its module is there, or the problem that kept it from loading.
 * @template M
 * @param {() => Promise<M>} module
 * @param {(module: M) => unknown} show
 */
async function opened(module, show) {
  try {
    return await show(await module());
  } catch (problem) {
    showProblem(problem);
    return undefined;
  }
}

const statistics = lazily(() => import("./stats.js"));
const moderation = lazily(() => import("./moderation.js"), (m) => m.setUpModeration());
const tournaments = lazily(() => import("./tournaments.js"), (m) => m.setUpTournaments());

/** Whether you hold the moderator role (getMe's ``moderator``): the nav's link to moderation shown or not. */
async function checkModerator() {
  $("nav-moderation").hidden = true;
  if (!me()) return;
  try {
    $("nav-moderation").hidden = !(await api("GET", "/v1/players/me", { quiet: true, retries: 0 })).data.moderator;
  } catch (problem) {
    // No answer: the link stays hidden; the server checks the role on every call anyway.
  }
}

window.addEventListener("hashchange", route);
savePlayer(loadPlayer());
route();
if (me() && !askedLanguage() && !keptLanguage()) reloadMe().catch(() => {});  // the player's language setting, if it has one
setUpPush();
checkModerator();
