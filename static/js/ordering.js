// Put it in order: drag, click and keyboard moves for the Parsons problem.
//
// Without this script every line and its arrows are submit buttons that POST one move.
// With it, the same buttons move lines in the page at once; each move is announced in
// the exercise's live region and saved (the whole arrangement) in the background.
// Drag and drop is SortableJS; Alt+ArrowUp / Alt+ArrowDown move the focused line.
(function () {
  "use strict";

  var boards = new WeakSet();
  var OPPOSITE = { "tool-leave-out": "tool-use", "tool-use": "tool-leave-out" };
  var saving = new WeakMap(); // slot -> {busy, again}

  function slotOf(node) {
    return node && node.closest ? node.closest(".ordering[data-interactive]") : null;
  }

  function area(slot, name) {
    return slot.querySelector('[data-area="' + name + '"]');
  }

  function lineText(li) {
    var code = li.querySelector("code");
    var text = code ? code.textContent.trim() : "";
    return text.length > 48 ? text.slice(0, 46) + "…" : text;
  }

  function tokens(list) {
    if (!list) {
      return [];
    }
    return Array.prototype.map.call(list.querySelectorAll(":scope > .ordering-line"), function (li) {
      return li.dataset.line;
    });
  }

  function arrangement(slot) {
    return JSON.stringify({ order: tokens(area(slot, "order")), unused: tokens(area(slot, "unused")) });
  }

  function announce(slot, text) {
    var region = document.getElementById("exercise-" + slot.dataset.exercise + "-announce");
    if (region) {
      // Emptied first, so the same words twice in a row are read twice.
      region.textContent = "";
      window.setTimeout(function () {
        region.textContent = text;
      }, 30);
    }
  }

  // Lines Help fixed stay at the top of the answer, in their order.
  function pinFixed(slot) {
    var list = area(slot, "order");
    var fixed = list.querySelectorAll(":scope > .is-fixed");
    for (var i = fixed.length - 1; i >= 0; i--) {
      if (list.firstElementChild !== fixed[i] || i > 0) {
        list.insertBefore(fixed[i], list.firstElementChild);
      }
    }
  }

  // After a move the marks of the last check no longer describe the answer.
  function forgetCheck(slot) {
    Array.prototype.forEach.call(slot.querySelectorAll(".is-in-order, .is-first-wrong"), function (li) {
      li.classList.remove("is-in-order", "is-first-wrong");
      var mark = li.querySelector(".line-mark");
      if (mark) {
        mark.remove();
      }
    });
    Array.prototype.forEach.call(
      slot.querySelectorAll(".ordering-feedback.is-wrong, .ordering-notice"),
      function (stale) {
        stale.remove();
      }
    );
    var refusal = slot.querySelector(".ordering-error");
    if (refusal) {
      refusal.textContent = "";
    }
  }

  function save(slot) {
    var input = slot.querySelector("[data-arrangement]");
    if (input) {
      input.value = arrangement(slot);
    }
    var state = saving.get(slot) || { busy: false, again: false };
    saving.set(slot, state);
    if (state.busy) {
      state.again = true; // one request at a time; the next one sends the latest state
      return;
    }
    state.busy = true;
    var form = slot.querySelector("form.ordering-board");
    htmx
      .ajax("POST", slot.dataset.moveUrl, {
        source: form,
        values: { arrangement: arrangement(slot) },
        swap: "none",
      })
      .finally(function () {
        state.busy = false;
        if (state.again) {
          state.again = false;
          save(slot);
        }
      });
  }

  function position(li) {
    var list = li.parentElement;
    var items = list.querySelectorAll(":scope > .ordering-line");
    return Array.prototype.indexOf.call(items, li) + 1 + " of " + items.length;
  }

  function describe(slot, li) {
    var where = li.parentElement.dataset.area === "unused" ? "in Not used" : "to position " + position(li);
    return "“" + lineText(li) + "” moved " + where + ".";
  }

  function setLineButton(li) {
    var button = li.querySelector(".line-button");
    if (button) {
      var inUnused = li.parentElement.dataset.area === "unused";
      button.value = (inUnused ? "use:" : "up:") + li.dataset.line;
    }
  }

  function changed(slot, li) {
    pinFixed(slot);
    setLineButton(li);
    forgetCheck(slot);
    announce(slot, describe(slot, li));
    save(slot);
  }

  // Moves one line one step; returns false when it cannot go that way.
  function move(slot, li, direction) {
    var list = li.parentElement;
    if (direction === "up") {
      var previous = li.previousElementSibling;
      if (!previous || previous.classList.contains("is-fixed")) {
        return false;
      }
      list.insertBefore(li, previous);
    } else if (direction === "down") {
      var next = li.nextElementSibling;
      if (!next) {
        return false;
      }
      list.insertBefore(next, li);
    } else if (direction === "leave-out") {
      area(slot, "unused").appendChild(li);
    } else if (direction === "use") {
      area(slot, "order").appendChild(li);
    } else {
      return false;
    }
    return true;
  }

  function visible(element) {
    return element && element.offsetParent !== null && !element.disabled;
  }

  function moveAndKeepFocus(slot, li, direction, focused) {
    var focusClass = null;
    if (focused && focused.classList.contains("line-tool")) {
      focusClass = Array.prototype.find.call(focused.classList, function (name) {
        return name.indexOf("tool-") === 0;
      });
    }
    if (!move(slot, li, direction)) {
      var edge = direction === "down" ? "bottom" : "top";
      announce(slot, "“" + lineText(li) + "” is already at the " + edge + ".");
      return;
    }
    // Moving a node drops its focus: give it back to the same control on the moved line.
    var again = focusClass ? li.querySelector("." + focusClass) : null;
    if (!visible(again) && OPPOSITE[focusClass]) {
      again = li.querySelector("." + OPPOSITE[focusClass]); // "Not used" <-> "Use this line"
    }
    if (!visible(again)) {
      again = li.querySelector(".line-button");
    }
    if (again) {
      again.focus();
    }
    changed(slot, li);
  }

  var justDragged = 0;

  function setUp(slot) {
    if (boards.has(slot)) {
      return;
    }
    boards.add(slot);
    slot.classList.add("has-script");
    if (typeof Sortable === "undefined") {
      return;
    }
    var group = "ordering-" + slot.dataset.exercise;
    ["order", "unused"].forEach(function (name) {
      var list = area(slot, name);
      if (!list) {
        return;
      }
      Sortable.create(list, {
        group: group,
        animation: 120,
        forceFallback: true, // mouse and touch alike, and no native drag images
        fallbackTolerance: 4, // a click that wobbles is still a click
        delayOnTouchOnly: true,
        delay: 150, // on a phone, a quick swipe scrolls and a press-and-hold drags
        filter: ".is-fixed",
        preventOnFilter: false,
        draggable: ".ordering-line",
        ghostClass: "is-drop-target",
        chosenClass: "is-chosen",
        dragClass: "is-dragging",
        onMove: function (event) {
          // Nothing goes above a line Help fixed.
          return !(event.related.classList.contains("is-fixed") && !event.willInsertAfter);
        },
        onEnd: function (event) {
          justDragged = Date.now();
          if (event.from === event.to && event.oldIndex === event.newIndex) {
            return;
          }
          changed(slot, event.item);
          var button = event.item.querySelector(".line-button");
          if (button) {
            button.focus({ preventScroll: true });
          }
        },
      });
    });
  }

  htmx.onLoad(function (root) {
    var slots = root.matches && root.matches(".ordering[data-interactive]") ? [root] : [];
    Array.prototype.push.apply(slots, root.querySelectorAll(".ordering[data-interactive]"));
    slots.forEach(setUp);
  });

  // The buttons that post a move without a script move the line here instead.
  document.addEventListener("submit", function (event) {
    var form = event.target;
    var slot = slotOf(form);
    var submitter = event.submitter;
    if (!slot || !form.classList.contains("ordering-board") || !submitter || submitter.name !== "move") {
      return;
    }
    event.preventDefault();
    if (Date.now() - justDragged < 300) {
      return; // the click that ends a drag is not a move
    }
    var li = submitter.closest(".ordering-line");
    var direction = submitter.value.split(":")[0];
    moveAndKeepFocus(slot, li, direction, submitter);
  });

  document.addEventListener("keydown", function (event) {
    if (!event.altKey || (event.key !== "ArrowUp" && event.key !== "ArrowDown")) {
      return;
    }
    var button = event.target.closest && event.target.closest(".ordering-line button");
    var slot = slotOf(button);
    if (!slot) {
      return;
    }
    event.preventDefault();
    var li = button.closest(".ordering-line");
    moveAndKeepFocus(slot, li, event.key === "ArrowUp" ? "up" : "down", button);
  });

  // A check, Help or Start again swaps the region: focus its news if focus was inside.
  var hadFocus = null;
  document.addEventListener("htmx:beforeSwap", function (event) {
    var target = event.detail.target;
    hadFocus = target && target.classList.contains("ordering") && target.contains(document.activeElement) ? target.id : null;
  });
  document.addEventListener("htmx:afterSettle", function (event) {
    var target = event.detail.target;
    if (!hadFocus || !target || target.id !== hadFocus) {
      return;
    }
    hadFocus = null;
    var slot = document.getElementById(target.id);
    var news = slot && (slot.querySelector("[data-feedback]") || slot.querySelector(".line-button"));
    if (news) {
      news.focus();
    }
  });
})();
