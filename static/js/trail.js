// The trail (tutor/trail/): on a lesson page, records the code editors' edits and sends them
// in batches every few seconds (never per keystroke), a paste marked as one; on a replay page,
// plays the steps at 1×, 10× or 60× by following the page's own Next links. Both pages work
// without this file: then only runs and submissions are recorded, and steps are links.
(function () {
  "use strict";

  var SEND_EVERY_MS = 4000;
  var MERGE_WITHIN_MS = 2000; // typing at one place within this is one step
  var recorders = [];

  function spliceBetween(old, now) {
    var start = 0;
    var limit = Math.min(old.length, now.length);
    while (start < limit && old[start] === now[start]) start++;
    var end = 0;
    while (end < limit - start && old[old.length - 1 - end] === now[now.length - 1 - end]) end++;
    // Never between the two halves of an emoji (positions count UTF-16 units): 😀 to 😃
    // replaces the whole character, not its second half.
    if (start > 0 && /[\uD800-\uDBFF]/.test(old[start - 1])) start--;
    if (end > 0 && /[\uDC00-\uDFFF]/.test(old[old.length - end])) end--;
    return [start, old.length - start - end, now.slice(start, now.length - end)];
  }

  function record(form) {
    if (form.dataset.trailReady) return;
    form.dataset.trailReady = "true";
    var textarea = form.querySelector("textarea[name=code]");
    var url = form.dataset.trail;
    var last = textarea.value;
    var base = last; // sent with the first batch: where these edits start from
    var queue = []; // [time, kind, pos, delete, insert]
    var pasting = false;
    var sending = 0; // edits of the queue on their way to the server

    form.addEventListener("paste", function () {
      pasting = true;
      setTimeout(function () { pasting = false; }, 0);
    }, true);

    form.addEventListener("parsnip:edited", function () {
      var now = textarea.value;
      if (now === last) return;
      var splice = spliceBetween(last, now);
      last = now;
      var time = Date.now();
      var kind = pasting ? "p" : "e";
      var previous = queue[queue.length - 1];
      if (previous && kind === "e" && previous[1] === "e" && time - previous[0] < MERGE_WITHIN_MS) {
        if (splice[1] === 0 && previous[2] + previous[4].length === splice[0]) {
          previous[4] += splice[2]; // typing on
          return;
        }
        if (splice[2] === "" && previous[4] === "" && splice[0] + splice[1] === previous[2]) {
          previous[2] = splice[0]; // deleting backwards
          previous[3] += splice[1];
          return;
        }
      }
      queue.push([time, kind, splice[0], splice[1], splice[2]]);
    });

    // The fields of a batch of queue[from..]: each edit's age, the code the editor has now,
    // and where the edits start from when the server may not have it.
    function batch(from) {
      var now = Date.now();
      var data = new FormData();
      data.append("csrfmiddlewaretoken", form.querySelector("[name=csrfmiddlewaretoken]").value);
      data.append("edits", JSON.stringify(queue.slice(from).map(function (step) {
        return [Math.max(0, now - step[0]), step[1], step[2], step[3], step[4]];
      })));
      data.append("code", last);
      if (base !== null && from === 0) data.append("base", base);
      return data;
    }

    var pausedUntil = 0; // refused for recording too much (429): try again later

    function send() {
      if (sending || !queue.length || Date.now() < pausedUntil) return;
      sending = queue.length;
      var code = last;
      fetch(url, { method: "POST", body: batch(0), credentials: "same-origin" })
        .then(function (response) {
          // Sent, or refused as unreadable: either way the code it ended with is the server's
          // now. Kept for the next try only when it never arrived.
          if (response.status === 429) pausedUntil = Date.now() + 60000;
          if (response.ok || (response.status >= 400 && response.status < 500)) {
            queue.splice(0, sending);
            base = response.ok ? null : code;
          }
        })
        .catch(function () {})
        .then(function () { sending = 0; });
    }

    // Leaving: a beacon with what is not already on its way.
    function sendOnLeaving() {
      if (queue.length > sending && navigator.sendBeacon(url, batch(sending))) {
        queue.length = sending;
        if (!sending) base = null;
      }
    }

    // A run or a submission carries the edits not sent yet, so the server records them
    // before the moment, in the same write (htmx reads the fields after this listener).
    function carry(name, value) {
      var input = form.querySelector("input[name=" + name + "]");
      if (!input) {
        input = document.createElement("input");
        input.type = "hidden";
        input.name = name;
        form.appendChild(input);
      }
      input.value = value;
    }
    form.addEventListener("submit", function () {
      if (queue.length <= sending) return;
      var data = batch(sending);
      carry("trail_edits", data.get("edits"));
      carry("trail_base", data.has("base") ? base : "");
      carry("trail_has_base", data.has("base") ? "1" : "");
      queue.length = sending;
      if (!sending) base = null;
      setTimeout(function () {
        carry("trail_edits", "");
        carry("trail_has_base", "");
      }, 0);
    }, true);
    setInterval(send, SEND_EVERY_MS);
    recorders.push(sendOnLeaving);
  }

  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "hidden") recorders.forEach(function (leave) { leave(); });
  });
  window.addEventListener("pagehide", function () {
    recorders.forEach(function (leave) { leave(); });
  });

  // The replay's player: follow the step's Next link after the time the step really took,
  // divided by the speed.
  var speed = 0;
  var timer = null;

  // The speed playing shows pressed; none does once stopped.
  function showSpeed(player, chosen) {
    player.querySelectorAll("[data-speed]").forEach(function (button) {
      button.setAttribute("aria-pressed", String(button === chosen));
    });
  }

  function stop(player) {
    speed = 0;
    clearTimeout(timer);
    if (!player) return;
    player.querySelector("[data-pause]").disabled = true;
    player.removeAttribute("data-playing");
    showSpeed(player, null);
  }

  function playOn() {
    clearTimeout(timer);
    var region = document.getElementById("replay-step");
    if (!speed || !region || !region.dataset.nextUrl) {
      stop(document.querySelector("[data-trail-player]"));
      return;
    }
    var wait = Math.max(20, Number(region.dataset.nextInMs) / speed);
    timer = setTimeout(function () {
      htmx.ajax("GET", region.dataset.nextUrl, { target: "#replay-step", swap: "outerHTML" });
    }, wait);
  }

  function player(element) {
    if (element.dataset.ready) return;
    element.dataset.ready = "true";
    element.hidden = false;
    var pause = element.querySelector("[data-pause]");
    element.querySelectorAll("[data-speed]").forEach(function (button) {
      button.addEventListener("click", function () {
        speed = Number(button.dataset.speed);
        pause.disabled = false;
        element.setAttribute("data-playing", String(speed));
        showSpeed(element, button);
        playOn();
      });
    });
    pause.addEventListener("click", function () {
      stop(element);
    });
  }

  // ←/→ step back and on, as the step-through's pages do (not while typing in a field).
  document.addEventListener("keydown", function (event) {
    var region = document.getElementById("replay-step");
    if (!region || event.altKey || event.ctrlKey || event.metaKey || /INPUT|TEXTAREA|SELECT/.test(event.target.tagName)) return;
    // A right-to-left page mirrors the replay's links (Next on the left): the arrows follow them.
    var keys = document.documentElement.dir === "rtl"
      ? { ArrowLeft: "[data-next]", ArrowRight: "[data-prev]" }
      : { ArrowLeft: "[data-prev]", ArrowRight: "[data-next]" };
    var which = keys[event.key];
    var link = which && region.querySelector(which);
    if (link) {
      event.preventDefault();
      link.click();
    }
  });

  // Bring the step's change into view: a third of the way down the code box, then the page
  // only as far as it must (the step's links move as little as they can).
  function showChange(region) {
    var code = region.querySelector(".trail-code");
    var change = region.querySelector("#trail-change");
    if (!code || !change) return;
    var offset = change.getBoundingClientRect().top - code.getBoundingClientRect().top;
    code.scrollTop += offset - code.clientHeight / 3;
    change.scrollIntoView({ block: "nearest" });
  }

  htmx.onLoad(function (root) {
    var forms = root.matches && root.matches("form[data-trail]") ? [root] : root.querySelectorAll("form[data-trail]");
    Array.prototype.forEach.call(forms, record);
    root.querySelectorAll("[data-trail-player]").forEach(player);
    var region = root.id === "replay-step" ? root : root.querySelector && root.querySelector("#replay-step");
    if (region) showChange(region);
    if (root.id === "replay-step" && speed) playOn();
  });
})();
