/* Hint ladders: once the next rung is swapped in, move focus to it (it is also announced:
   role="status"), so a keyboard or screen-reader user reads it and goes on from there; the
   button they pressed has been replaced. */
(function () {
  "use strict";
  htmx.onLoad(function (root) {
    if (!root.classList || !root.classList.contains("hint-ladder")) return;
    var rung = root.querySelector("[data-new-rung]");
    if (rung && !rung.dataset.focused) {
      rung.dataset.focused = "1";
      rung.focus();
    }
  });
})();
