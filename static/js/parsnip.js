// Parsnip's own script: the glossary preview popover (and fresh pages on Back), the one rule
// for refusals, and polls that ask again.
//
// The popover: htmx swaps a term's preview into the page's one #term-popover; this places
// the popover next to the link that asked for it, keeps it open while the pointer or focus
// stays there, and closes it on Escape.
// (The popover, not the swapped #term-preview, carries the position: htmx copies a
// swapped element's attributes while settling, and a copied style attribute is inline
// style, which the Content-Security-Policy refuses.)
// The browser's time zone, for times shown and typed in it (tutor/time_zones.py): a
// cookie the server reads on the next request; set again only when it changed. A page
// that shows or asks for times and was made in the zone the browser just left is fetched
// again at once, so it never lags one page behind (a first visit, with no cookie yet, shows
// the class's zone, named, as documented in docs/assignments.md): once per zone
// and tab (a browser that keeps no cookie must not reload for ever), and not over a form
// the server sent back with errors (what was typed there would be lost).
(function () {
  "use strict";
  var zone;
  try {
    zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  } catch (error) {
    return;
  }
  if (!zone || document.cookie.split("; ").indexOf("tz=" + encodeURIComponent(zone)) >= 0) {
    return;
  }
  var changed = document.cookie.split("; ").some(function (pair) {
    return pair.indexOf("tz=") === 0;
  });
  document.cookie = "tz=" + encodeURIComponent(zone) + "; path=/; max-age=31536000; SameSite=Lax";
  if (!changed || document.cookie.split("; ").indexOf("tz=" + encodeURIComponent(zone)) < 0) {
    return; // a first visit, or cookies are refused: nothing to gain by asking again
  }
  var done;
  try {
    done = window.sessionStorage.getItem("parsnip-zone-reloaded") === zone;
    window.sessionStorage.setItem("parsnip-zone-reloaded", zone);
  } catch (error) {
    return;
  }
  function showsTimes() {
    return (
      document.querySelector("time[datetime], input[type=datetime-local], [data-time-zone]") &&
      !document.querySelector(".errorlist, [aria-invalid=true]")
    );
  }
  if (done) {
    return;
  }
  function again() {
    if (showsTimes()) {
      window.location.replace(window.location.href);
    }
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", again);
  } else {
    again();
  }
})();

(function () {
  "use strict";

  var POPOVER_ID = "term-popover";
  var PREVIEW_ID = "term-preview";
  var HIDE_DELAY_MS = 250;
  var wanted = null; // the term link whose preview the reader is waiting for
  var shownFor = null; // the term link whose preview is on screen
  var hideTimer = null;

  function popoverElement() {
    return document.getElementById(POPOVER_ID);
  }

  function termLink(node) {
    return node && node.closest ? node.closest("a.term-link") : null;
  }

  function cancelHide() {
    if (hideTimer) {
      clearTimeout(hideTimer);
      hideTimer = null;
    }
  }

  function hide() {
    cancelHide();
    var popover = popoverElement();
    if (popover) {
      popover.hidden = true;
    }
    if (shownFor) {
      shownFor.removeAttribute("aria-describedby");
    }
    shownFor = null;
    wanted = null;
  }

  function hideSoon() {
    cancelHide();
    hideTimer = setTimeout(hide, HIDE_DELAY_MS);
  }

  function place(popover, link) {
    // Below the link, or above it when there is no room below; never off screen.
    var rect = link.getClientRects()[0] || link.getBoundingClientRect();
    var viewportWidth = document.documentElement.clientWidth;
    var margin = 12;
    popover.hidden = false;
    var width = popover.offsetWidth;
    var height = popover.offsetHeight;
    var left = Math.min(rect.left, viewportWidth - width - margin);
    left = Math.max(margin, left);
    var top = rect.bottom + 8;
    if (top + height > window.innerHeight - margin && rect.top - height - 8 > margin) {
      top = rect.top - height - 8;
    }
    popover.style.left = left + window.scrollX + "px";
    popover.style.top = top + window.scrollY + "px";
  }

  function show(link) {
    var popover = popoverElement();
    if (!popover) {
      return;
    }
    if (shownFor && shownFor !== link) {
      shownFor.removeAttribute("aria-describedby");
    }
    cancelHide();
    place(popover, link);
    link.setAttribute("aria-describedby", PREVIEW_ID);
    shownFor = link;
  }

  function requester(event) {
    var config = event.detail && event.detail.requestConfig;
    return config ? termLink(config.elt) : null;
  }

  document.addEventListener("mouseover", function (event) {
    var link = termLink(event.target);
    if (link) {
      wanted = link;
      cancelHide();
    } else if (event.target.closest && event.target.closest("#" + POPOVER_ID)) {
      cancelHide();
    }
  });

  document.addEventListener("mouseout", function (event) {
    var from = termLink(event.target) || (event.target.closest && event.target.closest("#" + POPOVER_ID));
    if (!from) {
      return;
    }
    var to = event.relatedTarget;
    if (to && (from.contains(to) || (to.closest && to.closest("#" + POPOVER_ID)) || termLink(to) === shownFor)) {
      return;
    }
    if (wanted === termLink(event.target)) {
      wanted = null;
    }
    hideSoon();
  });

  document.addEventListener("focusin", function (event) {
    var link = termLink(event.target);
    if (link) {
      wanted = link;
      cancelHide();
    }
  });

  document.addEventListener("focusout", function (event) {
    var link = termLink(event.target);
    if (link && link === shownFor) {
      hide();
    } else if (link && link === wanted) {
      wanted = null;
    }
  });

  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape" && (shownFor || wanted)) {
      hide();
    }
  });

  // A preview that arrives after the reader moved on is dropped, not shown.
  document.addEventListener("htmx:beforeSwap", function (event) {
    var link = requester(event);
    if (link && link !== wanted) {
      event.detail.shouldSwap = false;
    }
  });

  document.addEventListener("htmx:afterSettle", function (event) {
    var link = requester(event);
    if (link && link === wanted) {
      show(link);
    }
  });

  // A page brought back from the back/forward cache shows the state it was left in, but
  // practice may have moved on since (a reveal, another tab): load it afresh.
  window.addEventListener("pageshow", function (event) {
    if (event.persisted && document.querySelector(".practice-slot")) {
      window.location.reload();
    }
  });

  window.addEventListener("resize", function () {
    if (shownFor) {
      hide();
    }
  });
})();

// One rule for refusals (course/htmx.py `refusal`): a 4xx, or the 503 "busy, try again" of
// an outage (tutor/outages.py), that names where its message goes (HX-Retarget, a panel's
// message line or the page's busy line) is swapped there, not dropped as an error. Other
// errors (403 CSRF, 404, 500) are left to htmx. The busy line empties at the next answer.
(function () {
  "use strict";

  document.addEventListener("htmx:beforeSwap", function (event) {
    var xhr = event.detail.xhr;
    var refused = (xhr.status >= 400 && xhr.status < 500) || xhr.status === 503;
    if (refused && xhr.getResponseHeader("HX-Retarget")) {
      event.detail.shouldSwap = true;
      event.detail.isError = false;
    }
  });

  var BUSY_SHOWN_MS = 8000;
  var busyTimer = null;

  document.addEventListener("htmx:afterRequest", function (event) {
    var busy = document.getElementById("busy-message");
    var xhr = event.detail.xhr;
    if (!busy || !xhr) {
      return;
    }
    if (xhr.status === 503) {
      clearTimeout(busyTimer);
      busyTimer = setTimeout(function () { busy.textContent = ""; }, BUSY_SHOWN_MS);
    } else if (busy.textContent && xhr.status >= 200 && xhr.status < 400) {
      busy.textContent = "";
    }
  });
})();

// A panel that waits for a run asks again when its request fails (the server restarting,
// a dropped connection): the run is safe on the server, so the answer must still arrive.
(function () {
  "use strict";

  var RETRY_DELAY_MS = 2000;

  function retryLater(event) {
    var element = event.detail && event.detail.elt;
    if (!element || !element.matches("[data-poll]")) {
      return;
    }
    setTimeout(function () {
      if (element.isConnected) {
        htmx.trigger(element, "parsnip:retry");
      }
    }, RETRY_DELAY_MS);
  }

  document.addEventListener("htmx:sendError", retryLater);
  document.addEventListener("htmx:responseError", retryLater);
  // Busy for a moment (503): its message is shown in the busy line, and the panel asks again.
  document.addEventListener("htmx:beforeSwap", function (event) {
    if (event.detail.xhr.status === 503) {
      retryLater(event);
    }
  });
})();

// Polling ([data-poll-every]: the live view, the projector, a raised hand) stops asking
// while the page is hidden (another tab, a minimised window): nobody reads it, and a class
// leaving tabs open would keep the server busy. Shown again, each such region asks at once,
// then every few seconds as before. (A panel waiting for a run, [data-poll], asks anyway.)
(function () {
  "use strict";

  document.addEventListener("htmx:beforeRequest", function (event) {
    var from = event.detail.elt;
    if (document.hidden && from && from.hasAttribute("data-poll-every")) {
      event.preventDefault();
    }
  });

  document.addEventListener("visibilitychange", function () {
    if (!document.hidden) {
      document.querySelectorAll("[data-poll-every]").forEach(function (region) {
        htmx.trigger(region, "parsnip:shown");
      });
    }
  });
})();

// The Raise-hand bar (templates/tutor/live/hand.html): the page reserves its height
// (--hand-space, read by live.css), measured again whenever it changes (a hand raised,
// a wrapped line); and its "About" follows the item the student last worked on (typed in,
// sent something from), as the server's choice did at page load.
(function () {
  "use strict";

  function bar() {
    return document.getElementById("raise-hand");
  }

  function measure() {
    var region = bar();
    if (region) {
      document.documentElement.style.setProperty("--hand-space", region.offsetHeight + "px");
    }
  }

  var observer = window.ResizeObserver ? new ResizeObserver(measure) : null;

  htmx.onLoad(function (root) {
    var region = root.id === "raise-hand" ? root : root.querySelector && root.querySelector("#raise-hand");
    if (!region) {
      return;
    }
    measure();
    if (observer) {
      observer.disconnect();
      observer.observe(region);
    }
  });

  function follow(event) {
    var target = event.type === "htmx:beforeRequest" ? event.detail.elt : event.target;
    if (event.type === "htmx:beforeRequest" && event.detail.requestConfig.verb === "get") {
      return; // a poll is not the student working
    }
    var item = target && target.closest ? target.closest("[data-block]") : null;
    var about = document.getElementById("hand-about");
    if (!item || !about) {
      return;
    }
    var value = item.getAttribute("data-block");
    for (var i = 0; i < about.options.length; i++) {
      if (about.options[i].value === value) {
        about.value = value;
        return;
      }
    }
  }

  ["input", "submit", "htmx:beforeRequest"].forEach(function (name) {
    document.addEventListener(name, follow, true);
  });
})();
