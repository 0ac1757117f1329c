// Table Referee as a phone app: the service worker that keeps the shell and the offline page
// (static/sw.js, served at /sw.js), the screen kept awake while a table is open, and the
// offline page trying again by itself. Its URLs come from its own <script> tag (base.html).
// Everything here is optional: a browser without these features gets the plain pages.
(function () {
  "use strict";
  var config = document.currentScript.dataset;

  // The worker. It keeps one copy of the offline page; when this phone changed its language
  // or colours since, the worker fetches a new copy (it compares with config.offlinePage).
  if ("serviceWorker" in navigator) {
    navigator.serviceWorker.register(config.worker, { scope: config.scope }).catch(function () {});
    navigator.serviceWorker.ready.then(function (registration) {
      if (registration.active) registration.active.postMessage({ offlinePage: config.offlinePage });
    });
  }

  // A table open on the phone keeps the screen on (Screen Wake Lock API). The browser drops
  // the lock whenever the page is hidden; it is asked for again when the page is back.
  if (document.getElementById("board") && navigator.wakeLock) {
    var lock = null;
    var asking = false;
    var acquire = function () {
      if (lock || asking || document.visibilityState !== "visible") return;
      asking = true;
      navigator.wakeLock.request("screen").then(function (sentinel) {
        lock = sentinel;
        sentinel.addEventListener("release", function () { if (lock === sentinel) lock = null; });
      }, function () { /* refused (battery saver, no permission): the screen may sleep */ }).then(function () {
        asking = false;
      });
    };
    var release = function () {
      if (lock) lock.release().catch(function () {});
      lock = null;
    };
    document.addEventListener("visibilitychange", function () {
      if (document.visibilityState === "visible") acquire(); else release();
    });
    window.addEventListener("pageshow", acquire);
    window.addEventListener("pagehide", release);
    acquire();
  }

  // The offline page, shown in place of the page that could not be loaded: load that page
  // again as soon as the server answers (the Wi-Fi is back, the laptop woke up).
  var offline = document.getElementById("offline");
  if (offline && location.pathname !== offline.dataset.self) {
    var retry = function () {
      fetch(location.href, { method: "HEAD", cache: "no-store" }).then(function (answer) {
        if (answer.status < 502 || answer.status > 504) location.reload(); // not a proxy's "bad gateway"
      }, function () {});
    };
    setInterval(retry, 5000);
    window.addEventListener("online", retry);
  }
})();
