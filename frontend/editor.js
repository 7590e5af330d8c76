// The code editor (CodeMirror 6), bundled by `npm run build` into static/vendor/editor.bundle.js.
// It exposes window.ParsnipEditor for static/js/snippet.js; nothing else is global.
import { EditorView, basicSetup } from "codemirror";
import { python } from "@codemirror/lang-python";

window.ParsnipEditor = { EditorView, basicSetup, python };
