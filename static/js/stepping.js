// Stepping through a program: ← and → go to the previous and next step. The page works
// without this file (every control is a link or a GET form); with htmx, those links swap
// the step region only. Set up with htmx.onLoad, inside what loaded only, once per region.
(function () {
  "use strict";

  function typing(target) {
    if (!target || !target.closest) {
      return false;
    }
    return Boolean(target.closest("input:not([type=range]), textarea, select, [contenteditable]"));
  }

  function go(which) {
    var link = document.querySelector("#step-region [data-step-" + which + "]");
    if (link) {
      link.click();
      return true;
    }
    return false;
  }

  // One listener for the page, added when the first step region loads.
  var listening = false;

  function listen() {
    if (listening) {
      return;
    }
    listening = true;
    document.addEventListener("keydown", function (event) {
      if (event.altKey || event.ctrlKey || event.metaKey || typing(event.target)) {
        return;
      }
      if (!document.getElementById("step-region")) {
        return;
      }
      var done = false;
      if (event.key === "ArrowRight") {
        done = go("next");
      } else if (event.key === "ArrowLeft") {
        done = go("previous");
      }
      if (done) {
        event.preventDefault();
      }
    });
  }

  function setUp(region) {
    if (region.dataset.enhanced) {
      return;
    }
    region.dataset.enhanced = "true";
    listen();
    // The slider says where it is as it moves; the step loads when it is let go.
    var slider = region.querySelector("input[type=range]");
    if (slider) {
      slider.addEventListener("input", function () {
        slider.setAttribute("aria-valuetext", "Step " + slider.value + " of " + slider.max);
      });
    }
  }

  htmx.onLoad(function (root) {
    var regions = [];
    if (root.id === "step-region") {
      regions.push(root);
    }
    root.querySelectorAll("#step-region").forEach(function (region) {
      regions.push(region);
    });
    regions.forEach(setUp);
  });
})();
