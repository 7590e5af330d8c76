// Teachers' pages: a "Copy link" button next to a class's join link. Without JavaScript
// (or without the clipboard API) the button stays hidden and the link is there to copy.
(function () {
  "use strict";

  function setUp(button) {
    if (!navigator.clipboard || button.dataset.enhanced) {
      return;
    }
    button.dataset.enhanced = "true";
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

  // The page, then only what each htmx swap brings (the grid's sort links swap the grid).
  htmx.onLoad(function (root) {
    root.querySelectorAll(".copy-button[data-copy]").forEach(setUp);
  });
})();
