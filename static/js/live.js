// The table and the lobby follow the game: htmx polls their live fragment every few seconds,
// and when the tab comes back into view it refreshes at once. That check lives here rather
// than in an hx-trigger filter, because htmx evaluates filters as code, which the
// Content-Security-Policy forbids. After each swap the tab title, the navigation's count of
// games waiting, the screen-reader announcement of the latest move and (if the player asked
// for them) a browser notification follow the fresh fragment.
(function () {
  "use strict";
  var NOTIFY_KEY = "pirates-notify";

  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") {
      document.dispatchEvent(new CustomEvent("pirates-visible"));
    }
  });

  function notifyWanted() {
    try {
      return "Notification" in window && Notification.permission === "granted" &&
        window.localStorage.getItem(NOTIFY_KEY) === "1";
    } catch (e) { return false; }
  }

  function setNavCount(count) {
    var link = document.getElementById("nav-lobby");
    if (!link) return;
    var badge = document.getElementById("nav-waiting");
    if (count > 0) {
      if (!badge) {
        badge = document.createElement("span");
        badge.id = "nav-waiting";
        badge.className = "badge turn";
        link.appendChild(document.createTextNode(" "));
        link.appendChild(badge);
      }
      badge.textContent = String(count);
      badge.setAttribute("aria-label", count + (count === 1 ? " game" : " games") + " waiting for your move");
    } else if (badge) {
      badge.remove();
    }
  }

  var lastSeq = null;
  var lastWaiting = null;

  function follow(fragment, swapped) {
    if (!fragment) return;
    var data = fragment.dataset;
    var waiting = parseInt(data.waiting || "0", 10);
    var base = document.title.replace(/^(\(\d+\) )?(Your move · )?/, "");
    if (data.titlePrefix !== undefined) {
      document.title = data.titlePrefix + base;
    } else if (fragment.id === "lobby-live") {
      document.title = (waiting ? "(" + waiting + ") " : "") + base;
    }
    setNavCount(waiting);
    var seq = data.seq ? parseInt(data.seq, 10) : null;
    if (swapped && seq !== null && lastSeq !== null && seq > lastSeq && data.announce) {
      var announcer = document.getElementById("announcer");
      if (announcer) announcer.textContent = data.announce;
    }
    var becameMine = swapped && (
      (data.yourMove === "1" && seq !== lastSeq) ||
      (fragment.id === "lobby-live" && lastWaiting !== null && waiting > lastWaiting)
    );
    if (becameMine && document.hidden && notifyWanted()) {
      try { new Notification("Pirates by Mail", { body: document.title, tag: "pirates-turn" }); }
      catch (e) { /* some browsers only notify from a service worker: the title still shows it */ }
    }
    lastSeq = seq;
    lastWaiting = waiting;
  }

  function current() {
    return document.getElementById("live") || document.getElementById("lobby-live");
  }

  document.addEventListener("htmx:afterSettle", function () { follow(current(), true); });

  document.addEventListener("DOMContentLoaded", function () {
    follow(current(), false);
    var button = document.getElementById("notify-toggle");
    if (!button || !("Notification" in window) || Notification.permission === "denied") return;
    function label() {
      button.textContent = notifyWanted() ? "Browser notifications on" : "Notify me in this browser";
      button.setAttribute("aria-pressed", notifyWanted() ? "true" : "false");
    }
    button.hidden = false;
    label();
    // Permission is asked only on this click, never on page load.
    button.addEventListener("click", function () {
      if (notifyWanted()) {
        window.localStorage.setItem(NOTIFY_KEY, "0");
        label();
        return;
      }
      Notification.requestPermission().then(function (answer) {
        window.localStorage.setItem(NOTIFY_KEY, answer === "granted" ? "1" : "0");
        label();
      });
    });
  });
})();
