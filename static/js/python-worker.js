// Python in the learner's browser: Pyodide (static/vendor/pyodide-<version>/, served by
// Parsnip, never a CDN) in this Web Worker, so a running program never freezes the page.
// browser-run.js starts it on the first Run of a page and terminates it to stop a program
// (no SharedArrayBuffer, so no interrupt: that would need COOP/COEP on every page).
//
// Messages in:  {type: "load", pyodide, python}  and  {type: "run", id, code, stdin, limits}
// Messages out: {type: "progress", loaded}, {type: "ready"}, {type: "failed", message},
//               {type: "started", id, timeout}  (the answer to show if it is stopped for time),
//               {type: "result", id, result}    (the sandbox's fields, the learner's traceback
//                                                and the explanation, or {server: why})
"use strict";

var parsnip = null; // the Python functions below, once loaded

// Beside the learner's program: the runner and the beginner's explanations, the server's own
// modules (tutor/sandbox/in_browser.py, tutor/feedback.py), written into Python's files.
var GLUE = [
  "import json, sys",
  "sys.path.insert(0, '/home/pyodide/parsnip')",
  "from tutor import feedback",
  "from tutor.sandbox import in_browser",
  "from tutor.sandbox.limits import Limits",
  "",
  "def described(result, stdin, limits):",
  "    why = feedback.explain_run(status=result['status'], stderr=result['stderr'],",
  "                               exit_code=result['exit_code'], stdin=stdin, limits=limits)",
  "    result['traceback'] = feedback.learner_traceback(result['stderr'])",
  "    result['explanation'] = why and {'kind': why.kind, 'title': why.title, 'text': why.text}",
  "    return json.dumps(result)",
  "",
  "def parsnip_timeout(stdin, limits_json):",
  "    limits = Limits(**json.loads(limits_json))",
  "    stopped = {'status': 'timeout', 'exit_code': None, 'stdout': '', 'stderr': '',",
  "               'duration_ms': limits.cpu_seconds * 1000, 'truncated': False}",
  "    return described(stopped, stdin, limits)",
  "",
  "def parsnip_run(code, stdin, limits_json):",
  "    limits = Limits(**json.loads(limits_json))",
  "    why = in_browser.needs_the_server(code)",
  "    if why:",
  "        return json.dumps({'server': why})",
  "    result = in_browser.run(code, stdin=stdin, output_bytes=limits.output_bytes)",
  "    return described(result, stdin, limits)",
].join("\n");

// Count what Pyodide fetches (the interpreter, the standard library), for the page's
// "Loading Python in your browser… 3.1 of 12 MB".
function countingFetch(realFetch) {
  var loaded = 0;
  var lastSaid = 0;
  return function (input, init) {
    return realFetch(input, init).then(function (response) {
      if (!response.body) {
        return response;
      }
      var counter = new TransformStream({
        transform: function (chunk, controller) {
          loaded += chunk.byteLength;
          var now = Date.now();
          if (now - lastSaid > 100) {
            lastSaid = now;
            self.postMessage({ type: "progress", loaded: loaded });
          }
          controller.enqueue(chunk);
        },
      });
      return new Response(response.body.pipeThrough(counter), {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
      });
    });
  };
}

function load(message) {
  var realFetch = self.fetch.bind(self);
  self.fetch = countingFetch(realFetch);
  var indexURL = new URL(".", new URL(message.pyodide, self.location.href)).href;
  return import(message.pyodide)
    .then(function (module) {
      return module.loadPyodide({ indexURL: indexURL, stdout: function () {}, stderr: function () {} });
    })
    .then(function (pyodide) {
      self.fetch = realFetch;
      return realFetch(message.python)
        .then(function (response) {
          if (!response.ok) {
            throw new Error("the Python modules answered " + response.status);
          }
          return response.json();
        })
        .then(function (files) {
          Object.keys(files).forEach(function (path) {
            var full = "/home/pyodide/parsnip/" + path;
            pyodide.FS.mkdirTree(full.slice(0, full.lastIndexOf("/")));
            pyodide.FS.writeFile(full, files[path]);
          });
          pyodide.runPython(GLUE);
          parsnip = {
            run: pyodide.globals.get("parsnip_run"),
            timeout: pyodide.globals.get("parsnip_timeout"),
          };
          self.postMessage({ type: "progress", loaded: -1 });
          self.postMessage({ type: "ready" });
        });
    })
    .catch(function (error) {
      self.fetch = realFetch;
      self.postMessage({ type: "failed", message: String(error && error.message || error) });
    });
}

self.onmessage = function (event) {
  var message = event.data;
  if (message.type === "load") {
    load(message);
  } else if (message.type === "run") {
    var limits = JSON.stringify(message.limits);
    self.postMessage({ type: "started", id: message.id, timeout: JSON.parse(parsnip.timeout(message.stdin, limits)) });
    var answer = parsnip.run(message.code, message.stdin, limits);
    self.postMessage({ type: "result", id: message.id, result: JSON.parse(answer) });
  }
};
