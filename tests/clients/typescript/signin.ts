// Sign in with Red7 as an app does it (docs/oauth.md), then openapi-fetch with the token, no casts.  The app makes a
// PKCE code verifier and its S256 challenge, and prints the authorization URL for the player's browser
// (`authorize: <url>`); the player approves on the consent page, and the browser lands on the app's redirect URI,
// which the app reads on its standard input (a native app's own listener would get it the same way).  The app
// checks `state`, redeems the code at /oauth/token with its verifier (OAuth's form-encoded endpoint, not among the
// document's operations: plain fetch), then calls operations with the access token: those of the granted scopes
// answer, one beyond them is 403 with `WWW-Authenticate: Bearer error="insufficient_scope"` and the problem code
// naming the scope.  Usage: node signin.js BASE_URL CLIENT_ID REDIRECT_URI; prints two lines.
import { createHash, randomBytes } from "node:crypto";
import { once } from "node:events";
import { createInterface } from "node:readline";
import createClient from "openapi-fetch";
import type { paths } from "./red7.js";

const [baseUrl, clientId, redirectUri] = process.argv.slice(2);
// What the app asks for: the player's profile and inbox, not play (which the app may ask for, and does not here).
const SCOPES = "profile:read notifications";

function fail(what: string, got: unknown): never {
  throw new Error(`${what}: ${JSON.stringify(got)}`);
}

// RFC 7636 §4.2: BASE64URL(SHA256(verifier)), unpadded.
function s256(verifier: string): string {
  return createHash("sha256").update(verifier).digest("base64url");
}

async function callback(): Promise<string> {
  const lines = createInterface({ input: process.stdin });
  const [line]: unknown[] = await once(lines, "line");
  lines.close();
  if (typeof line !== "string") fail("no redirect on the standard input", line);
  return line.trim();
}

// The authorization code flow with PKCE: the access token and the scopes granted.
async function signIn(base: string, client: string, redirect: string): Promise<{ access: string; granted: string }> {
  const verifier = randomBytes(48).toString("base64url"); // 64 characters of [A-Za-z0-9_-]: within 43 to 128
  const state = randomBytes(16).toString("base64url");
  const query = new URLSearchParams({
    response_type: "code",
    client_id: client,
    redirect_uri: redirect,
    scope: SCOPES,
    state,
    code_challenge: s256(verifier),
    code_challenge_method: "S256",
  });
  console.log(`authorize: ${base}/oauth/authorize?${query}`);
  const back = await callback();
  if (!back.startsWith(`${redirect}?`)) fail("the browser came back elsewhere", back);
  const answer = new URL(back).searchParams;
  const code = answer.get("code");
  if (answer.get("state") !== state || code === null) fail("the redirect's state and code", back);
  const form = new URLSearchParams({ grant_type: "authorization_code", code, redirect_uri: redirect, client_id: client, code_verifier: verifier });
  const redeemed = await fetch(`${base}/oauth/token`, { method: "POST", body: form });
  const body: unknown = await redeemed.json();
  if (redeemed.status !== 200 || typeof body !== "object" || body === null) fail("the code's redemption", body);
  if (!("access_token" in body) || typeof body.access_token !== "string") fail("the token answer's access_token", body);
  if (!("scope" in body) || typeof body.scope !== "string") fail("the token answer's scope", body);
  if (!("token_type" in body) || body.token_type !== "Bearer" || !("refresh_token" in body)) fail("the token answer", body);
  return { access: body.access_token, granted: body.scope };
}

async function main(): Promise<void> {
  if (baseUrl === undefined || clientId === undefined || redirectUri === undefined) fail("usage", process.argv);
  const { access, granted } = await signIn(baseUrl, clientId, redirectUri);
  const app = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${access}` } });
  const me = await app.GET("/v1/players/me", {});
  // The answer names the token's scopes as GitHub's and Lichess's do: comma-separated (the token answer's: spaces).
  if (me.data === undefined || me.response.headers.get("X-OAuth-Scopes") !== granted.split(" ").join(", ")) {
    fail("getMe with the app's token", [me.response.status, me.response.headers.get("X-OAuth-Scopes")]);
  }
  const inbox = await app.GET("/v1/players/me/notifications", {});
  if (inbox.data === undefined) fail("listNotifications with the app's token", inbox.error);
  const refused = await app.POST("/v1/games", { body: { seats: [{ kind: "human" }, { kind: "ai" }] } });
  const challenge = refused.response.headers.get("WWW-Authenticate") ?? "";
  if (refused.response.status !== 403 || refused.error === undefined) fail("createGame beyond the granted scopes", refused.response.status);
  if (!challenge.includes('error="insufficient_scope"')) fail("the 403's WWW-Authenticate", challenge);
  console.log(`signed in as ${me.data.id}: scopes '${granted}'`);
  console.log(
    `getMe ${me.response.status}, listNotifications ${inbox.response.status}; createGame ${refused.response.status} ` +
      `${refused.error.code}, Bearer error=insufficient_scope`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
