// The lesson's admin page: under each block, only the inline of the block's own kind
// shows (a snippet under a snippet block, an exercise under an ordering block, ...).
// Each kind's inline carries the class "kind-<name>" (course.kinds.admin_inlines), so a
// new kind needs no rule here. Without JavaScript every inline shows, which loses nothing.
//
// A kind chosen for a block shows its own fields (steps, items, ...) at once: they are
// copied, blank, from the page's <template class="kind-fields-template"> of that kind
// (LessonAdmin.render_change_form), and the kind is added to the block's hidden
// "shown_kinds", so the server reads them (course.forms.BlockForm). Fields copied this
// way and left untouched go again when another kind is chosen. Without JavaScript they
// appear once the block is saved with its kind.
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

  function templateOf(kind) {
    return Array.from(document.querySelectorAll("template.kind-fields-template")).find(
      function (template) { return template.dataset.kind === kind; }
    );
  }

  function namedFields(root) {
    return Array.from(root.querySelectorAll("input[name], select[name], textarea[name]"));
  }

  // The kind's fields for this block (its prefix, "blocks-3"), less those it shows already.
  function copyFields(kind, prefix, form) {
    const template = templateOf(kind);
    if (!template) return null;
    const copy = document.createElement("div");
    copy.innerHTML = template.innerHTML.split(template.dataset.prefix).join(prefix);
    const fieldset = copy.querySelector("fieldset");
    fieldset.querySelectorAll(".form-row").forEach(function (row) {
      const shown = namedFields(row).some(function (field) {
        return form.querySelector('[name="' + field.name + '"]');
      });
      if (shown) row.remove();
    });
    return fieldset;
  }

  function showOwnFields(form, select) {
    const prefix = select.name.slice(0, -"-kind".length);
    const shownKinds = form.querySelector('input[name="' + prefix + '-shown_kinds"]');
    if (!shownKinds) return;
    if (shownKinds.dataset.fromServer === undefined) {
      shownKinds.dataset.fromServer = shownKinds.value;
    }
    const kind = select.value;
    const shown = shownKinds.dataset.fromServer.split(" ").filter(Boolean);
    // Fields copied for another kind and never touched go.
    form.querySelectorAll("fieldset[data-copied-for]").forEach(function (fieldset) {
      if (fieldset.dataset.copiedFor === kind) return;
      if (fieldset.dataset.edited) shown.push(fieldset.dataset.copiedFor);
      else fieldset.remove();
    });
    const copied = form.querySelector('fieldset[data-copied-for="' + kind + '"]');
    if (copied) {
      shown.push(kind);
    } else if (shown.indexOf(kind) === -1) {
      const fieldset = copyFields(kind, prefix, form);
      if (fieldset) {
        shown.push(kind);
        if (namedFields(fieldset).length) {
          fieldset.dataset.copiedFor = kind;
          fieldset.addEventListener("input", function () { fieldset.dataset.edited = "1"; });
          shownKinds.before(fieldset);
        }
      }
    }
    shownKinds.value = Array.from(new Set(shown)).join(" ");
    const note = form.querySelector(".kind-fields-note");
    if (note) note.hidden = Boolean(form.querySelector("fieldset.kind-fields"));
  }

  function showAll() {
    document.querySelectorAll(".djn-inline-form").forEach(function (form) {
      if (form.querySelector('select[name$="-kind"]')) showOwnKind(form);
    });
  }

  document.addEventListener("change", function (event) {
    if (event.target.matches && event.target.matches('select[name$="-kind"]')) {
      const form = event.target.closest(".djn-inline-form");
      if (form) {
        showOwnKind(form);
        showOwnFields(form, event.target);
      }
    }
  });
  document.addEventListener("formset:added", showAll);
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", showAll);
  } else {
    showAll();
  }
})();
