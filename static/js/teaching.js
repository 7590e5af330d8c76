// Teachers' pages: a "Copy link" button next to a class's join link. Without JavaScript
// (or without the clipboard API) the button stays hidden and the link is there to copy.
(function () {
  "use strict";

  function setUp(button) {
    if (!navigator.clipboard) {
      return;
    }
    button.hidden = false;
    button.addEventListener("click", function () {
      navigator.clipboard.writeText(button.dataset.copy).then(function () {
        var label = button.textContent;
        button.textContent = "Copied";
        setTimeout(function () {
          button.textContent = label;
        }, 1500);
      });
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll(".copy-button[data-copy]").forEach(setUp);
  });
})();
