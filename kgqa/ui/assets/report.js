// report.js: the HTML eval report, drawn from the JSON in #report-data
// with the viewer's drawing code.
"use strict";

(function () {
  var el = Draw.el;

  // wilson is the 95% Wilson score interval of k successes in n.
  function wilson(k, n) {
    if (!n) return { lo: 0, hi: 0 };
    var z = 1.96, p = k / n, d = 1 + z * z / n, c = (p + z * z / (2 * n)) / d, h = z * Math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d;
    return { lo: Math.max(0, c - h), hi: Math.min(1, c + h) };
  }

  function scored(run) { return run.scored !== false; }

  // colour is a run's one colour in every chart: its place among the runs.
  function colour(i) { return "r" + (i % 6); }

  // label names a run, with its dataset when the runs mix datasets.
  var mixed = false;
  function label(run) { return run.name + (mixed && run.dataset ? " [" + run.dataset + "]" : ""); }

  function hitsSection(runs, scoring) {
    var rows = [];
    runs.forEach(function (run, i) {
      var name = label(run) + (scoring ? " (" + scoring + " rule)" : "");
      if (!scored(run)) { rows.push(el("p", { class: "meta" }, [label(run) + ": Hits@1 n/a (no gold answers given)"])); return; }
      // Over one seed a t-interval has no width: the bootstrap over
      // questions is the interval then.
      var oneSeed = !run.hits1.n || run.hits1.n < 2, ci = oneSeed && run.hits1_bootstrap ? run.hits1_bootstrap : run.hits1;
      var bars = [{ label: "all (" + run.questions + ")", value: run.hits1.mean, lo: ci.low, hi: ci.high, note: oneSeed ? "bootstrap over questions" : "t-interval over seeds", cls: colour(i) }];
      (run.by_type || []).forEach(function (t) {
        var ci = wilson(Math.round(t.hits1 * t.n), t.n);
        bars.push({ label: t.type + " (" + t.n + ")", value: t.hits1, lo: ci.lo, hi: ci.hi, cls: colour(i) });
      });
      rows.push(el("h3", {}, [name]));
      rows.push(Draw.bars(bars, { label: "Hits@1 per type, " + run.name }));
      if ((run.rules || []).length) {
        rows.push(el("p", { class: "meta" }, ["By rule: " + run.rules.map(function (r) { return r.rule + " " + Draw.pct(r.hits1) + " (" + r.hits + " of " + r.n + ")"; }).join(" · ")]));
      }
    });
    return el("section", { id: "hits" }, [el("h2", {}, ["Hits@1 per question type"]),
      el("p", { class: "note" }, ["Bars are Hits@1; whiskers the 95% interval (all: t over seeds, or the bootstrap over questions when there is one seed; per type: Wilson over result lines). Each run keeps one colour in every chart."])].concat(rows));
  }

  // certificates shows, per question type, the share of KG-drawn answers
  // whose certificate query returned the answer, and the share of
  // certificates whose answers equal the gold query's, with the classes
  // of disagreement.
  function certificates(runs) {
    var share = function (k, n) { return n ? Draw.pct(k / n) + " (" + k + "/" + n + ")" : "n/a"; };
    var parts = runs.filter(function (r) { var c = r.certificates; return c && (c.from_kg || c.judged); }).map(function (r) {
      var rows = (r.by_type || []).map(function (t) {
        var c = t.certificates || {};
        return [t.type, String(t.n), share(c.verified || 0, c.from_kg || 0), share(c.equivalent || 0, c.judged || 0)];
      });
      var c = r.certificates;
      rows.push(["all", String(r.questions), share(c.verified || 0, c.from_kg || 0), share(c.equivalent || 0, c.judged || 0)]);
      var dis = Object.keys(c.disagreements || {}).sort().map(function (k) { return k + " " + c.disagreements[k]; });
      return el("div", {}, [el("h3", {}, [r.name]),
        Draw.table(["type", "n", "verified", "equivalent"], rows, { "aria-label": "certificates of " + r.name }),
        dis.length ? el("p", { class: "meta" }, ["Disagreements with the gold query: " + dis.join(" · ")]) : null]);
    });
    return el("section", { id: "certificates" }, [el("h2", {}, ["Answer certificates"]),
      el("p", { class: "note" }, ["Verified: of the answers drawn from the KG, those whose certificate query, run on the KG, returned the answer. Equivalent: of the certificates compared with a gold query, those returning the same answers."])].concat(parts));
  }

  function costSection(runs, data) {
    var series = function (key) {
      return data.runs.map(function (r, i) { return { name: label(runs[i]) + (runs[i].format === "pog" ? " (PoG)" : ""), values: r.rows.map(function (x) { return x[key] || 0; }), cls: colour(i) }; });
    };
    var hasPoG = runs.some(function (r) { return r.format === "pog"; });
    return el("section", { id: "cost" }, [el("h2", {}, ["Calls and tokens per question"]),
      hasPoG ? null : el("p", { class: "note" }, ["Give a PoG results file among the runs to see PoG's distribution beside ours."]),
      el("p", { class: "note" }, ["Cumulative distributions on a log scale: a curve reaches y at the x that y of the run's questions stay within."]),
      el("h3", {}, ["LLM calls"]), Draw.ecdf(series("call_num"), { label: "calls per question", unit: "LLM calls" }),
      el("h3", {}, ["Tokens"]), Draw.ecdf(series("total_token"), { label: "tokens per question", unit: "tokens" }),
      Draw.table(["run", "calls mean", "median", "p90", "tokens mean", "median", "p90"], costRows(runs))]);
  }

  // costRows lists each run's calls and tokens per question, then PoG's
  // reference when no PoG file is among the runs, labelled with its source.
  function costRows(runs) {
    var rows = runs.map(function (r) {
      var e = r.efficiency || {};
      return [label(r)].concat(dist(e.llm_calls), dist(e.tokens));
    });
    var ref = runs.map(function (r) { return r.efficiency && r.efficiency.pog; }).filter(Boolean)[0];
    if (ref && !runs.some(function (r) { return r.format === "pog"; })) rows.push(["PoG: " + ref.source].concat(dist(ref.llm_calls), dist(ref.tokens)));
    return rows;
  }

  function dist(d) { d = d || {}; return [fmt(d.mean), fmt(d.median), fmt(d.p90)]; }

  function fmt(x) { return x === undefined ? "n/a" : (Math.round(x * 10) / 10).toString(); }

  function transitions(runs) {
    var rows = runs.filter(function (r) { return r.refinement && r.refinement.judged; }).map(function (r) {
      var f = r.refinement, rr = f.judged - f.tentative_wrong - f.broken, ww = f.tentative_wrong - f.fixed;
      return el("div", { class: "matrix-wrap" }, [el("h3", {}, [r.name]),
        Draw.table(["tentative \\ final", "right", "wrong"], [["right", String(rr), String(f.broken)], ["wrong", String(f.fixed), String(ww)]], { class: "matrix", "aria-label": "refinement transitions of " + r.name }),
        el("p", { class: "meta" }, [f.judged + " questions judged, " + (f.not_derivable || 0) + " without a derivable tentative answer; refinement fixed " + Draw.pct(f.fix_rate) + " of the wrong tentative answers" + (f.paper_fix_rate ? " (paper: " + Draw.pct(f.paper_fix_rate) + ")" : "")])]);
    });
    return el("section", { id: "refinement" }, [el("h2", {}, ["Refinement transitions"])].concat(rows.length ? rows : [el("p", { class: "meta" }, ["no run has scored tentative answers"])]));
  }

  function failures(runs, data) {
    var view = el("div", { id: "failure-trace" });
    var parts = runs.map(function (r, i) {
      var rows = data.runs[i].rows, omitted = data.runs[i].traces_omitted;
      if (!scored(r)) return null;
      return el("div", {}, [el("h3", {}, [label(r)]),
        omitted ? el("p", { class: "note" }, [omitted + " missed questions carry no trace here (the page keeps the first " + 300 + ")"]) : null,
        Results.table(rows, function (row) {
          view.textContent = "";
          view.appendChild(Trace.view(Trace.normalize(row), null));
          view.scrollIntoView();
        }, { initial: { hit: "miss" }, label: "misses of " + r.name,
          pogRule: rows.some(function (x) { return x.pog_hit !== undefined && x.pog_hit !== null; }),
          chains: r.format === "pog" })]);
    });
    return el("section", { id: "failures" }, [el("h2", {}, ["Misses"]), el("p", { class: "note" }, ["Questions answered wrong, empty or with an error (report.md counts them under Misses; the errors alone under Errors). Each question with a trace opens it below the table."])].concat(parts, [view]));
  }

  document.addEventListener("DOMContentLoaded", function () {
    var data = JSON.parse(document.getElementById("report-data").textContent);
    var runs = data.report.runs || [], root = document.getElementById("report");
    mixed = data.report.dataset === "mixed";
    root.appendChild(el("p", { class: "meta" }, [runs.length + " run(s)" + (data.report.dataset && !mixed ? " on " + data.report.dataset : mixed ? " of different datasets" : "") + ": " + runs.map(label).join(", ")]));
    root.appendChild(hitsSection(runs, data.report.scoring));
    root.appendChild(certificates(runs));
    root.appendChild(costSection(runs, data));
    root.appendChild(transitions(runs));
    root.appendChild(failures(runs, data));
  });
})();
