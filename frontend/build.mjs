// Copies pinned npm packages into static/vendor/ (and bundles the editor once it exists).
// Run by `make frontend`; nothing is fetched from a CDN at run time.
import { copyFileSync, mkdirSync, existsSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const vendor = join(root, "static", "vendor");
mkdirSync(vendor, { recursive: true });

const copies = [
  ["node_modules/htmx.org/dist/htmx.min.js", "htmx.min.js"],
  ["node_modules/sortablejs/Sortable.min.js", "Sortable.min.js"],
];
for (const [from, to] of copies) {
  copyFileSync(join(root, from), join(vendor, to));
}

// Python for the learner's own Run in their browser (static/js/python-worker.js): only what
// loading the interpreter and its standard library needs, in a folder named by its version,
// so the files can be cached for good (config/settings.py: WHITENOISE_IMMUTABLE_FILE_TEST).
const pyodideVersion = JSON.parse(readFileSync(join(root, "node_modules/pyodide/package.json"))).version;
for (const old of readdirSync(vendor).filter((name) => name.startsWith("pyodide-"))) {
  rmSync(join(vendor, old), { recursive: true });
}
const pyodideDir = join(vendor, `pyodide-${pyodideVersion}`);
mkdirSync(pyodideDir);
for (const name of ["pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json"]) {
  copyFileSync(join(root, "node_modules/pyodide", name), join(pyodideDir, name));
}

const editorEntry = join(root, "frontend", "editor.js");
if (existsSync(editorEntry)) {
  const { build } = await import("esbuild");
  await build({
    entryPoints: [editorEntry],
    bundle: true,
    minify: true,
    format: "iife",
    outfile: join(vendor, "editor.bundle.js"),
    legalComments: "linked",
  });
}
console.log("front-end libraries copied to static/vendor/");
