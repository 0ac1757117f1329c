// Table Referee's service worker. companion/web/pwa.py serves it at /sw.js (so that it may
// control every page) with three constants in front of this code:
//   VERSION  a hash of the shell's files: any change to them makes a new worker and cache
//   SHELL    the URLs kept: the static files (CSS, JS, vendored htmx, icons) and OFFLINE
//   OFFLINE  the page shown when a page cannot be loaded
// Static files of the shell come from the cache; pages always come from the server, and the
// offline page stands in when the server cannot be reached (or a proxy says it is gone). Nothing else is ever kept: no
// page, no API answer, no live stream, no POST (a table must never be shown stale).
/* global VERSION, SHELL, OFFLINE */
"use strict";
const PREFIX = "table-referee-";
const CACHE = PREFIX + VERSION;
// What a reverse proxy (docs/deploy.md) answers when the app behind it is down.
const GATEWAY_ERRORS = [502, 503, 504];

function fresh(url) {
  return new Request(url, { cache: "reload" }); // past the browser's HTTP cache
}

self.addEventListener("install", function (event) {
  event.waitUntil(caches.open(CACHE)
    .then(function (cache) { return cache.addAll(SHELL.map(fresh)); })
    .then(function () { return self.skipWaiting(); }));
});

self.addEventListener("activate", function (event) {
  event.waitUntil(caches.keys()
    .then(function (names) {
      return Promise.all(names.filter(function (name) { return name.startsWith(PREFIX) && name !== CACHE; })
        .map(function (name) { return caches.delete(name); }));
    })
    .then(function () { return self.registration.navigationPreload && self.registration.navigationPreload.enable(); })
    .then(function () { return self.clients.claim(); }));
});

self.addEventListener("fetch", function (event) {
  const request = event.request;
  if (request.method !== "GET") return;
  if (request.mode === "navigate") {
    event.respondWith(Promise.resolve(event.preloadResponse)
      .then(function (preloaded) { return preloaded || fetch(request); })
      .then(function (answer) { // a proxy's "bad gateway" for a server that is gone: offline too
        if (!GATEWAY_ERRORS.includes(answer.status)) return answer;
        return caches.match(OFFLINE, { cacheName: CACHE }).then(function (kept) { return kept || answer; });
      })
      .catch(function () { return caches.match(OFFLINE, { cacheName: CACHE }); }));
    return;
  }
  const url = new URL(request.url);
  if (url.origin === self.location.origin && SHELL.includes(url.pathname)) {
    event.respondWith(caches.match(url.pathname, { cacheName: CACHE })
      .then(function (kept) { return kept || fetch(request); }));
  }
});

// A page says which language and colours it is shown in (static/pwa.js); the offline page
// kept is replaced when it was made with others (its X-Offline-Page header).
self.addEventListener("message", function (event) {
  const wanted = event.data && event.data.offlinePage;
  if (typeof wanted !== "string") return;
  event.waitUntil(caches.open(CACHE).then(function (cache) {
    return cache.match(OFFLINE).then(function (kept) {
      if (!kept || kept.headers.get("X-Offline-Page") !== wanted) return cache.add(fresh(OFFLINE));
    });
  }).catch(function () { /* no connection now: the next page will ask again */ }));
});
