// The lesson's admin page folds each block under its heading (<details class="block-fold">,
// templates/admin/course/block_inline.html). A link to a block or to a field inside one
// opens it (the "Jump to a block" list, the list of errors), and two buttons open or fold
// every block. Without JavaScript a block opens with a click on its heading.
(function () {
  "use strict";

  function openAround(target) {
    if (!target) return;
    const inside = target.matches("details.block-fold") ? target : target.querySelector(":scope > details.block-fold");
    if (inside) inside.open = true;
    for (let fold = target.closest("details.block-fold"); fold; fold = fold.parentElement.closest("details.block-fold")) {
      fold.open = true;
    }
  }

  function openHash() {
    if (location.hash.length > 1) {
      openAround(document.getElementById(decodeURIComponent(location.hash.slice(1))));
    }
  }

  document.addEventListener("click", function (event) {
    const link = event.target.closest && event.target.closest('a[href^="#"]');
    if (link && link.getAttribute("href").length > 1) {
      const target = document.getElementById(decodeURIComponent(link.getAttribute("href").slice(1)));
      openAround(target);
      return;
    }
    const button = event.target.closest && event.target.closest("button[data-blocks]");
    if (button) {
      const open = button.dataset.blocks === "open";
      document.querySelectorAll("#blocks-group details.block-fold").forEach(function (fold) {
        fold.open = open;
      });
    }
  });
  window.addEventListener("hashchange", openHash);

  function ready() {
    document.querySelectorAll("button[data-blocks]").forEach(function (button) { button.hidden = false; });
    openHash();
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", ready);
  } else {
    ready();
  }
})();
