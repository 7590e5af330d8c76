// Copies pinned npm packages into static/vendor/ (and bundles the editor once it exists).
// Run by `make frontend`; nothing is fetched from a CDN at run time.
import { copyFileSync, mkdirSync, existsSync } from "node:fs";
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
