/* Questions: once an answer is graded and its question swapped in, move focus to the
   feedback (it is also announced: role="status"), so a keyboard or screen-reader user
   hears how the answer went and goes on from there. */
(function () {
  "use strict";
  htmx.onLoad(function (root) {
    if (!root.classList || !root.classList.contains("question")) return;
    var feedback = root.querySelector("[data-feedback]");
    if (feedback && !feedback.dataset.focused) {
      feedback.dataset.focused = "1";
      feedback.focus();
    }
  });
})();
