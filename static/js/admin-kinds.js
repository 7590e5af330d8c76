// The lesson's admin page: under each block, only the inline of the block's own kind
// shows (a snippet under a snippet block, an exercise under an ordering block, ...).
// Each kind's inline carries the class "kind-<name>" (course.kinds.admin_inlines), so a
// new kind needs no rule here. Without JavaScript every inline shows, which loses nothing.
(function () {
  "use strict";

  function kindOf(form) {
    const select = form.querySelector('select[name$="-kind"]');
    return select ? select.value : null;
  }

  function showOwnKind(form) {
    const kind = kindOf(form);
    if (kind === null) return;
    form.querySelectorAll('[class*="kind-"]').forEach(function (inline) {
      const own = Array.from(inline.classList).find(function (name) { return name.startsWith("kind-"); });
      if (!own) return;
      const group = inline.closest(".djn-group") || inline;
      if (group.closest(".djn-inline-form") !== form) return; // a nested block's, not this one's
      group.hidden = own !== "kind-" + kind;
    });
  }

  function showAll() {
    document.querySelectorAll(".djn-inline-form").forEach(function (form) {
      if (form.querySelector('select[name$="-kind"]')) showOwnKind(form);
    });
  }

  document.addEventListener("change", function (event) {
    if (event.target.matches && event.target.matches('select[name$="-kind"]')) {
      const form = event.target.closest(".djn-inline-form");
      if (form) showOwnKind(form);
    }
  });
  document.addEventListener("formset:added", showAll);
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", showAll);
  } else {
    showAll();
  }
})();
