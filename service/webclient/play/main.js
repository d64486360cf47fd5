// /play, the reference web client: a client of the public API and nothing else, the worked example for integrators.
// This module starts it: the language switch, each screen's module, the router over the address's fragment.

import { $ } from "../core/dom.js";
import { askedLanguage, keptLanguage, languageSwitch } from "../core/language.js";
import { setUpChallenges } from "./challenges.js";
import { join, setUpHome, showHome } from "./home.js";
import { setUpLadder, showLadder } from "./ladder.js";
import { stopLive, setUpLive } from "./live.js";
import { setUpLobby, showLobby } from "./lobby.js";
import { setUpMistakes, showMistakes } from "./mistakes.js";
import { setUpProfile, showProfile } from "./profile.js";
import { setUpPush } from "./push.js";
import { setUpQuickMatch } from "./quick-match.js";
import { route, setPages } from "./router.js";
import { api, loadPlayer, me, reloadMe, savePlayer } from "./session.js";
import { setUpSignup, showSignup } from "./signup.js";
import { openGame, setUpTable } from "./table.js";
import { setUpTables } from "./tables.js";
import { clearProblem, clearTimers, setUpUi } from "./ui.js";

// The language switch: the page again in the chosen language, remembered in this browser (for the replay viewer
// too) and, when signed in, as the player's setting (which the pushes and webhooks follow).  Without a ?lang= the
// page takes the remembered one, else the player's setting (reloadMe), else what the browser asked for.
languageSwitch($("lang", HTMLSelectElement), {
  chosen: (code) => (me() ? api("PATCH", "/v1/players/me", { body: { language: code }, quiet: true, retries: 0 }) : Promise.resolve()),
});

setUpUi();
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
  },
  leaving: () => {
    stopLive();
    clearTimers();
    clearProblem();
  },
  signedIn: () => !!me(),
  signUp: (invited) => showSignup(null, invited),
});

window.addEventListener("hashchange", route);
savePlayer(loadPlayer());
route();
if (me() && !askedLanguage() && !keptLanguage()) reloadMe().catch(() => {});  // the player's language setting, if it has one
setUpPush();
