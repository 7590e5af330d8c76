// Stepping through a program: ← and → go to the previous and next step. The page works
// without this file (every control is a link or a GET form); with htmx, those links swap
// the step region only. Set up with htmx.onLoad, inside what loaded only, once per region.
//
// Keys pressed faster than steps arrive are not lost: the step wanted is counted from the
// last one asked for, and asked for as soon as the one in flight has arrived.
(function () {
  "use strict";

  var wanted = null; // the step the keys have asked for, not yet shown
  var busy = false;

  function region() {
    return document.getElementById("step-region");
  }

  function typing(target) {
    if (!target || !target.closest) {
      return false;
    }
    return Boolean(target.closest("input:not([type=range]), textarea, select, [contenteditable]"));
  }

  function fetchWanted() {
    var here = region();
    var number = wanted;
    if (!here || number === null) {
      return;
    }
    busy = true;
    var url = here.dataset.stepUrl.replace(/0\/$/, number + "/");
    htmx.ajax("GET", url, { target: "#step-region", swap: "outerHTML" }).then(
      function () {
        busy = false;
        if (wanted === number) {
          wanted = null;
        } else {
          fetchWanted();
        }
      },
      function () {
        busy = false;
        wanted = null;
      }
    );
  }

  function go(delta) {
    var here = region();
    if (!here) {
      return false;
    }
    var current = wanted !== null ? wanted : parseInt(here.dataset.step, 10);
    var total = parseInt(here.dataset.total, 10);
    var next = Math.min(total, Math.max(1, current + delta));
    if (next === current) {
      return false;
    }
    wanted = next;
    if (!busy) {
      fetchWanted();
    }
    return true;
  }

  var listening = false; // one listener for the page, added with the first step region

  function listen() {
    if (listening) {
      return;
    }
    listening = true;
    document.addEventListener("keydown", function (event) {
      if (event.altKey || event.ctrlKey || event.metaKey || typing(event.target)) {
        return;
      }
      // A right-to-left page mirrors the step bar (Next on the left): the arrows follow it.
      var rtl = document.documentElement.dir === "rtl";
      var done = false;
      if (event.key === (rtl ? "ArrowLeft" : "ArrowRight")) {
        done = go(1);
      } else if (event.key === (rtl ? "ArrowRight" : "ArrowLeft")) {
        done = go(-1);
      }
      if (done) {
        event.preventDefault();
      }
    });
  }

  // The step bar stays at the top (stepping.css): the page keeps its height clear when it
  // brings something into view, and each step brings its current line into view under it,
  // so Next and the line it moves are on one screen (a phone too).
  function showCurrentLine(here) {
    var nav = here.querySelector(".step-nav");
    if (nav) {
      document.documentElement.style.setProperty("--step-nav-space", nav.offsetHeight + "px");
    }
    var line = here.querySelector(".code-line.is-current");
    if (!line) {
      return;
    }
    var box = line.getBoundingClientRect();
    var top = nav ? nav.getBoundingClientRect().bottom : 0;
    if (box.top < top || box.bottom > window.innerHeight) {
      line.scrollIntoView({ block: "nearest", behavior: "instant" });
    }
  }

  function setUp(here) {
    if (here.dataset.enhanced) {
      return;
    }
    here.dataset.enhanced = "true";
    listen();
    showCurrentLine(here);
    // The slider says where it is as it moves; the step loads when it is let go.
    var slider = here.querySelector("input[type=range]");
    if (slider) {
      slider.addEventListener("input", function () {
        slider.setAttribute("aria-valuetext", interpolate(gettext("Step %(number)s of %(total)s"), {number: slider.value, total: slider.max}, true));
      });
    }
  }

  htmx.onLoad(function (root) {
    var regions = [];
    if (root.id === "step-region") {
      regions.push(root);
    }
    root.querySelectorAll("#step-region").forEach(function (found) {
      regions.push(found);
    });
    regions.forEach(setUp);
  });
})();
