// viewer.js: the trace viewer page. Asks for the API key, asks questions
// over the NDJSON stream, opens saved traces and results files.
"use strict";

(function () {
  var el = Draw.el, $ = function (id) { return document.getElementById(id); };
  var KEY = "parog.apiKey";

  function headers() {
    var h = { "Content-Type": "application/json" }, k = sessionStorage.getItem(KEY);
    if (k) h.Authorization = "Bearer " + k;
    return h;
  }

  function status(text, isError) {
    var s = $("status");
    s.textContent = text;
    s.className = isError ? "error" : "";
  }

  function askKey(msg) {
    $("app").hidden = true;
    $("key-panel").hidden = false;
    status(msg || "give the API key", !!msg);
    $("api-key").focus();
  }

  // unlock shows the app when the server accepts the key (or needs none);
  // without a key it sends nothing that needs one.
  function unlock() {
    return fetch("/ui/auth").then(function (r) { return r.json(); }).then(function (a) {
      if (a.key_required && !sessionStorage.getItem(KEY)) return askKey();
      return fetch("/v1/models", { headers: headers() }).then(function (r) {
        if (r.status === 401) return askKey("the server refused this API key");
        if (!r.ok) throw new Error("server answered " + r.status);
        $("key-panel").hidden = true;
        $("app").hidden = false;
        demo(a);
        status(a.model ? "ready: " + a.model : a.ask === false ? "ready to open files; no model is configured, so questions are not answered (see docs/asking.md)" : "ready");
        $("question").focus();
      });
    }).catch(function (e) { status("cannot reach the server: " + e.message, true); });
  }

  // demo lists the questions the scripted demo model answers (when it
  // stands in for a model), each a button that asks it.
  function demo(a) {
    var list = $("demo-questions");
    list.textContent = "";
    $("demo").hidden = !a.model;
    if (!a.model) return;
    $("demo-model").textContent = a.model + ". Click one to ask it:";
    (a.questions || []).forEach(function (q) {
      list.appendChild(el("li", {}, [el("button", { type: "button", class: "demo-question", "data-id": q.id, onclick: function () {
        $("question").value = q.question;
        ask(q.question);
      } }, [q.question])]));
    });
  }

  // picked is the subgoal the user selected in the question on screen; a
  // redraw while the stream runs keeps it.
  var picked = null;
  var keep = { onSelect: function (id) { picked = id; } };

  function draw(m, events) {
    keep.selected = picked;
    show(Trace.view(m, events, keep));
  }

  // cert shows the certificate of o (an answer, a results row) in its own
  // section, or hides the section (o null).
  function cert(o) {
    Certificate.show($("certificate"), o, { headers: headers });
  }

  function show(node) {
    var v = $("view");
    v.textContent = "";
    v.appendChild(node);
  }

  // ask posts a question with stream:true and redraws on every event.
  function ask(q) {
    var events = [];
    status("asking…");
    $("results").textContent = "";
    cert(null);
    picked = null;
    draw(Trace.fromEvents(q, events), events);
    fetch("/v1/ask", { method: "POST", headers: headers(), body: JSON.stringify({ question: q, stream: true }) }).then(function (r) {
      if (r.status === 401) { unlock(); throw new Error("API key refused"); }
      if (!r.ok) return r.json().then(function (b) { throw new Error(b.error || ("status " + r.status)); });
      var reader = r.body.getReader(), dec = new TextDecoder(), buf = "";
      function pump() {
        return reader.read().then(function (chunk) {
          if (chunk.done) return;
          buf += dec.decode(chunk.value, { stream: true });
          var lines = buf.split("\n");
          buf = lines.pop();
          lines.forEach(function (line) { if (line.trim()) onEvent(q, events, JSON.parse(line)); });
          return pump();
        });
      }
      return pump();
    }).then(function () {
      if (!events.some(function (e) { return e.type === "final" || e.type === "error"; })) status("the stream ended without an answer", true);
    }).catch(function (e) {
      // The header says it in one line; the body, where the trace would
      // be, says what failed.
      status("failed: see below", true);
      show(Trace.failure(q, e.message));
    });
  }

  function onEvent(q, events, ev) {
    events.push(ev);
    if (ev.type === "final" && ev.answer) {
      draw(Trace.normalize(ev.answer), events);
      cert(ev.answer);
      status("answered in " + ev.elapsed_ms + " ms");
      return;
    }
    if (ev.type === "error") status("failed: see below", true);
    else status("step " + ev.seq + ": " + ev.type + (ev.subgoal ? " " + ev.subgoal : ""));
    var m = Trace.fromEvents(q, events);
    if (ev.type === "error" && ev.error && ev.error.partial) m = Trace.normalize(ev.error.partial);
    draw(m, events);
  }

  // open reads text of any supported shape: a JSON answer or results row,
  // a results file (JSON lines) or a saved stream (NDJSON events).
  function open(name, text) {
    $("results").textContent = "";
    cert(null);
    var one = null;
    try { one = JSON.parse(text); } catch (e) { one = null; }
    if (one && !Array.isArray(one)) {
      var m = Trace.normalize(one);
      if (!m) return status(name + ": not a trace, an answer or a results row", true);
      show(Trace.view(m, null));
      cert(one);
      return status("opened " + name);
    }
    var rows = [], bad = 0;
    text.split("\n").forEach(function (line) {
      if (!line.trim()) return;
      try { rows.push(JSON.parse(line)); } catch (e) { bad++; }
    });
    if (Array.isArray(one)) rows = one;
    if (!rows.length) return status(name + ": nothing readable", true);
    if (rows[0].type !== undefined && rows[0].seq !== undefined) {
      var fin = rows.filter(function (e) { return e.type === "final"; })[0];
      show(Trace.view(fin ? Trace.normalize(fin.answer) : Trace.fromEvents("", rows), rows));
      cert(fin && fin.answer);
      return status("replayed " + rows.length + " events of " + name);
    }
    $("view").textContent = "";
    $("results").appendChild(Results.table(rows, function (row) {
      show(Trace.view(Trace.normalize(row), null));
      cert(row);
      $("view").scrollIntoView();
    }));
    status("opened " + name + ": " + rows.length + " rows" + (bad ? ", " + bad + " unreadable lines skipped" : ""));
  }

  function openPath(path) {
    status("opening " + path + "…");
    fetch("/ui/files/" + path.split("/").map(encodeURIComponent).join("/"), { headers: headers() }).then(function (r) {
      if (!r.ok) return r.json().then(function (b) { throw new Error(b.error || ("status " + r.status)); });
      return r.text().then(function (t) { open(path, t); });
    }).catch(function (e) { status(path + ": " + e.message, true); });
  }

  function readFile(f) {
    var rd = new FileReader();
    rd.onload = function () { open(f.name, String(rd.result)); };
    rd.onerror = function () { status(f.name + ": cannot read", true); };
    rd.readAsText(f);
  }

  document.addEventListener("DOMContentLoaded", function () {
    $("key-form").addEventListener("submit", function (e) {
      e.preventDefault();
      sessionStorage.setItem(KEY, $("api-key").value.trim());
      $("api-key").value = "";
      unlock();
    });
    $("ask-form").addEventListener("submit", function (e) {
      e.preventDefault();
      var q = $("question").value.trim();
      if (q) ask(q);
    });
    $("path-form").addEventListener("submit", function (e) {
      e.preventDefault();
      var p = $("path").value.trim();
      if (p) openPath(p);
    });
    $("file").addEventListener("change", function () { if (this.files[0]) readFile(this.files[0]); });
    document.addEventListener("dragover", function (e) { e.preventDefault(); document.body.classList.add("dragging"); });
    document.addEventListener("dragleave", function () { document.body.classList.remove("dragging"); });
    document.addEventListener("drop", function (e) {
      e.preventDefault();
      document.body.classList.remove("dragging");
      if ($("app").hidden) return;
      var f = e.dataTransfer.files[0];
      if (f) readFile(f);
    });
    $("forget-key").addEventListener("click", function () { sessionStorage.removeItem(KEY); unlock(); });
    unlock();
  });
})();
