// Table Referee: the little JavaScript the pages need beyond htmx (no inline script: CSP).
// Live updates arrive as server-sent events (htmx's SSE extension) and are morphed into
// the page (idiomorph); this file keeps them in order, and refreshes the board at once when a phone wakes up or its Wi-Fi
// returns instead of waiting for the event stream to reconnect. It also says when the server
// cannot be reached, and shows the answer to every tap in the screen (#17).
(function () {
  "use strict";
  function refresh() {
    var live = document.getElementById("live");
    if (!live || !live.dataset.refresh || !window.htmx) return;
    window.htmx.ajax("GET", live.dataset.refresh, { source: live, target: "#board", swap: "morph:innerHTML" });
  }
  // The phone that made a change already shows its result (with the notice and its Undo
  // button); the stream's copy of the same version must not wipe that, and an older
  // version must never replace a newer one.
  document.addEventListener("htmx:sseBeforeMessage", function (e) {
    if (e.detail.type === "gone") { // this player was removed: the table's URL now shows its own page
      e.preventDefault();
      var live = document.getElementById("live");
      if (live && live.dataset.refresh) window.location.assign(live.dataset.refresh);
      return;
    }
    var shown = shownVersion();
    var incoming = parseInt(e.detail.lastEventId, 10);
    if (!isNaN(shown) && !isNaN(incoming) && incoming <= shown) e.preventDefault();
  });
  // The board's version as shown, and as in an answer's HTML (NaN when it holds no board).
  function shownVersion() {
    var board = document.querySelector("#board .board");
    return board ? parseInt(board.dataset.version, 10) : NaN;
  }
  function answerVersion(html) {
    var found = /class="board"[^>]*? data-version="(\d+)"/.exec(html || "");
    return found ? parseInt(found[1], 10) : NaN;
  }
  // A field whose entry differs from what the page was sent with.
  function unsent(el) {
    if (el instanceof HTMLSelectElement) {
      return Array.prototype.some.call(el.options, function (o) { return o.selected !== o.defaultSelected; });
    }
    if (el instanceof HTMLInputElement && (el.type === "checkbox" || el.type === "radio")) {
      return el.checked !== el.defaultChecked;
    }
    if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement) {
      return el.type !== "hidden" && el.value !== el.defaultValue;
    }
    return false;
  }
  // Updates morph the board in place (idiomorph) instead of replacing it, so a tap that
  // lands while another player's change arrives still hits its button, and a <details>
  // the player opened stays open.
  if (window.Idiomorph) {
    window.Idiomorph.defaults.ignoreActiveValue = true; // keep what the player is typing
    window.Idiomorph.defaults.callbacks.beforeAttributeUpdated = function (name, node) {
      return !(name === "open" && node.tagName === "DETAILS");
    };
    // What the player typed, ticked or chose in a form stays when another player's change
    // morphs the board — also while the form is being sent, until its answer: idiomorph
    // keeps only the focused field's value, and the half-filled room of a Quest explore or
    // the items ticked to sell were wiped. The answer that says the form was done sets its
    // fields as the server renders them (emptied), the focused one too (it kept the amount
    // just sent, inviting a second tap); a refusal leaves them as typed, to be corrected.
    var answered = new Set(); // the fields of a form whose answer is being morphed in
    function fields(elt) {
      var form = elt && elt.closest ? elt.closest("form") : null;
      return form ? Array.prototype.slice.call(form.elements) : [];
    }
    window.Idiomorph.defaults.callbacks.beforeNodeMorphed = function (node) {
      if (node.nodeType !== 1) return true;
      if (answered.has(node)) {
        if (node === document.activeElement) node.blur(); // else idiomorph keeps its value
        return true;
      }
      return !unsent(node);
    };
    document.addEventListener("htmx:beforeSwap", function (e) {
      var sender = e.detail.requestConfig && e.detail.requestConfig.elt; // detail.elt is the target
      if (e.detail.xhr && e.detail.xhr.status < 400) fields(sender).forEach(function (el) { answered.add(el); });
    });
    document.addEventListener("htmx:afterSwap", function () { answered.clear(); });
    // The answer to this phone's last tap (with its Undo or "Allow it") stays when another
    // player's change arrives: only this phone's next answer replaces it, or the player puts it away.
    window.Idiomorph.defaults.callbacks.beforeNodeRemoved = function (node) {
      return node.id !== "answer";
    };
    // ignoreActiveValue leaves the focused element's children alone: a tapped button would keep
    // its old label while the morph reuses it for another action. Only inputs need that care.
    ["htmx:beforeSwap", "htmx:sseBeforeMessage"].forEach(function (name) {
      document.addEventListener(name, function () {
        var active = document.activeElement;
        if (active && active.tagName === "BUTTON") active.blur();
      });
    });
  }
  // The objection window: count down from the seconds the server said were left when it
  // rendered the board (no reliance on the phone's clock); the server still decides. A live
  // update morphs the same element with a newer, smaller figure: the count starts again
  // from that one (counting the old start would end the countdown before the server's).
  // "Take the rewards" is greyed out until the count reaches 0, so that a tap in the window
  // is not answered with a refusal (without JavaScript it stays a button the server judges).
  var countdownStarted = new WeakMap(); // element -> {from: its data-remaining, at: when seen}
  var tenths = new Intl.NumberFormat(document.documentElement.lang || undefined,
                                     { minimumFractionDigits: 1, maximumFractionDigits: 1 });
  setInterval(function () {
    document.querySelectorAll(".countdown[data-remaining]").forEach(function (el) {
      var seen = countdownStarted.get(el);
      if (!seen || seen.from !== el.dataset.remaining) {
        seen = { from: el.dataset.remaining, at: Date.now() };
        countdownStarted.set(el, seen);
      }
      var left = parseFloat(seen.from) - (Date.now() - seen.at) / 1000;
      el.textContent = tenths.format(Math.max(0, left)); // "2,3" on an Italian phone
      var claim = el.closest(".claim");
      claim.classList.toggle("ready", left <= 0);
      var take = claim.querySelector("button[data-action='combat.resolve']");
      if (take) take.disabled = left > 0;
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
  document.addEventListener("htmx:sseMessage", function () { localTimes(document.getElementById("board")); });
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") refresh();
  });
  window.addEventListener("pageshow", function (e) { if (e.persisted) refresh(); });

  // Honest about the connection (templates/_feedback.html). The live stream errs whenever it
  // ends, also normally (the server closes it now and then, the browser reconnects in a
  // second), so an error only asks the server's health check; when that fails too, the
  // banner says the server cannot be reached and the check is asked again every few seconds.
  // When the server answers (or the stream opens again) the banner goes and the board is
  // fetched again: what changed meanwhile is shown at once.
  var HEALTH_EVERY_MS = 2000;
  var HEALTH_TIMEOUT_MS = 4000;
  var connection = document.getElementById("connection");
  var polling = null;
  function isOffline() { return polling !== null; }
  function goOffline() {
    if (!connection || isOffline()) return;
    connection.textContent = connection.dataset.msgOffline;
    polling = setInterval(check, HEALTH_EVERY_MS);
  }
  function backOnline() {
    if (!isOffline()) return;
    clearInterval(polling);
    polling = null;
    connection.textContent = "";
    // what was said of the connection (a tap not sent, or not answered) is past: the board speaks now
    document.querySelectorAll("#feedback [data-connection]").forEach(function (said) { said.remove(); });
    if (quiet) { window.location.reload(); return; } // the old stream is not to be trusted: a new one
    refresh();
  }
  function check() {
    if (!connection || !window.fetch) return;
    var abort = window.AbortController ? new AbortController() : null;
    var timer = abort && setTimeout(function () { abort.abort(); }, HEALTH_TIMEOUT_MS);
    fetch(connection.dataset.health, { cache: "no-store", signal: abort && abort.signal }).then(function (answer) {
      if (answer.ok) backOnline(); else goOffline();
    }, goOffline).then(function () { clearTimeout(timer); });
  }
  // A link can also die without a word (a Wi-Fi that roamed, a router that forgot the
  // connection): the stream just goes quiet and the board would look live while it is not.
  // The server sends a ping every few seconds (web/streams.py); when nothing at all is heard
  // for data-quiet-ms (#live, from the server's keep-alive time), the banner asks the health
  // check, and once the server answers the page is loaded again, with a stream of its own.
  var live = document.getElementById("live");
  var quietMs = live && parseInt(live.dataset.quietMs, 10);
  var heard = Date.now();
  var quiet = false;
  function hear() { heard = Date.now(); }
  if (window.htmx && quietMs) {
    var makeSource = window.htmx.createEventSource; // the SSE extension's (set, or left to us)
    window.htmx.createEventSource = function (url) {
      var source = makeSource ? makeSource(url) : new EventSource(url, { withCredentials: true });
      hear();
      ["open", "ping", "board", "state", "gone"].forEach(function (name) { source.addEventListener(name, hear); });
      return source;
    };
    setInterval(function () {
      if (quiet || isOffline() || document.hidden || Date.now() - heard < quietMs) return;
      quiet = true;
      goOffline();
      check();
    }, 1000);
    document.addEventListener("visibilitychange", function () { if (!document.hidden) hear(); }); // woken: a fresh start
  }
  document.addEventListener("htmx:sseError", function () { if (!isOffline()) check(); });
  document.addEventListener("htmx:sseOpen", backOnline);
  window.addEventListener("offline", goOffline);
  window.addEventListener("online", function () { if (isOffline()) check(); else refresh(); });

  // The answer to every tap is shown in the screen. The board's own notice is a toast fixed
  // at the bottom (app.css); an error the server answers outside the board comes as a toast
  // for #feedback (HX-Retarget, web/security.py); a tap that cannot reach the server, or an
  // error page from something in between (a proxy), is refused in #feedback in so many words.
  // Nothing waits for the connection to come back: a tap that was not sent did not happen, and
  // the phone says so (taps made while the last one's answer is on its way are sent after it).
  var TAP_TIMEOUT_MS = 10000;
  if (window.htmx) window.htmx.config.timeout = TAP_TIMEOUT_MS;
  var feedback = document.getElementById("feedback");
  function boardToastsGo() {
    document.querySelectorAll("#board .toast").forEach(function (old) { old.remove(); });
  }
  var CONNECTION_MESSAGES = ["msgUnsent", "msgLost", "msgTimeout"]; // gone once the server answers again
  function say(message, status) { // message: a data-msg-* of #feedback
    var template = document.getElementById("feedback-toast");
    if (!feedback || !template) return;
    var toast = template.content.firstElementChild.cloneNode(true);
    toast.querySelector("p").textContent = feedback.dataset[message].replace("{status}", status);
    if (CONNECTION_MESSAGES.indexOf(message) >= 0) toast.dataset.connection = message;
    boardToastsGo();
    feedback.replaceChildren(toast);
  }
  function isTap(e) { return e.detail.elt && e.detail.elt.id !== "live"; } // not the board's own refresh
  document.addEventListener("htmx:beforeRequest", function (e) {
    if (navigator.onLine !== false) return;
    e.preventDefault(); // no network at all: refuse at once instead of waiting for a time-out
    if (isTap(e)) say("msgUnsent");
    goOffline();
  });
  document.addEventListener("htmx:sendError", function (e) { // sent, perhaps, but no answer came
    if (isTap(e)) say("msgLost");
    check();
  });
  // Each tap carries a key of its own (Idempotency-Key): when the browser sends it again by
  // itself (a reused connection broke after the server had answered), the server applies it
  // once and answers with what the first one did (store.perform). getRandomValues, not
  // randomUUID: a phone on the LAN's plain http:// is no secure context.
  function tapKey() {
    var bytes = new Uint8Array(16);
    window.crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) { return (b + 256).toString(16).slice(1); }).join("");
  }
  document.addEventListener("htmx:configRequest", function (e) {
    if (e.detail.verb !== "get" && window.crypto && window.crypto.getRandomValues) {
      e.detail.headers["Idempotency-Key"] = tapKey();
    }
  });
  document.addEventListener("htmx:timeout", function (e) {
    if (isTap(e)) say("msgTimeout");
    check();
  });
  document.addEventListener("htmx:beforeSwap", function (e) {
    var xhr = e.detail.xhr;
    if (!xhr || xhr.status < 400) return;
    var target = e.detail.target;
    var ours = xhr.getResponseHeader("HX-Retarget") ||  // web/security.py's toast
      (target && target.id === "board" && /class="board"/.test(xhr.responseText)); // a board with its refusal
    if (ours) {
      e.detail.shouldSwap = true;
      e.detail.isError = false; // answered, and shown: no console error
    } else {
      e.detail.shouldSwap = false;
      if (isTap(e)) say("msgFailed", xhr.status);
      if (xhr.status >= 500) check(); // a proxy answering for a server that is gone
    }
  });
  // Every tap counts: a tap on a button whose last tap still waits for its answer is held and
  // sent after that answer, one at a time (htmx's own queue lives on the form, and a morph of
  // the board that re-initialises the form forgets it: a quick second tap was lost without a
  // word). Taps on other buttons go at once, as before. A button's form has an id naming what
  // it does (web/render.py), so a held tap goes out from the form of that id even when the
  // morph replaced the element; a held tap whose button the answer took away (a second "End
  // turn") is not sent, and the phone says so.
  var sending = new Map(); // form (its id, else the element) → taps sent and not yet answered
  var held = [];           // {detail, form, key}: taps waiting for the one before on their button
  var releasing = false;
  function isPost(elt, verb) { return elt && elt.id !== "live" && verb && verb !== "get"; }
  function keyOf(elt) { return elt.id || elt; }
  function busy(key) {
    return (sending.get(key) || 0) > 0 || held.some(function (h) { return h.key === key; });
  }
  document.addEventListener("htmx:confirm", function (e) {
    var elt = e.detail.elt;
    if (releasing || !isPost(elt, e.detail.verb) || !busy(keyOf(elt))) return;
    e.preventDefault();
    held.push({ detail: e.detail, form: elt, key: keyOf(elt) });
  });
  document.addEventListener("htmx:beforeSend", function (e) {
    var xhr = e.detail.xhr;
    if (!xhr || !isPost(e.detail.elt, (e.detail.requestConfig || {}).verb)) return;
    var key = keyOf(e.detail.elt);
    sending.set(key, (sending.get(key) || 0) + 1);
    xhr.addEventListener("loadend", function () {
      if (sending.get(key) > 1) sending.set(key, sending.get(key) - 1); else sending.delete(key);
      window.setTimeout(sendHeld, 0); // after htmx has swapped the answer in and freed the form
    });
  });
  function sendHeld() {
    var gone = false;
    var waiting = held;
    held = [];
    waiting.forEach(function (next) {
      if (busy(next.key)) {
        held.push(next); // its button's tap before it is still on its way (or held before it)
        return;
      }
      var form = next.form.isConnected ? next.form
        : next.form.tagName === "FORM" && next.form.id ? document.getElementById(next.form.id) : null;
      if (!form) { gone = true; return; }
      releasing = true;
      try {
        if (form === next.form) next.detail.issueRequest(true); // a fresh Idempotency-Key all the same
        else form.requestSubmit();
      } finally { releasing = false; }
    });
    if (gone) say("msgGone");
  }
  // Answers can overtake each other (two connections, a busy server): the stream's copy of a
  // change often arrives before the tapping phone's own answer, and a slow answer after the
  // next tap's. A board older than the one shown never replaces it, and the answer to an
  // earlier tap never replaces a later tap's unless it brings a newer board.
  var tapsSent = 0;
  var tapsAnswered = 0;
  document.addEventListener("htmx:beforeRequest", function (e) {
    if (isTap(e) && e.detail.xhr) e.detail.xhr.tapNo = ++tapsSent;
  });
  document.addEventListener("htmx:beforeSwap", function (e) {
    var xhr = e.detail.xhr;
    var target = e.detail.target;
    if (!e.detail.shouldSwap || !xhr || !target) return;
    if (target.id !== "board" && target !== feedback) return; // a search's results, the Charity answer…
    var tap = xhr.tapNo || 0;
    var outrun = tap > 0 && tap < tapsAnswered;
    var incoming = answerVersion(xhr.responseText);
    var shown = shownVersion();
    var older = target.id === "board" && incoming < shown;
    if (outrun && (older || incoming === shown || target === feedback)) {
      e.detail.shouldSwap = false;
      return;
    }
    if (tap) tapsAnswered = Math.max(tapsAnswered, tap);
    if (older) { // this phone's newest answer, overtaken by another change: its notice and Undo only
      e.detail.shouldSwap = false;
      showAnswerOnly(xhr.responseText);
    }
  });
  function showAnswerOnly(html) {
    var answer = new DOMParser().parseFromString(html, "text/html").getElementById("answer");
    var board = document.querySelector("#board .board");
    if (!answer || !board) return;
    var shown = document.getElementById("answer");
    if (shown) shown.replaceWith(answer); else board.appendChild(answer);
    window.htmx.process(answer);
    if (feedback) feedback.replaceChildren();
  }
  document.addEventListener("htmx:afterSwap", function (e) { // one answer at a time: the newest
    var target = e.detail.target;
    if (!feedback || !target) return;
    if (target.id === "board" && target.querySelector(".toast")) feedback.replaceChildren();
    else if (target === feedback) boardToastsGo();
  });
  document.addEventListener("click", function (e) {
    var button = e.target.closest && e.target.closest(".toast .dismiss");
    if (button) button.closest(".toast").remove();
    var feed = e.target.closest && e.target.closest("#feed"); // the table feed: two lines, or all of it
    if (feed) feed.classList.toggle("whole");
  });
})();
// Scanning a card: the photo, from the live camera view or from the phone's camera app, is
// shrunk in the browser (a phone photo is 3–12 MB; 1600 px is plenty), uploaded with a
// progress bar, and the answer is shown with its one-tap buttons.
(function () {
  "use strict";
  // How long the browser may take to open the camera (a permission prompt included) before
  // the phone's camera app is used instead.
  var CAMERA_TIMEOUT_MS = 15000;
  // The back camera, at about the size the upload keeps (a fake or a small camera gives less).
  var CAMERA = { audio: false, video: { facingMode: { ideal: "environment" }, width: { ideal: 1920 }, height: { ideal: 1080 } } };
  // A JPEG of source (a decoded photo or the live video) at most maxSide px on its longer side.
  function jpeg(source, width, height, maxSide) {
    var scale = Math.min(1, maxSide / Math.max(width, height));
    var canvas = document.createElement("canvas");
    canvas.width = Math.round(width * scale);
    canvas.height = Math.round(height * scale);
    canvas.getContext("2d").drawImage(source, 0, 0, canvas.width, canvas.height);
    return new Promise(function (resolve) { canvas.toBlob(resolve, "image/jpeg", 0.88); });
  }
  function shrink(file, maxSide) {
    if (!window.createImageBitmap) return Promise.resolve(file);
    return createImageBitmap(file, { imageOrientation: "from-image" }).then(function (bitmap) {
      return jpeg(bitmap, bitmap.width, bitmap.height, maxSide);
    }).then(function (blob) { return blob || file; }, function () {
      return file; // not decodable here: let the server say why
    });
  }
  function maxSide(form) { return parseInt(form.dataset.maxSide, 10) || 1600; }
  // The one way a scan photo reaches the server, whichever camera took it.
  function upload(form, blob) {
    var progress = document.getElementById("scan-progress");
    var status = document.getElementById("scan-status");
    var target = document.getElementById("scan-result");
    var msg = form.dataset; // the words, in the phone's language, come from the page
    var data = new FormData();
    data.append("csrf_token", form.elements.csrf_token.value);
    data.append("photo", blob, "photo.jpg");
    var xhr = new XMLHttpRequest();
    xhr.open("POST", form.action);
    xhr.setRequestHeader("HX-Request", "true");
    progress.hidden = false;
    progress.value = 0;
    xhr.upload.onprogress = function (p) {
      if (p.lengthComputable) progress.value = Math.round(100 * p.loaded / p.total);
      status.textContent = p.loaded < p.total ? msg.msgUploading : msg.msgRecognising;
    };
    xhr.onload = function () {
      progress.hidden = true;
      status.textContent = "";
      if (/<html/i.test(xhr.responseText)) { // an error page from outside the scan view
        status.textContent = xhr.status === 413 ? msg.msgTooLarge : msg.msgFailed.replace("{status}", xhr.status);
        return;
      }
      target.innerHTML = xhr.responseText;
      if (window.htmx) window.htmx.process(target);
      target.scrollIntoView({ behavior: "smooth", block: "nearest" });
    };
    xhr.onerror = function () {
      progress.hidden = true;
      status.textContent = msg.msgOffline;
    };
    xhr.send(data);
  }
  document.addEventListener("change", function (e) {
    var input = e.target;
    if (input.id !== "scan-photo" || !input.files || !input.files.length) return;
    document.getElementById("scan-status").textContent = input.form.dataset.msgPreparing;
    shrink(input.files[0], maxSide(input.form)).then(function (blob) { upload(input.form, blob); });
    input.value = "";
  });

  // The live camera view (templates/_scan_form.html's <dialog>). Browsers offer the camera
  // only in a secure context (https, or the server's own machine): on a LAN over plain http
  // there is no navigator.mediaDevices and the button stays the file input, which opens the
  // phone's camera app. When the camera is refused, missing or too slow, the page says so
  // and the file input takes over for the rest of the page's life.
  var camera = null;     // the live stream while the viewfinder shows it
  var opening = false;   // the browser is being asked for the camera
  function liveCamera(form) {
    return !!(navigator.mediaDevices && navigator.mediaDevices.getUserMedia) && !form.dataset.cameraFailed;
  }
  function stop(stream) { stream.getTracks().forEach(function (track) { track.stop(); }); }
  function stopCamera() {
    if (camera) stop(camera);
    camera = null;
  }
  function fallBack(form) {
    form.dataset.cameraFailed = "1";
    document.getElementById("scan-status").textContent = form.dataset.msgNoCamera;
    // Still within the player's tap: open the camera app now (a browser refuses it later).
    if (!navigator.userActivation || navigator.userActivation.isActive) form.elements.photo.click();
  }
  function openCamera(form) {
    var dialog = document.getElementById("viewfinder");
    var video = document.getElementById("viewfinder-video");
    var status = document.getElementById("scan-status");
    var settled = false;
    function settle() { // the first of the camera, a refusal and the time-out decides
      if (settled) return false;
      settled = true;
      opening = false;
      clearTimeout(timer);
      return true;
    }
    opening = true;
    status.textContent = form.dataset.msgCameraStarting;
    var timer = setTimeout(function () { if (settle()) fallBack(form); }, CAMERA_TIMEOUT_MS);
    navigator.mediaDevices.getUserMedia(CAMERA).then(function (stream) {
      if (!settle()) return stop(stream); // too late: the camera app has taken over
      status.textContent = "";
      if (document.visibilityState === "hidden") return stop(stream); // the player left while the browser asked
      camera = stream;
      stream.getVideoTracks().forEach(function (track) { // the system took the camera away
        track.addEventListener("ended", function () { if (dialog.open) dialog.close(); });
      });
      video.srcObject = stream;
      dialog.showModal();
      document.getElementById("viewfinder-take").focus();
    }).catch(function () { // NotAllowedError, NotFoundError, NotReadableError, …
      if (settle()) fallBack(form);
    });
  }
  // The label's tap (and Enter on the focused input) clicks the file input: with a live
  // camera, the viewfinder opens instead of the file picker.
  document.addEventListener("click", function (e) {
    var target = e.target;
    if (target.id === "scan-photo" && liveCamera(target.form)) {
      e.preventDefault();
      if (!opening && !camera) openCamera(target.form);
    } else if (target.id === "viewfinder-cancel") {
      document.getElementById("viewfinder").close();
    } else if (target.id === "viewfinder-take") {
      var video = document.getElementById("viewfinder-video");
      if (!video.videoWidth) return; // no picture yet
      var form = target.form;
      var photo = jpeg(video, video.videoWidth, video.videoHeight, maxSide(form)); // drawn now, before the camera stops
      document.getElementById("viewfinder").close();
      document.getElementById("scan-status").textContent = form.dataset.msgPreparing;
      photo.then(function (blob) { if (blob) upload(form, blob); });
    }
  });
  // However the viewfinder closes (photo, Cancel, Escape, page hidden), the camera stops and
  // the focus returns to the scan button.
  document.addEventListener("close", function (e) {
    if (e.target.id !== "viewfinder") return;
    stopCamera();
    document.getElementById("viewfinder-video").srcObject = null;
    document.getElementById("scan-photo").focus();
  }, true);
  document.addEventListener("visibilitychange", function () {
    var dialog = document.getElementById("viewfinder");
    if (document.visibilityState === "hidden" && dialog && dialog.open) dialog.close();
  });
  // Other photo inputs (teaching the scanner a card): shrink the chosen photo in place, so
  // the plain form posts a few hundred KB instead of the camera's megabytes.
  document.addEventListener("change", function (e) {
    var input = e.target;
    if (!input.matches || !input.matches("input[type=file][data-shrink]") || !input.files || !input.files.length) return;
    if (!window.DataTransfer) return;
    var button = input.form && input.form.querySelector("button[type=submit]");
    if (button) button.disabled = true;
    shrink(input.files[0], parseInt(input.dataset.shrink, 10) || 1600).then(function (blob) {
      if (blob !== input.files[0]) {
        var files = new DataTransfer();
        files.items.add(new File([blob], "photo.jpg", { type: "image/jpeg" }));
        input.files = files.files;
      }
      if (button) button.disabled = false;
    });
  });
  // Once the scanned card has been played, its answer has done its job.
  document.addEventListener("htmx:afterRequest", function (e) {
    var target = document.getElementById("scan-result");
    if (target && target.contains(e.detail.elt) && e.detail.successful) target.innerHTML = "";
  });
})();
