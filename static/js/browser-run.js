// Run in the learner's own browser: the snippet's Run form (templates/tutor/snippet_practice.html)
// runs the learner's version in Python in a Web Worker (python-worker.js) once that has
// loaded, and shows the answer as the server shows its runs, saying which ran it. The first
// Run on a page starts loading Python and goes to the server, as does every Run until Python
// is ready, a Run with the learner's own prediction (compared on the server), and a program
// the browser cannot run as the server does (threads, processes, a module it lacks). Without
// JavaScript, WebAssembly or workers this file does nothing: every Run goes to the server.
//
// The server stays the judge: the browser's runs are only reported afterwards, in batches,
// as a record (tutor:browser_runs_record); nothing here reveals, grades or counts progress.
(function () {
  "use strict";

  if (typeof WebAssembly !== "object" || typeof Worker !== "function" || typeof TransformStream !== "function") {
    return;
  }

  var RECORD_EVERY_MS = 3000;
  var python = null; // {worker, state: "loading" | "ready" | "running" | "failed", run}
  var config = null; // where Python is: from the first Run form's data
  var runs = 0;
  var unrecorded = {}; // per record URL: the runs not reported yet, oldest first

  function words(form) {
    return form.closest(".practice-slot").querySelector(".browser-output-template").dataset;
  }

  function say(text) {
    Array.prototype.forEach.call(document.querySelectorAll(".browser-python-status"), function (line) {
      line.textContent = text;
    });
  }

  function megabytes(bytes) {
    return (bytes / 1e6).toLocaleString(undefined, { minimumFractionDigits: 1, maximumFractionDigits: 1 });
  }

  // Python: a worker loading Pyodide, then running one program at a time -------------------

  function startPython(form) {
    var text = words(form);
    config = config || {
      worker: form.dataset.browserWorker,
      pyodide: form.dataset.browserPyodide,
      python: form.dataset.browserPython,
      bytes: Number(form.dataset.browserBytes),
      text: text,
    };
    var worker;
    try {
      worker = new Worker(config.worker, { type: "module" }); // Pyodide runs in module workers only
    } catch (error) {
      python = { state: "failed" };
      say(text.failed);
      return;
    }
    python = { worker: worker, state: "loading", run: null };
    say(text.loading.replace("{loaded}", megabytes(0)).replace("{total}", megabytes(config.bytes)));
    worker.onmessage = function (event) {
      var message = event.data;
      if (message.type === "progress" && python && python.worker === worker && python.state === "loading") {
        var loaded = message.loaded < 0 ? config.bytes : Math.min(message.loaded, config.bytes);
        say(text.loading.replace("{loaded}", megabytes(loaded)).replace("{total}", megabytes(config.bytes)));
      } else if (message.type === "ready") {
        python.state = "ready";
        say(text.ready);
      } else if (message.type === "failed") {
        console.warn("Python could not start in this browser:", message.message);
        failed(worker, text);
      } else if (message.type === "started" && python.run && python.run.id === message.id) {
        python.run.timeout = message.timeout;
      } else if (message.type === "result" && python.run && python.run.id === message.id) {
        finished(message.result);
      }
    };
    worker.onerror = function (event) {
      console.warn("Python's worker stopped:", event.message);
      failed(worker, text);
    };
    worker.postMessage({ type: "load", pyodide: new URL(config.pyodide, location.href).href, python: config.python });
  }

  function failed(worker, text) {
    worker.terminate();
    var run = python && python.run;
    python = { state: "failed" };
    say(text.failed);
    if (run) {
      toServer(run.form);
    }
  }

  // Stopped (the Stop button, or the time limit): the worker is thrown away with the program,
  // and a new one loads (from the browser's cache) for the next Run.
  function restart(form) {
    python.worker.terminate();
    python = null;
    startPython(form);
  }

  // A Run ----------------------------------------------------------------------------------

  function toServer(form) {
    form.dataset.toServer = "1";
    form.requestSubmit(form.querySelector(".run-button"));
  }

  function busy(form, running) {
    form.querySelector(".run-button").disabled = running;
    var stop = form.querySelector(".stop-button");
    stop.hidden = !running;
    // The last run's output stays in place while this one runs: marked as being replaced
    // (dimmed, aria-busy) so that it is not read as this run's.
    var output = document.querySelector(form.getAttribute("hx-target"));
    if (output) {
      output.setAttribute("aria-busy", running ? "true" : "false");
    }
    if (!running && document.activeElement === stop) {
      form.querySelector(".run-button").focus();
    }
  }

  function runInBrowser(form) {
    var limits = JSON.parse(form.dataset.browserLimits);
    var run = {
      id: ++runs,
      form: form,
      code: form.elements.code.value.replace(/\r\n/g, "\n"),
      stdin: form.elements.stdin.value.replace(/\r\n/g, "\n"),
      timeout: null,
    };
    python.state = "running";
    python.run = run;
    busy(form, true);
    run.timer = setTimeout(function () {
      var result = run.timeout || { status: "timeout", exit_code: null, stdout: "", stderr: "", traceback: "",
                                    explanation: null, duration_ms: limits.cpu_seconds * 1000, truncated: false };
      stopped(run);
      show(form, result, run);
    }, limits.cpu_seconds * 1000);
    python.worker.postMessage({ type: "run", id: run.id, code: run.code, stdin: run.stdin, limits: limits });
  }

  function stopped(run) {
    clearTimeout(run.timer);
    busy(run.form, false);
    restart(run.form);
  }

  function finished(result) {
    var run = python.run;
    clearTimeout(run.timer);
    python.run = null;
    python.state = "ready";
    busy(run.form, false);
    if (result.server) {
      toServer(run.form); // the server's answer says "Ran on the server"
      return;
    }
    show(run.form, result, run);
  }

  function stop(form) {
    var run = python && python.run;
    if (!run || run.form !== form) {
      return;
    }
    stopped(run);
    show(form, { status: "killed", exit_code: null, stdout: "", stderr: "", traceback: "", explanation: null,
                 duration_ms: 0, truncated: false, stopped: true }, run);
  }

  // The answer, as the server's partial shows a run ------------------------------------------

  function show(form, result, run) {
    var slot = form.closest(".practice-slot");
    var template = slot.querySelector(".browser-output-template");
    var section = template.content.firstElementChild.cloneNode(true);
    var labels = JSON.parse(form.dataset.browserLabels);
    function part(selector, text) {
      var element = section.querySelector(selector);
      if (text) {
        element.textContent = text;
      } else {
        element.remove();
      }
      return element;
    }
    section.querySelector(".run-status").classList.add("run-status-" + result.status);
    part(".browser-status", result.stopped ? template.dataset.stoppedStatus : labels[result.status] || result.status);
    if (result.stopped) {
      section.querySelector(".browser-duration").remove();
    } else {
      section.querySelector(".browser-ms").textContent = result.duration_ms;
    }
    if (result.exit_code && result.status === "error") {
      section.querySelector(".browser-exit-code").textContent = result.exit_code;
    } else {
      section.querySelector(".browser-exit").remove();
    }
    part(".run-stdout", result.stdout);
    if (result.stdout || result.status !== "ok") {
      section.querySelector(".browser-nothing").remove();
    }
    var explanation = result.explanation;
    if (explanation) {
      var box = section.querySelector(".run-explanation");
      box.classList.add("run-explanation-" + explanation.kind);
      part(".run-explanation-title", explanation.title);
      backticks(section.querySelector(".browser-explanation-text"), explanation.text);
    } else {
      section.querySelector(".run-explanation").remove();
    }
    part(".output-stderr", result.stderr ? result.traceback : "");
    if (!result.truncated) {
      section.querySelector(".browser-truncated").remove();
    }
    if (!result.stopped) {
      section.querySelector(".browser-stopped").remove();
    }
    var old = document.getElementById(section.id);
    old.replaceWith(section);
    record(form, result, run, section.querySelector(".step-through-form"));
  }

  // `spans` in backticks shown as code, as the server's `backticks` filter does.
  function backticks(element, text) {
    text.split("`").forEach(function (piece, n) {
      if (n % 2) {
        var code = document.createElement("code");
        code.textContent = piece;
        element.appendChild(code);
      } else {
        element.appendChild(document.createTextNode(piece));
      }
    });
  }

  // Reporting the browser's runs, in batches ------------------------------------------------

  function record(form, result, run, stepForm) {
    var url = form.dataset.browserRecord;
    var batch = unrecorded[url] = unrecorded[url] || [];
    batch.push({
      form: form,
      stepForm: stepForm,
      run: {
        code: run.code,
        stdin: run.stdin,
        stdout: result.stdout,
        stderr: result.stderr,
        status: result.status,
        exit_code: result.exit_code,
        duration_ms: result.duration_ms,
        truncated: result.truncated,
      },
    });
    if (batch.length >= 10) {
      send(url);
    }
  }

  function fields(url, batch) {
    var data = new FormData();
    data.append("csrfmiddlewaretoken", batch[0].form.querySelector("[name=csrfmiddlewaretoken]").value);
    data.append("runs", JSON.stringify(batch.map(function (item) { return item.run; })));
    return data;
  }

  function send(url) {
    var batch = unrecorded[url];
    if (!batch || !batch.length) {
      return Promise.resolve();
    }
    unrecorded[url] = [];
    return fetch(url, { method: "POST", body: fields(url, batch), credentials: "same-origin" })
      .then(function (response) {
        return response.json().then(function (answer) {
          batch.forEach(function (item, n) {
            var id = response.ok && answer.recorded ? answer.recorded[n] : null;
            item.stepForm.querySelector("[name=run]").value = id || "";
            item.stepForm.hidden = !id; // a run the server did not keep cannot be stepped through
          });
        });
      })
      .catch(function () {
        batch.forEach(function (item) {
          item.stepForm.hidden = true;
        });
      });
  }

  function sendAll() {
    Object.keys(unrecorded).forEach(send);
  }

  function sendOnLeaving() {
    Object.keys(unrecorded).forEach(function (url) {
      var batch = unrecorded[url];
      if (batch.length && navigator.sendBeacon(url, fields(url, batch))) {
        unrecorded[url] = [];
      }
    });
  }

  setInterval(sendAll, RECORD_EVERY_MS);
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "hidden") {
      sendOnLeaving();
    }
  });
  window.addEventListener("pagehide", sendOnLeaving);

  // The page ---------------------------------------------------------------------------------

  // Before htmx and the trail's listeners on the form itself see the submit: a Run the
  // browser takes is theirs no more (the trail's edits go with its next batch).
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (form.matches && form.matches("form.step-through-form") && form.closest("[data-ran=browser]")) {
      stepThrough(event, form);
      return;
    }
    if (!form.matches || !form.matches("form.run-form[data-browser-worker]")) {
      return;
    }
    if (!event.submitter || !event.submitter.classList.contains("run-button")) {
      return;
    }
    if (form.dataset.toServer) {
      delete form.dataset.toServer;
      return;
    }
    if (!python) {
      startPython(form); // this Run goes to the server meanwhile
      return;
    }
    var ownPrediction = form.elements.prediction && form.elements.prediction.value.trim();
    if (python.state !== "ready" || ownPrediction || !form.elements.code.value.trim()) {
      return;
    }
    event.preventDefault();
    event.stopImmediatePropagation();
    runInBrowser(form);
  }, true);

  // Stepping through a browser run is the server's (docs/sandbox.md): it needs the run's
  // record first.
  function stepThrough(event, stepForm) {
    if (stepForm.querySelector("[name=run]").value) {
      return;
    }
    event.preventDefault();
    var form = stepForm.closest(".practice-slot").querySelector("form.run-form");
    send(form.dataset.browserRecord).then(function () {
      if (stepForm.querySelector("[name=run]").value) {
        stepForm.submit();
      }
    });
  }

  function enhance(form) {
    if (form.dataset.browserEnhanced) {
      return;
    }
    form.dataset.browserEnhanced = "true";
    var line = document.createElement("p");
    line.className = "browser-python-status practice-hint";
    line.setAttribute("role", "status");
    if (python) {
      var text = words(form);
      line.textContent = python.state === "failed" ? text.failed : python.state === "loading" ? "" : text.ready;
    }
    form.querySelector(".practice-actions").after(line);
    form.querySelector(".stop-button").addEventListener("click", function () {
      stop(form);
    });
  }

  htmx.onLoad(function (root) {
    var forms = root.matches && root.matches("form.run-form[data-browser-worker]")
      ? [root] : root.querySelectorAll("form.run-form[data-browser-worker]");
    Array.prototype.forEach.call(forms, enhance);
  });
})();
