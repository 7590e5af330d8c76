/* A timed quiz attempt: a countdown to the attempt's end on the server's clock (the page
   says the server's time when it was made, so a wrong clock here does not matter). When it
   reaches zero the form is sent as it stands: the server saves it and submits the attempt
   (on the confirm page, its Submit form is sent: every answer was saved before it).
   Without JavaScript the page says when the attempt ends, and the server ends it then. */
(function () {
  "use strict";
  function start() {
    var timer = document.querySelector(".quiz-timer[data-ends-at]");
    if (!timer) return;
    var ends = Date.parse(timer.dataset.endsAt);
    var offset = Date.parse(timer.dataset.now) - Date.now(); // server minus this clock
    var shown = timer.querySelector(".quiz-countdown");
    var form = document.getElementById("quiz-form") || document.getElementById("quiz-submit-form");
    var sent = false;
    shown.hidden = false;
    function tick() {
      var left = Math.max(0, Math.round((ends - (Date.now() + offset)) / 1000));
      var minutes = Math.floor(left / 60), seconds = left % 60;
      shown.textContent = "(" + minutes + ":" + (seconds < 10 ? "0" : "") + seconds + " " +
        gettext("left") + ")";
      if (left <= 60) timer.classList.add("is-ending");
      if (left === 0 && form && !sent) {
        sent = true;
        form.requestSubmit(document.getElementById("quiz-save"));
        return;
      }
      window.setTimeout(tick, 1000);
    }
    tick();
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();

/* A question checked at once (feedback "at once") is swapped in graded: focus moves to its
   feedback (also announced: role="status"), as on the lesson page's questions. */
(function () {
  "use strict";
  if (!window.htmx) return;
  htmx.onLoad(function (root) {
    if (!root.classList || !root.classList.contains("quiz-question")) return;
    var feedback = root.querySelector("[data-feedback]");
    if (feedback && !feedback.dataset.focused) {
      feedback.dataset.focused = "1";
      feedback.focus();
    }
  });
})();
