// results.js: a results file as a filterable table whose rows open their
// trace. Shared by the trace viewer and the HTML eval report.
"use strict";

var Results = (function () {
  var el = Draw.el;

  // transition names how refinement moved a row: tentative right/wrong to
  // final right/wrong, or "n/a" without a scored tentative answer.
  function transition(r) {
    if (r.tentative_hit === undefined || r.tentative_hit === null || r.error) return "n/a";
    return (r.tentative_hit ? "right" : "wrong") + " → " + (r.hit ? "right" : "wrong");
  }

  function clip(s, n) { return s.length > n ? s.slice(0, n - 1) + "…" : s; }

  // chains shows a PoG row's reasoning chains (lists of triples), folded.
  function chains(cs) {
    if (!Array.isArray(cs) || !cs.length) return "none";
    var lines = [];
    (function walk(x, depth) {
      if (Array.isArray(x) && x.length && x.every(function (y) { return typeof y !== "object" || y === null; })) { lines.push(x.join(" → ")); return; }
      if (Array.isArray(x)) { x.forEach(function (y) { walk(y, depth + 1); }); return; }
      lines.push(typeof x === "string" ? x : JSON.stringify(x));
    })(cs, 0);
    return el("details", { class: "chains" }, [el("summary", {}, [lines.length + " chain step" + (lines.length === 1 ? "" : "s")]), el("ol", {}, lines.map(function (l) { return el("li", {}, [l]); }))]);
  }

  var TRANSITIONS = ["right → right", "wrong → right", "right → wrong", "wrong → wrong", "n/a"];

  function select(id, label, options) {
    return el("label", { for: id }, [label + " ", el("select", { id: id }, [el("option", { value: "" }, ["all"])].concat(options.map(function (o) { return el("option", { value: o }, [o]); })))]);
  }

  // table draws rows with filters by type, hit/miss, refinement transition
  // and text; onOpen(row) is called when a row's trace is opened (rows
  // without a trace have no button). opts.initial sets filter values.
  function table(rows, onOpen, opts) {
    opts = opts || {};
    var types = Array.from(new Set(rows.map(function (r) { return r.type || "(none)"; }))).sort();
    var uid = "f" + Math.random().toString(36).slice(2, 7);
    var wrap = el("section", { class: "results", "aria-label": opts.label || "results" });
    var filters = el("form", { class: "filters", onsubmit: function (e) { e.preventDefault(); } }, [
      select(uid + "-type", "type", types),
      select(uid + "-hit", "outcome", ["hit", "miss", "error"]),
      select(uid + "-trans", "refinement", TRANSITIONS),
      el("label", { for: uid + "-q" }, ["text ", el("input", { id: uid + "-q", type: "search", placeholder: "question, id, answer" })])
    ]);
    var count = el("p", { class: "meta", "aria-live": "polite" }), body = el("tbody");
    var head = ["", "id", "type", "question", "prediction", "gold", opts.pogRule ? "strict" : "outcome"].concat(opts.pogRule ? ["pog rule"] : [], ["refinement", "calls", "tokens"], opts.chains ? ["reasoning chains"] : []);
    var tab = el("table", { class: "results-table" }, [
      el("thead", {}, [el("tr", {}, head.map(function (h) { return el("th", { scope: "col" }, [h]); }))]),
      body
    ]);
    function val(s) { return filters.querySelector("#" + uid + "-" + s).value; }
    function render() {
      var ty = val("type"), hit = val("hit"), tr = val("trans"), q = val("q").toLowerCase(), shown = 0;
      body.textContent = "";
      rows.forEach(function (r) {
        var outcome = r.error ? "error" : r.hit ? "hit" : "miss";
        if (ty && (r.type || "(none)") !== ty) return;
        if (hit && outcome !== hit && !(hit === "miss" && outcome === "error")) return;
        if (tr && transition(r) !== tr) return;
        if (q && [r.id, r.question, r.prediction, r.results].join(" ").toLowerCase().indexOf(q) < 0) return;
        if (++shown > 200) return;
        var btn = r.trace ? el("button", { type: "button", class: "open", "aria-label": "open the trace of " + (r.id || r.question), onclick: function () { onOpen(r); } }, ["open"]) : "";
        var cells = [btn, r.id || "", r.type || "", r.question || "", clip(r.prediction || r.results || "", 120), (r.gold || []).join(", "), outcome + (r.error_kind ? " (" + r.error_kind + ")" : "")];
        if (opts.pogRule) cells.push(r.pog_hit === true ? "hit" : r.pog_hit === false ? "miss" : "n/a");
        cells.push(transition(r), String(r.call_num || 0), String(r.total_token || 0));
        if (opts.chains) cells.push(chains(r.reasoning_chains));
        body.appendChild(el("tr", { class: outcome }, cells.map(function (c) { return el("td", {}, [c]); })));
      });
      count.textContent = shown + " of " + rows.length + " rows" + (shown > 200 ? " (the first 200 drawn)" : "");
    }
    Object.keys(opts.initial || {}).forEach(function (k) { filters.querySelector("#" + uid + "-" + k).value = opts.initial[k]; });
    filters.addEventListener("input", render);
    filters.addEventListener("change", render);
    wrap.appendChild(filters);
    wrap.appendChild(count);
    wrap.appendChild(el("div", { class: "table-wrap" }, [tab]));
    render();
    return wrap;
  }

  return { table: table, transition: transition };
})();
