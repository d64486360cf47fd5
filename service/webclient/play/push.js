// Web push (issue 22): a service worker of this origin (/play/sw.js) shows the server's pushes ("your turn",
// reminders, ...); the "Notify me" button offers them once this browser can have them and the server sends them.
// The page comes with the server's VAPID public key (getPushKey's answer) in a meta element, empty when this server
// sends no web push, so the page never asks for a key that is not there.

import { $ } from "../core/dom.js";
import { t } from "../core/words.js";
import { api, me } from "./session.js";

/**
 * A VAPID key (URL-safe base64) as the bytes PushManager.subscribe takes.
 * @param {string} text
 */
const keyBytes = (text) => Uint8Array.from(atob(text.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));

export function setUpPush() {
  if (!("serviceWorker" in navigator) || !("PushManager" in window) || !("Notification" in window)) return;
  const button = $("notify");
  navigator.serviceWorker.register("/play/sw.js", { scope: "/play" }).then(async (registration) => {
    const serverKey = document.querySelector('meta[name="red7-push-key"]')?.getAttribute("content");
    if (!serverKey) return;
    button.hidden = Notification.permission === "denied";
    button.addEventListener("click", async () => {
      if (await Notification.requestPermission() !== "granted" || !me()) return;
      const subscription = await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(serverKey) });
      let saved = true;
      try {
        await api("POST", "/v1/players/me/push-subscription", { body: subscription.toJSON(), quiet: true });
      } catch (problem) {
        saved = false;
      }
      button.textContent = saved ? t("play.notifications_on") : t("play.notify_me");
    });
  }).catch(() => {});
}
