// Two whole games through a client made of openapi-typescript's types (red7.d.ts, generated from the document by
// the test) and openapi-fetch.  `tsc --strict` compiles it first; it has no casts (no `as`, no `!`): every
// member is narrowed with checks, so the document has to type what the API sends.  After the first game (created
// with its seats) it exports the replay and imports it again, as JSON and as its NDJSON lines.  The second is a
// quick match: a rated ticket for two players whose empty seat an AI takes after a second, polled until it names
// the game, played to its end; then the ladder's leaderboard ranks the player (once the workers have applied the
// game) and their public profile shows the same rating; another player is blocked, muted and let go again.  Last,
// the first game's decision analysis is requested and read.  Usage: node player.js BASE_URL
import { randomBytes } from "node:crypto";
import createClient from "openapi-fetch";
import type { components, paths } from "./red7.js";

type GameView = components["schemas"]["GameView"];
type LegalStep = components["schemas"]["LegalStep"];
type Step = components["schemas"]["Step"];
type GameRatings = components["schemas"]["GameRatings"];
type Analysis = components["schemas"]["Analysis"];
type Replay = components["schemas"]["Replay"];
type Client = ReturnType<typeof createClient<paths>>;

const NDJSON = "application/x-ndjson";

const baseUrl = process.argv[2];
const deadline = Date.now() + 160_000;
// Others find the player by it (its profile is read by it): a fresh one each run, so a server may see many runs.
const HANDLE = `ts_${randomBytes(4).toString("hex")}`;
// The quick match asks for two players, one round, rated; the empty seat a greedy AI's after this many seconds.
const AI_FILL_AFTER = 1;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function fail(what: string, got: unknown): never {
  throw new Error(`${what}: ${JSON.stringify(got)}`);
}

function choose(legal: LegalStep[]): Step {
  const keeps = legal.find((option) => option.can_win && !option.eliminates);
  const chosen = keeps ?? legal[0];
  if (chosen === undefined) fail("no legal step", legal);
  return chosen; // a listed legal step is a Step as it stands
}

async function main(): Promise<void> {
  const anonymous = createClient<paths>({ baseUrl });
  const signup = await anonymous.POST("/v1/players", { body: { name: "Ts", handle: HANDLE } });
  if (signup.data === undefined) fail("sign-up failed", signup.error);
  const token = signup.data.token;
  const myId = signup.data.id;
  const me = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${token}` } });

  const created = await me.POST("/v1/games", {
    body: {
      seats: [{ kind: "human" }, { kind: "ai", level: "greedy" }, { kind: "ai", level: "random" }],
      variant: "basic",
      action_rules: true,
    },
  });
  if (created.data === undefined) fail("creating the game failed", created.error);
  const gameId = created.data.id;
  const { view, played } = await play(me, created.data);
  // The view's long-poll: at the version we hold, a game that is over answers at once, 304 and no body.
  const waitedFrom = Date.now();
  const waited = await me.GET("/v1/games/{game_id}", {
    params: { path: { game_id: gameId }, query: { wait: 5 }, header: { "If-None-Match": `"${view.version}"` } },
  });
  if (waited.response.status !== 304 || Date.now() - waitedFrom > 3000) {
    fail("the finished game's view, waited on at its version", [waited.response.status, Date.now() - waitedFrom]);
  }

  const feed = await me.GET("/v1/games/{game_id}/events", { params: { path: { game_id: gameId }, query: { limit: 500 } } });
  if (feed.data === undefined || !feed.data.finished) fail("the finished feed", feed.error);
  const last = feed.data.events[feed.data.events.length - 1];
  if (last === undefined || last.type !== "game_finished" || last.winner !== view.winner) fail("the feed's last event", last);

  const replay = await me.GET("/v1/games/{game_id}/replay", { params: { path: { game_id: gameId } } });
  if (replay.data === undefined) fail("no replay", replay.error);
  const document = replay.data;
  if (typeof document === "string") fail("the replay came as NDJSON", document.slice(0, 100));
  if (!("complete" in document) || !document.complete) fail("no complete replay", document);
  const outcome = document.outcome;
  if (outcome === null || outcome.winner !== view.winner) fail("the replay's outcome", outcome);
  const lastStep = document.steps[document.steps.length - 1];
  if (lastStep === undefined || lastStep.state.seats.some((seat) => seat.hand === null)) fail("the replay's last table", lastStep);

  const spectator = await anonymous.GET("/v1/games/{game_id}", { params: { path: { game_id: gameId } } });
  if (spectator.data === undefined || spectator.data.you !== undefined) fail("the spectator's view", spectator.error);
  const stream = await anonymous.GET("/v1/games/{game_id}/stream", { params: { path: { game_id: gameId } }, parseAs: "text" });
  if (stream.data === undefined || !stream.data.includes("event: end")) fail("the stream of a finished game", stream.error);
  const imported = await exportAndImport(me, gameId);
  console.log(`finished: winner seat ${view.winner}, ${played} steps of ours, ${feed.data.events.length} events, imported as ${imported}`);
  console.log(await quickMatch(me, anonymous, myId));
  console.log(await blocking(me, anonymous, myId));
  console.log(await analysed(me, anonymous, gameId));
  console.log(await archived(me, anonymous, myId));
}

// Another player blocked by handle: their challenge to us refused as any refusal, our list shows them; muted and
// unmuted by id; unblocked, their challenge goes through.
async function blocking(me: Client, anonymous: Client, myId: string): Promise<string> {
  const signup = await anonymous.POST("/v1/players", { body: { name: "Pest", handle: `${HANDLE}_x` } });
  if (signup.data === undefined) fail("the other sign-up failed", signup.error);
  const otherId = signup.data.id;
  const them = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${signup.data.token}` } });
  const blocked = await me.PUT("/v1/players/me/blocks/{player}", { params: { path: { player: `${HANDLE}_x` } } });
  if (blocked.data === undefined || blocked.data.id !== otherId || blocked.data.list !== "blocks") fail("blocking by handle", blocked.error);
  const refused = await them.POST("/v1/challenges", { body: { players: [myId] } });
  if (refused.error === undefined || refused.error.code !== "challenge_refused") fail("a blocked player's challenge", refused.data);
  const listed = await me.GET("/v1/players/me/blocks", {});
  if (listed.data === undefined || listed.data.players.length !== 1 || listed.data.players[0]?.id !== otherId) {
    fail("the list of blocks", listed.error);
  }
  const muted = await me.PUT("/v1/players/me/mutes/{player}", { params: { path: { player: otherId } } });
  if (muted.data === undefined || muted.data.list !== "mutes") fail("muting by id", muted.error);
  const mutes = await me.GET("/v1/players/me/blocks", { params: { query: { list: "mutes" } } });
  if (mutes.data === undefined || mutes.data.players.length !== 1) fail("the list of mutes", mutes.error);
  const unmuted = await me.DELETE("/v1/players/me/mutes/{player}", { params: { path: { player: otherId } } });
  const unblocked = await me.DELETE("/v1/players/me/blocks/{player}", { params: { path: { player: otherId } } });
  if (unmuted.response.status !== 204 || unblocked.response.status !== 204) fail("lifting a mute or a block", unblocked.response.status);
  const accepted = await them.POST("/v1/challenges", { body: { players: [myId] } });
  if (accepted.data === undefined) fail("a challenge once unblocked", accepted.error);
  const said = await talking(me, them, accepted.data.id);
  return `blocks: ${refused.response.status} ${refused.error.code} while blocked, ${listed.data.players.length} listed, then unblocked; ${said}`;
}

// The challenge accepted, its game's table: they wish us luck with a preset phrase, we answer in words; each reads
// the other's message (a phrase in the reader's language).
async function talking(me: Client, them: Client, challengeId: string): Promise<string> {
  const game = await me.POST("/v1/challenges/{challenge_id}/accept", { params: { path: { challenge_id: challengeId } } });
  if (game.data === undefined || typeof game.data.game_id !== "string") fail("accepting the challenge", game.error);
  const path = { params: { path: { game_id: game.data.game_id } } };
  const wished = await them.POST("/v1/games/{game_id}/talk", { ...path, body: { phrase: "good_luck" } });
  const answered = await me.POST("/v1/games/{game_id}/talk", { ...path, body: { text: "Thanks!" } });
  if (wished.data === undefined || answered.data === undefined || wished.data.held) fail("saying something at the table", wished.error);
  const mine = await me.GET("/v1/games/{game_id}/talk", path);
  if (mine.data === undefined || mine.data.messages.map((m) => m.phrase).join(",") !== "good_luck,") fail("the table talk as we read it", mine.error);
  // Their message reported (the evidence copies it); the same report made again is the same report.
  const body = { player: wished.data.author_id, reason: "other" as const, comment: "a test of reporting", game_id: game.data.game_id, message_id: wished.data.id };
  const first = await me.POST("/v1/reports", { body });
  const again = await me.POST("/v1/reports", { body });
  if (first.data === undefined || first.data.message_id !== wished.data.id || first.data.evidence.messages.length === 0) fail("reporting a message", first.error);
  if (again.data === undefined || again.data.id !== first.data.id) fail("the same report made again", again.error);
  const said = `talk: ${mine.data.messages.length} messages at the table, '${mine.data.messages[0]?.words}' first`;
  return `${said}; report: ${first.response.status} then ${again.response.status}, the same report`;
}

// The finished game's decision analysis: requested (202, with our token), then read until the workers are done.
async function analysed(me: Client, anonymous: Client, gameId: string): Promise<string> {
  const path = { game_id: gameId };
  const asked = await me.POST("/v1/games/{game_id}/analysis", { params: { path } });
  if (asked.data === undefined || asked.response.status !== 202) fail("requestAnalysis", asked.error);
  let answer: Analysis = asked.data;
  while (answer.status === "queued" || answer.status === "running") {
    if (Date.now() > deadline) fail("the analysis did not finish in time", answer.progress);
    await sleep(200);
    const read = await anonymous.GET("/v1/games/{game_id}/analysis", { params: { path } });
    if (read.data === undefined) fail("getAnalysis", read.error);
    answer = read.data;
  }
  const result = answer.result;
  if (answer.status !== "done" || result === null) fail("the analysis' result", answer);
  if (answer.progress.done !== result.decisions.length || result.players.length !== 3) fail("the analysis' players", answer.progress);
  const ours = result.players[0];
  if (ours === undefined) fail("our analysis", result.players);
  const wins = result.decisions.filter((d) => d.seat === 0).map((d) => d.win);
  if (wins.length === 0 || wins.some((w) => w < 0 || w > 1)) fail("our win chances", wins);
  const labelled = result.decisions.filter((d) => d.label !== null).length;
  const accuracy = ours.accuracy === null ? "none" : ours.accuracy.toFixed(1);
  // Our own labelled decisions across our games: this game's, as its analysis has them.
  const review = await me.GET("/v1/players/me/mistakes", { params: { query: { label: "inaccuracy" } } });
  if (review.data === undefined) fail("listMyMistakes", review.error);
  const listed = review.data.mistakes.filter((m) => m.game_id === gameId).map((m) => m.decision.number);
  const expected = result.decisions.filter((d) => d.seat === 0 && d.label !== null && d.by === "player").map((d) => d.number);
  if (JSON.stringify(listed) !== JSON.stringify(expected)) fail("listMyMistakes: our labelled decisions", review.data.mistakes);
  return `analysed: ${result.decisions.length} decisions, ${labelled} labelled, our accuracy ${accuracy}, ${listed.length} of ours listed`;
}

async function viewOf(client: Client, gameId: string): Promise<GameView> {
  const read = await client.GET("/v1/games/{game_id}", { params: { path: { game_id: gameId } } });
  if (read.data === undefined) fail("GET /games/{id} answered no view", read.error);
  return read.data;
}

// Play our seat of the game in `start` to its end: a legal step on our turn, the feed's news otherwise.
async function play(me: Client, start: GameView): Promise<{ view: GameView; played: number }> {
  let view = start;
  const gameId = view.id;
  const mine = view.you;
  if (mine === undefined) fail("we hold no seat", view.seats);
  let seen = 0;
  let played = 0;
  while (view.status !== "finished") {
    if (Date.now() > deadline) fail("the game did not finish in time", view.phase);
    const turn = view.turn;
    if (turn !== null && turn.seat === mine.seat && view.legal_steps.length > 0) {
      const step = choose(view.legal_steps);
      const answer = await me.POST("/v1/games/{game_id}/actions", {
        params: { path: { game_id: gameId }, header: { "If-Match": `"${view.version}"` } },
        body: { steps: [step] },
      });
      if (answer.error !== undefined) fail(`the step ${step.type} was refused`, answer.error.code);
      played += 1;
    } else {
      const page = await me.GET("/v1/games/{game_id}/events", {
        params: { path: { game_id: gameId }, query: { after: seen, wait: 5 } },
      });
      if (page.data === undefined) fail("the feed failed", page.error);
      for (const event of page.data.events) {
        if (event.type === "round_dealt") {
          const hand = event.hands[mine.seat];
          if (hand === null || hand === undefined || hand.length !== 7) fail("my hand is not in the deal", hand);
        }
        if (event.type === "card_played" && !/^[ROYGBIV][1-7]$/.test(event.card)) fail("a card that is no card", event);
      }
      seen = page.data.next;
    }
    view = await viewOf(me, gameId);
  }
  if (played === 0) fail("the human seat never played", view);
  return { view, played };
}

// A rated two-player quick match: the ticket opened and polled until it names the game (an AI takes the other seat
// after AI_FILL_AFTER), the game played to its end, then its ratings, the profile and the ladder read; what came of it.
async function quickMatch(me: Client, anonymous: Client, myId: string): Promise<string> {
  const opened = await me.POST("/v1/match-tickets", {
    body: {
      player_counts: [2],
      variant: "basic",
      action_rules: false,
      rated: true,
      turn_seconds: 60,
      ai_fill_after: AI_FILL_AFTER,
      ai_level: "greedy",
    },
  });
  if (opened.data === undefined) fail("opening the ticket failed", opened.error);
  let ticket = opened.data;
  while (ticket.status === "waiting") {
    if (Date.now() > deadline) fail("no match in time", ticket);
    await sleep(200);
    const read = await me.GET("/v1/match-tickets/{ticket_id}", { params: { path: { ticket_id: ticket.id } } });
    if (read.data === undefined) fail("reading the ticket failed", read.error);
    ticket = read.data;
  }
  const matchedId = ticket.game_id;
  if (ticket.status !== "matched" || matchedId === null) fail("the ticket was not matched", ticket);
  if (ticket.waited_seconds < AI_FILL_AFTER) fail("an AI sat down before ai_fill_after", ticket.waited_seconds);

  const matched = await viewOf(me, matchedId);
  if (matched.origin !== "quick_match" || !matched.rated || matched.seats.length !== 2 || matched.variant !== "basic") {
    fail("the matched game is not the one asked for", matched);
  }
  const { view, played } = await play(me, matched);
  const ratings = await applied(me, view.id);
  const players = ratings.seats.map((seat) => seat.player);
  const rated = players.filter((player) => player !== null).sort();
  if (JSON.stringify(rated) !== JSON.stringify([myId, "ai:greedy"].sort())) fail("the rated seats", ratings.seats);
  const seat = ratings.seats[players.indexOf(myId)];
  if (seat === undefined || seat.rating === null || seat.change === null || seat.counted !== true) {
    fail("our seat's rating: an AI level counts for a newcomer", seat);
  }
  const after = seat.rating + seat.change;

  const profile = await anonymous.GET("/v1/players/{player}", { params: { path: { player: HANDLE.toUpperCase() } } });
  if (profile.data === undefined || profile.data.id !== myId) fail("the profile", profile.error); // a handle, whatever its case
  const standing = profile.data.ratings?.basic;
  if (standing === undefined) fail("the profile shows no basic rating", profile.data.ratings);
  if (standing.rating !== after || standing.played !== 1 || standing.counted !== 1) {
    fail("the profile's rating is not the game's", { standing, seat });
  }
  if (!standing.provisional || standing.rank !== null) fail("one game: a provisional rating, not ranked", standing);
  if (JSON.stringify(standing.history.map((change) => change.game_id)) !== JSON.stringify([view.id])) {
    fail("the profile's rating history", standing.history);
  }
  // A provisional rating is on no leaderboard: the page around us is 404 player_not_rated.
  const board = await anonymous.GET("/v1/ladders/{ladder}/leaderboard", {
    params: { path: { ladder: "basic" }, query: { around: myId, limit: 10 } },
  });
  if (board.data !== undefined || board.error.code !== "player_not_rated") fail("the leaderboard around us", board);
  const change = seat.change < 0 ? `${seat.change}` : `+${seat.change}`;
  return `quick match: matched after ${ticket.waited_seconds.toFixed(1)}s, ${played} steps of ours, winner seat ${view.winner}; ` +
    `rated ${seat.rating}${change} = ${after}, provisional: not ranked on the basic ladder yet`;
}

// The game's ratings once its ladder has it (the workers apply it a few seconds after the end at most).
async function applied(me: Client, gameId: string): Promise<GameRatings> {
  for (;;) {
    const ratings = (await viewOf(me, gameId)).ratings;
    if (ratings === undefined) fail("a rated game's view without ratings", gameId);
    if (ratings.applied) return ratings;
    if (Date.now() > deadline) fail("the game's ratings were never applied", ratings);
    await sleep(200);
  }
}

// The player's archive paged a game at a time by its cursor (as anyone reads it: no token), equal to one page of it
// all; then its bulk export, gzip-compressed on the wire (fetch asks for it and unpacks it), every line parsed as a
// replay, in the same order, and the first imported (the server verifies it) under its own hash, exportReplay's.
async function archived(me: Client, anonymous: Client, myId: string): Promise<string> {
  const paged: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  for (;;) {
    const query = cursor === undefined ? { limit: 1 } : { limit: 1, cursor };
    const page = await anonymous.GET("/v1/players/{player}/archive", { params: { path: { player: myId }, query } });
    if (page.data === undefined || page.data.player_id !== myId) fail("a page of the archive", page.error);
    pages += 1;
    paged.push(...page.data.games.map((game) => game.game_id));
    if (page.data.next_cursor === null) break;
    cursor = page.data.next_cursor;
  }
  const whole = await anonymous.GET("/v1/players/{player}/archive", { params: { path: { player: HANDLE }, query: { limit: 100 } } });
  if (whole.data === undefined || whole.data.games.map((game) => game.game_id).join() !== paged.join() || paged.length < 2) {
    fail("the archive paged by its cursor", { paged, whole: whole.data });
  }
  const exported = await anonymous.GET("/v1/players/{player}/archive/export", { params: { path: { player: myId } }, parseAs: "text" });
  if (exported.data === undefined || exported.response.headers.get("Content-Encoding") !== "gzip") {
    fail("the bulk export", exported.error);
  }
  const replays = exported.data.split("\n").filter((line) => line !== "").map((line): Replay => JSON.parse(line));
  if (replays.map((replay) => replay.game_id).join() !== paged.join()) fail("the export's lines", replays.map((r) => r.game_id));
  const first = replays[0];
  if (first === undefined) fail("no export line", replays);
  const checked = await me.POST("/v1/replays", { body: first });
  if (checked.data === undefined || ![200, 201].includes(checked.response.status)) fail("importing an export's line", checked.error);
  const kept = await anonymous.GET("/v1/games/{game_id}/replay/export", { params: { path: { game_id: first.game_id } } });
  if (kept.data === undefined || typeof kept.data === "string" || checked.data.hash !== first.hash || first.hash !== kept.data.hash) {
    fail("the line's hash", { imported: checked.data, line: first.hash });
  }
  return `archive: ${paged.length} games in ${pages} pages by the cursor; ${replays.length} export lines (gzip) parsed, one verified`;
}

// The finished game's replay exported and imported again: as JSON (201, a new import), then as the export's NDJSON
// lines (200: the same replay, so the same import); the import's answer is checked each time.
async function exportAndImport(me: Client, gameId: string): Promise<string> {
  const path = { game_id: gameId };
  const exported = await me.GET("/v1/games/{game_id}/replay/export", { params: { path } });
  if (exported.data === undefined || typeof exported.data === "string") fail("the JSON export", exported.error);
  const file = exported.data;
  const first = await me.POST("/v1/replays", { body: file });
  if (first.data === undefined || first.response.status !== 201) fail("importing the JSON export", first.error);
  const imported = first.data;
  if (imported.game_id !== gameId || imported.hash !== file.hash || imported.steps !== file.steps.length) {
    fail("the JSON import's answer", imported);
  }

  const lines = await me.GET("/v1/games/{game_id}/replay/export", {
    params: { path },
    headers: { Accept: NDJSON },
    parseAs: "text",
  });
  if (lines.data === undefined || lines.response.headers.get("Content-Type") !== NDJSON) fail("the NDJSON export", lines.error);
  const text = lines.data;
  // openapi-fetch sends a body as JSON unless told otherwise: the lines go as they are, with their media type.
  const again = await me.POST("/v1/replays", { body: text, headers: { "Content-Type": NDJSON }, bodySerializer: () => text });
  if (again.data === undefined || again.response.status !== 200) fail("importing the NDJSON export", again.error);
  const same = again.data;
  if (same.id !== imported.id || same.hash !== imported.hash || same.steps !== imported.steps) fail("the NDJSON import's answer", same);

  const kept = await me.GET("/v1/replays/{replay_id}", { params: { path: { replay_id: imported.id } } });
  if (kept.data === undefined || typeof kept.data === "string" || !("hash" in kept.data) || kept.data.hash !== file.hash) {
    fail("the imported replay", kept.error);
  }
  return imported.id;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
