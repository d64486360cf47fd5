// A whole game through a client made of openapi-typescript's types (red7.d.ts, generated from the document by
// the test) and openapi-fetch.  `tsc --strict` compiles it first; it has no casts (no `as`, no `!`): every
// member is narrowed with checks, so the document has to type what the API sends.  After the game it exports the
// replay and imports it again, as JSON and as its NDJSON lines.  Usage: node player.js BASE_URL
import createClient from "openapi-fetch";
import type { components, paths } from "./red7.js";

type GameView = components["schemas"]["GameView"];
type LegalStep = components["schemas"]["LegalStep"];
type Step = components["schemas"]["Step"];
type Client = ReturnType<typeof createClient<paths>>;

const NDJSON = "application/x-ndjson";

const baseUrl = process.argv[2];
const deadline = Date.now() + 100_000;

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
  const signup = await anonymous.POST("/v1/players", { body: { name: "Ts" } });
  if (signup.data === undefined) fail("sign-up failed", signup.error);
  const token = signup.data.token;
  const me = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${token}` } });

  const created = await me.POST("/v1/games", {
    body: {
      seats: [{ kind: "human" }, { kind: "ai", level: "greedy" }, { kind: "ai", level: "random" }],
      variant: "basic",
      action_rules: true,
    },
  });
  if (created.data === undefined) fail("creating the game failed", created.error);
  let view: GameView = created.data;
  const gameId = view.id;
  const mine = view.you;
  if (mine === undefined) fail("the creator holds no seat", view);

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
    const read = await me.GET("/v1/games/{game_id}", { params: { path: { game_id: gameId } } });
    if (read.data === undefined) fail("GET /games/{id} answered no view", read.error);
    view = read.data;
  }
  if (played === 0) fail("the human seat never played", view);

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
