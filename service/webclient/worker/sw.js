// The web client's service worker (/play/sw.js, scope /play): the web pushes shown as notifications, and /play's
// shell kept so that the installed app opens without a network, to a "reconnecting" state.
//
// The shell is /play's page as last answered and the files it names (their addresses carry their version, so each
// keeps its bytes: cache first).  The page itself always comes from the network first (it carries a nonce for one
// answer, and the player's language); only when the network or the server fails does the kept copy answer, marked
// <html data-offline="true">, which the page reads to say it is reconnecting and to try again by itself.  It is a
// worker's script, not one of the page's modules: tsconfig.json does not check it (a worker's globals, not a page's).
"use strict";

const SHELL = "red7-shell-v1";
const PAGE = "/play";
const STATIC = "/play/static/";
const KEPT = ["/play/manifest.webmanifest", "/play/icons/icon.svg", "/play/icons/icon-192.png", "/play/icons/icon-512.png"];
/** A versioned file the page names: its stylesheets, modules and module preloads. */
const NAMED = /\/play\/static\/[A-Za-z0-9]+\/[\w./-]+\.(?:js|css)/g;

/** Keep ``answer`` (a fresh /play) as the shell, with the files it names; the files of older versions go. */
async function keep(answer) {
  const text = await answer.clone().text();
  const files = [...new Set(text.match(NAMED) || [])];
  const cache = await caches.open(SHELL);
  const missing = [];
  for (const file of [...files, ...KEPT]) if (!(await cache.match(file))) missing.push(file);
  await cache.addAll(missing);
  await cache.put(PAGE, answer);
  for (const request of await cache.keys()) {
    const path = new URL(request.url).pathname;
    if (path.startsWith(STATIC) && !files.includes(path)) await cache.delete(request);
  }
}

/** The kept shell, marked as offline; a plain "offline" answer before any was kept. */
async function shell() {
  const kept = await (await caches.open(SHELL)).match(PAGE);
  if (!kept) return new Response("Red7: offline", { status: 503, headers: { "Content-Type": "text/plain; charset=utf-8" } });
  const text = (await kept.text()).replace("<html ", '<html data-offline="true" ');
  return new Response(text, { status: 200, headers: kept.headers });
}

self.addEventListener("install", (event) => {
  event.waitUntil(fetch(PAGE, { cache: "no-store" }).then((answer) => (answer.ok ? keep(answer) : null)).catch(() => null)
    .then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(caches.keys().then((names) => Promise.all(names.filter((name) => name !== SHELL).map((name) => caches.delete(name))))
    .then(() => self.clients.claim()));
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin) return;
  if (request.mode === "navigate" && (url.pathname === PAGE || url.pathname === PAGE + "/")) {
    event.respondWith(fetch(request).then((answer) => {
      if (answer.ok) event.waitUntil(keep(answer.clone()).catch(() => null));
      return answer.ok || answer.status < 500 ? answer : shell();
    }, () => shell()));
    return;
  }
  if (url.pathname.startsWith(STATIC) || KEPT.includes(url.pathname)) {
    event.respondWith(caches.match(request).then((hit) => hit || fetch(request)));
  }
});

self.addEventListener("push", (event) => {
  let message = {};
  try { message = event.data ? event.data.json() : {}; } catch (error) { message = {}; }
  const about = message.game_id || message.challenge_id || "red7";
  event.waitUntil(self.registration.showNotification(message.title || "Red7", {
    body: message.body || "", tag: about, renotify: true, data: { url: message.url || "/play" },
  }));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = (event.notification.data && event.notification.data.url) || "/play";
  event.waitUntil(self.clients.matchAll({ type: "window" }).then((open) => {
    const page = open.find((client) => new URL(client.url).pathname === "/play");
    return page ? page.navigate(url).then((c) => (c || page).focus()) : self.clients.openWindow(url);
  }));
});
