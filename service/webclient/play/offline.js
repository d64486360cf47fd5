// The installed app without a network: the service worker (/play/sw.js) keeps /play's shell and answers with it,
// marked <html data-offline="true">, when the network or the server fails.  This page then says it is reconnecting,
// looks for the server every few seconds and, once it answers, loads the live page again.  A live page that loses
// the network says so too, and stops saying it when the network is back.

import { $ } from "../core/dom.js";

/** How often an offline shell asks whether the server is back (ms). */
const RETRY = 5000;

/** Whether this page is the kept shell, not the server's answer. */
export function offlineShell() {
  return document.documentElement.dataset.offline === "true";
}

/** @param {boolean} shown */
function say(shown) {
  $("offline").hidden = !shown;
  document.body.dataset.offline = String(shown);
}

/** Whether the server answers now. */
async function serverAnswers() {
  try {
    return (await fetch("/healthz", { cache: "no-store" })).ok;
  } catch (error) {
    return false;
  }
}

export function setUpOffline() {
  if ("serviceWorker" in navigator) navigator.serviceWorker.register("/play/sw.js", { scope: "/play" }).catch(() => {});
  if (offlineShell()) {
    say(true);
    const retry = async () => {
      if (await serverAnswers()) location.reload();
    };
    setInterval(retry, RETRY);
    window.addEventListener("online", retry);
    return;
  }
  say(navigator.onLine === false);
  window.addEventListener("offline", () => say(true));
  window.addEventListener("online", () => say(false));
}
