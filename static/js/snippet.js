// Predict, reveal, run: the snippet practice panel. The forms work without this file;
// it turns the code textarea into the editor (static/vendor/editor.bundle.js), runs on
// Ctrl/Cmd+Enter and autosaves edits. (The server's refusals reach the snippet's message
// line through the site's one rule for refusals, in parsnip.js.)
(function () {
  "use strict";

  var AUTOSAVE_DELAY_MS = 800;
  var LANGUAGE = document.documentElement.lang || "en";
  var unsaved = []; // each editor's "save what is not saved yet, now" (for leaving the page)

  function savedState(form) {
    // The element is replaced by every save, so look it up each time.
    var output = form.querySelector(".autosave");
    return document.querySelector(output.getAttribute("hx-target"));
  }

  function say(form, text) {
    var state = savedState(form);
    if (state) {
      state.textContent = text;
    }
  }

  function enhance(form) {
    if (form.dataset.enhanced) {
      return;
    }
    form.dataset.enhanced = "true";
    var textarea = form.querySelector("textarea[data-editor]");
    var runButton = form.querySelector(".run-button");
    var resetButton = form.querySelector(".reset-button");
    var saveButton = form.querySelector(".save-button");
    var autosave = form.querySelector(".autosave");
    var timer = null;
    var editor = null;

    function cancelSave() {
      if (timer) {
        clearTimeout(timer);
        timer = null;
      }
    }

    function saveNow() {
      cancelSave();
      say(form, "Saving…");
      htmx.trigger(autosave, "parsnip:autosave");
    }

    function saveSoon() {
      form.dispatchEvent(new CustomEvent("parsnip:edited")); // for the trail (trail.js)
      cancelSave();
      say(form, gettext("Not saved yet…"));
      timer = setTimeout(saveNow, AUTOSAVE_DELAY_MS);
    }

    // Leaving the page (or its tab) within the autosave delay must not lose the edit:
    // the browser still delivers a beacon after the page is gone. The form's fields carry
    // the CSRF token; `leaving` asks for an empty answer, as nobody is there to read it.
    function saveOnLeaving() {
      if (!timer) {
        return;
      }
      cancelSave();
      var data = new FormData(form);
      data.append("leaving", "1");
      if (navigator.sendBeacon(autosave.getAttribute("hx-post"), data)) {
        say(form, "Saved.");
      }
    }
    unsaved.push(saveOnLeaving);

    function run() {
      if (!runButton.disabled) {
        form.requestSubmit(runButton);
      }
    }

    if (window.ParsnipEditor) {
      // The hidden textarea still carries the code; the server checks it is not empty.
      textarea.removeAttribute("required");
      editor = window.ParsnipEditor.create(textarea, {
        onRun: run,
        onChange: saveSoon,
        label: gettext("Code editor: Ctrl+Enter runs it. Press Escape then Tab to leave the editor."),
      });
    } else {
      textarea.addEventListener("input", saveSoon);
      textarea.addEventListener("keydown", function (event) {
        if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
          event.preventDefault();
          run();
        }
      });
    }

    // Running keeps the code on the server too; the saved state should say so.
    form.addEventListener("submit", function () {
      if (timer) {
        saveNow();
      }
    });
    saveButton.addEventListener("click", function () {
      cancelSave();
      say(form, "Saving…");
    });
    // Reset puts the original back here; htmx posts reset=1, which deletes the draft.
    resetButton.addEventListener("click", function () {
      cancelSave();
      var original = form.dataset.original;
      if (editor) {
        editor.setCode(original);
      } else {
        textarea.value = original;
      }
      say(form, "Resetting…");
    });
  }

  // The prediction's character counter: the textarea stops at its maxlength, so a long
  // paste would be cut without a word; the counter shows it, and says so at the limit.
  function countCharacters(counter) {
    if (counter.dataset.enhanced) {
      return;
    }
    counter.dataset.enhanced = "true";
    var textarea = document.getElementById(counter.dataset.countFor);
    var alert = counter.parentNode.querySelector("[data-count-alert]");
    var limit = textarea.maxLength;
    var wasFull = false;
    function update() {
      var used = textarea.value.length;
      var full = used >= limit;
      var counts = {used: used.toLocaleString(LANGUAGE), limit: limit.toLocaleString(LANGUAGE)};
      counter.textContent = interpolate(
        full ? gettext("%(used)s of %(limit)s characters: that is the limit, anything longer is cut.")
          : gettext("%(used)s of %(limit)s characters"),
        counts, true);
      counter.classList.toggle("is-full", full);
      if (full !== wasFull && alert) {
        alert.textContent = full ? interpolate(gettext("Your prediction is at the %(limit)s character limit."), counts, true) : "";
      }
      wasFull = full;
    }
    textarea.addEventListener("input", update);
    update();
  }

  function saveAllOnLeaving() {
    unsaved.forEach(function (save) {
      save();
    });
  }
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "hidden") {
      saveAllOnLeaving();
    }
  });
  window.addEventListener("pagehide", saveAllOnLeaving);

  htmx.onLoad(function (root) {
    var forms = root.matches && root.matches("form.run-form") ? [root] : root.querySelectorAll("form.run-form");
    Array.prototype.forEach.call(forms, enhance);
    Array.prototype.forEach.call(root.querySelectorAll(".char-count[data-count-for]"), countCharacters);
  });

  // A request that works clears an earlier refusal; after a reveal, focus moves to the answer.
  // The event comes from each element the response put in the page (detail.target is the
  // element it replaced, already gone after an outerHTML swap). A poll is nobody's request:
  // an answer's or a run's poll arriving late must not clear the refusal of a click made
  // meanwhile.
  document.addEventListener("htmx:afterSwap", function (event) {
    var swapped = event.target;
    var asked = event.detail.requestConfig && event.detail.requestConfig.elt;
    if (!swapped.id || event.detail.xhr.status >= 400 || (asked && asked.hasAttribute("data-poll"))) {
      return;
    }
    var practice = swapped.closest(".practice-slot");
    var message = practice && practice.querySelector(".practice-message");
    if (message) {
      message.textContent = "";
    }
    if (/-practice$/.test(swapped.id)) {
      var answer = document.getElementById(swapped.id.replace(/-practice$/, "-answer"));
      if (answer) {
        answer.focus({ preventScroll: true });
      }
    }
  });
})();

// A prediction typed and not yet sent is kept in this tab (sessionStorage), so a page that
// goes away before it is sent (signed out: an expired session, a closed-book assignment
// opened on another device) does not lose it: it is back in its box when the lesson opens
// again. Sent and accepted, it is forgotten.
(function () {
  "use strict";

  function key(box) {
    return "parsnip-draft:" + window.location.pathname + "#" + box.id;
  }

  function store(action, box, value) {
    try {
      if (action === "set") {
        window.sessionStorage.setItem(key(box), value);
      } else if (action === "remove") {
        window.sessionStorage.removeItem(key(box));
      } else {
        return window.sessionStorage.getItem(key(box));
      }
    } catch (error) {
      // storage refused (a private window, full): the box works as before
    }
    return null;
  }

  document.addEventListener("input", function (event) {
    var box = event.target;
    if (box.matches && box.matches("textarea[data-keep]") && box.id) {
      store(box.value ? "set" : "remove", box, box.value);
    }
  });

  htmx.onLoad(function (root) {
    var boxes = root.matches && root.matches("textarea[data-keep]") ? [root] : root.querySelectorAll("textarea[data-keep]");
    Array.prototype.forEach.call(boxes, function (box) {
      var kept = store("get", box);
      if (kept && !box.value) {
        box.value = kept;
        box.dispatchEvent(new Event("input", { bubbles: true })); // the character count
      }
    });
  });

  // Accepted (not refused, not sent to the log-in page): the draft has done its work.
  document.addEventListener("htmx:afterRequest", function (event) {
    var form = event.detail.elt;
    var xhr = event.detail.xhr;
    if (!form || !form.querySelectorAll || !event.detail.successful || xhr.getResponseHeader("HX-Redirect")) {
      return;
    }
    Array.prototype.forEach.call(form.querySelectorAll("textarea[data-keep]"), function (box) {
      store("remove", box);
    });
  });
})();
