// Table Referee: the little JavaScript the pages need beyond htmx (no inline script: CSP).
// Live updates arrive as server-sent events (htmx's SSE extension) and are morphed into
// the page (idiomorph); this file keeps them in order, and refreshes the board at once when a phone wakes up or its Wi-Fi
// returns instead of waiting for the event stream to reconnect.
(function () {
  "use strict";
  function refresh() {
    var live = document.getElementById("live");
    if (!live || !live.dataset.refresh || !window.htmx) return;
    window.htmx.ajax("GET", live.dataset.refresh, { target: "#board", swap: "morph:innerHTML" });
  }
  // The phone that made a change already shows its result (with the notice and its Undo
  // button); the stream's copy of the same version must not wipe that, and an older
  // version must never replace a newer one.
  document.addEventListener("htmx:sseBeforeMessage", function (e) {
    var board = document.querySelector("#board .board");
    var shown = board ? parseInt(board.dataset.version, 10) : NaN;
    var incoming = parseInt(e.detail.lastEventId, 10);
    if (!isNaN(shown) && !isNaN(incoming) && incoming <= shown) e.preventDefault();
  });
  // Updates morph the board in place (idiomorph) instead of replacing it, so a tap that
  // lands while another player's change arrives still hits its button, and a <details>
  // the player opened stays open.
  if (window.Idiomorph) {
    window.Idiomorph.defaults.ignoreActiveValue = true; // keep what the player is typing
    window.Idiomorph.defaults.callbacks.beforeAttributeUpdated = function (name, node) {
      return !(name === "open" && node.tagName === "DETAILS");
    };
  }
  // The objection window: count down from the seconds the server said were left when it
  // rendered the board (no reliance on the phone's clock); the server still decides.
  var countdownStarted = new WeakMap();
  setInterval(function () {
    document.querySelectorAll(".countdown[data-remaining]").forEach(function (el) {
      if (!countdownStarted.has(el)) countdownStarted.set(el, Date.now());
      var left = parseFloat(el.dataset.remaining) - (Date.now() - countdownStarted.get(el)) / 1000;
      el.textContent = Math.max(0, left).toFixed(1);
      el.closest(".claim").classList.toggle("ready", left <= 0);
    });
  }, 100);
  // Times are sent in UTC; show them in the phone's own time zone.
  function localTimes(root) {
    (root || document).querySelectorAll("time[datetime]").forEach(function (el) {
      var when = new Date(el.getAttribute("datetime"));
      if (!isNaN(when)) el.textContent = when.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });
    });
  }
  document.addEventListener("DOMContentLoaded", function () { localTimes(); });
  document.addEventListener("htmx:afterSwap", function (e) { localTimes(e.target); });
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") refresh();
  });
  window.addEventListener("online", refresh);
  window.addEventListener("pageshow", function (e) { if (e.persisted) refresh(); });
})();
