// The code editor (CodeMirror 6), bundled by `npm run build` into static/vendor/editor.bundle.js.
// It exposes window.ParsnipEditor for static/js/snippet.js; nothing else is global.
import { EditorState } from "@codemirror/state";
import {
  EditorView,
  drawSelection,
  highlightActiveLine,
  highlightActiveLineGutter,
  highlightSpecialChars,
  keymap,
  lineNumbers,
} from "@codemirror/view";
import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import {
  HighlightStyle,
  bracketMatching,
  indentOnInput,
  indentUnit,
  syntaxHighlighting,
} from "@codemirror/language";
import { python } from "@codemirror/lang-python";
import { tags as t } from "@lezer/highlight";

// Tokens get Pygments' class names, so static/css/pygments.css colours the editor like the
// server-highlighted code above it, in light and dark mode, with no inline styles.
const pygmentsClasses = HighlightStyle.define([
  { tag: t.keyword, class: "k" },
  { tag: t.operatorKeyword, class: "ow" },
  { tag: [t.bool, t.null], class: "kc" },
  { tag: t.self, class: "bp" },
  { tag: t.comment, class: "c1" },
  { tag: t.docString, class: "sd" },
  { tag: [t.string, t.special(t.string)], class: "s2" },
  { tag: t.escape, class: "se" },
  { tag: t.number, class: "m" },
  { tag: t.definition(t.className), class: "nc" },
  { tag: t.function(t.definition(t.variableName)), class: "nf" },
  { tag: t.operator, class: "o" },
]);

// CodeMirror puts its own styles in a <style> element, which the Content-Security-Policy
// (style-src 'self', no inline styles) refuses. Its style-mod library uses a constructed
// stylesheet instead when the root has no <head>, and keeps using it for that document:
// so the first editor is built while document.head reads as null.
let stylesAdopted = false;

function withConstructedStylesheet(build) {
  if (stylesAdopted) return build();
  Object.defineProperty(document, "head", { configurable: true, get: () => null });
  try {
    return build();
  } finally {
    delete document.head;
    stylesAdopted = true;
  }
}

/**
 * Replace `textarea` (which stays in the form, hidden, holding the value that is posted)
 * with an editor. Ctrl/Cmd+Enter calls `onRun`; every change calls `onChange`.
 */
function create(textarea, { onRun, onChange, label }) {
  let quiet = false;
  const view = withConstructedStylesheet(() => new EditorView({
    doc: textarea.value,
    extensions: [
      lineNumbers(),
      highlightActiveLineGutter(),
      highlightSpecialChars(),
      history(),
      drawSelection(),
      indentOnInput(),
      bracketMatching(),
      highlightActiveLine(),
      python(),
      syntaxHighlighting(pygmentsClasses),
      indentUnit.of("    "),
      EditorState.tabSize.of(4),
      keymap.of([
        { key: "Mod-Enter", run: () => (onRun(), true) },
        ...defaultKeymap,
        ...historyKeymap,
        indentWithTab,
      ]),
      EditorView.updateListener.of((update) => {
        if (!update.docChanged) return;
        textarea.value = update.state.doc.toString();
        if (!quiet) onChange();
      }),
      EditorView.editorAttributes.of({ class: "highlight code-editor" }),
      EditorView.contentAttributes.of({
        "aria-label": label,
        "aria-describedby": textarea.getAttribute("aria-describedby") || "",
      }),
    ],
  }));
  textarea.hidden = true;
  textarea.after(view.dom);
  return {
    view,
    // Replace the whole text without counting it as the learner's edit.
    setCode(code) {
      quiet = true;
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: code } });
      quiet = false;
    },
    focus() {
      view.focus();
    },
  };
}

window.ParsnipEditor = { create };
