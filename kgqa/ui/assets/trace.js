// trace.js: reads the shapes a question's trace comes in and draws it.
// Shared by the trace viewer and the HTML eval report.
"use strict";

var Trace = (function () {
  var el = Draw.el;

  // normalize turns an /v1/ask response, an engine answer (parog ask
  // --json) or an eval results row into one model, or returns null.
  function normalize(o) {
    if (!o || typeof o !== "object") return null;
    var meta = null;
    if (o.trace && typeof o.trace === "object" && o.trace.question !== undefined) {
      meta = { id: o.id, type: o.type, hit: o.hit, gold: o.gold, prediction: o.prediction, tentativeHit: o.tentative_hit, error: o.error };
      o = o.trace;
    } else if (o.id !== undefined && o.hit !== undefined && !o.trace) {
      meta = { id: o.id, type: o.type, hit: o.hit, gold: o.gold, prediction: o.prediction, tentativeHit: o.tentative_hit, error: o.error };
      return { question: o.question, answer: o.results, entities: [], plan: null, subgoals: [], stop: "", error: o.error || "", usage: null, meta: meta, noTrace: true };
    }
    var t = o.trace && Array.isArray(o.trace.subgoals) ? o.trace : o;
    if (!Array.isArray(t.subgoals) && !o.plan) return null;
    return {
      question: o.question || "", answer: o.answer || "", entities: o.entities || [], plan: o.plan || null,
      planInfo: t.plan_info || null, topics: t.topic_entities || [], subgoals: t.subgoals || [], final: t.final || null,
      tentative: t.tentative_answer || null, stop: t.stop_reason || "", error: t.error || "", usage: o.usage || t.usage || null, meta: meta,
      transcript: t.transcript || o.transcript || null, prompts: t.prompts || o.prompts || "",
      recoveries: t.recoveries || o.recoveries || []
    };
  }

  // fromEvents builds the model of a question still running from the
  // stream events seen so far.
  function fromEvents(question, events) {
    var m = { question: question, answer: "", entities: [], plan: null, subgoals: [], stop: "", error: "", usage: null, running: true };
    var byId = {};
    events.forEach(function (ev) {
      if (ev.type === "plan" && ev.plan) {
        m.plan = ev.plan;
        m.planInfo = ev.plan_info || null;
        m.subgoals = ev.plan.subgoals.map(function (s) { var r = { id: s.id, text: s.text, op: s.op, needs: s.needs || [], status: "pending", rounds: [] }; byId[s.id] = r; return r; });
        return;
      }
      var r = byId[ev.subgoal];
      if (ev.type === "error") { m.error = (ev.error && ev.error.error) || "error"; m.stop = "error"; m.running = false; }
      if (!r) return;
      if (ev.type === "subgoal_started") r.status = "running";
      if (ev.type === "tentative_answer") r.tentative = ev.tentative;
      if (ev.type === "exploration" && ev.round) r.rounds.push(ev.round);
      if (ev.type === "refinement") r.verdict = ev.verdict;
      if (ev.type === "sufficiency") r.sufficiency = ev.sufficiency;
      if (ev.type === "subgoal_done") { r.status = "done"; r.result = ev.result; r.set_op = ev.set_op; }
    });
    return m;
  }

  // steps turns stream events into timeline lanes: one lane per subgoal,
  // a segment per step between two of its events.
  function stepLanes(events) {
    var lanes = [], byId = {}, last = {};
    var plan = events.filter(function (e) { return e.type === "plan"; })[0];
    if (plan) lanes.push({ name: "plan", segs: [{ start: 0, end: plan.elapsed_ms, label: "plan", cls: "planning" }] });
    var names = { tentative_answer: "tentative", exploration: "explore", refinement: "refine", sufficiency: "sufficiency", subgoal_done: "set logic" };
    events.forEach(function (e) {
      if (!e.subgoal) return;
      if (!byId[e.subgoal]) { byId[e.subgoal] = { name: e.subgoal, segs: [] }; lanes.push(byId[e.subgoal]); }
      if (e.type === "subgoal_started") { last[e.subgoal] = e.elapsed_ms; return; }
      var start = last[e.subgoal] !== undefined ? last[e.subgoal] : e.elapsed_ms;
      byId[e.subgoal].segs.push({ start: start, end: e.elapsed_ms, label: names[e.type] || e.type, cls: (names[e.type] || "step").replace(/\s/g, "") });
      last[e.subgoal] = e.elapsed_ms;
    });
    return lanes;
  }

  // planLanes lays out a saved trace's subgoals on a timeline: each starts
  // when the last subgoal it needs ends and lasts its elapsed time, so
  // independent subgoals show side by side.
  function planLanes(m) {
    var end = {}, lanes = [];
    m.subgoals.forEach(function (s) {
      var start = 0;
      (s.needs || []).forEach(function (n) { start = Math.max(start, end[n] || 0); });
      end[s.id] = start + (s.elapsed_ms || 0);
      lanes.push({ name: s.id, segs: [{ start: start, end: end[s.id], label: s.op + " " + (s.elapsed_ms || 0) + " ms", cls: s.status }] });
    });
    return lanes;
  }

  // callLanes puts the model calls on lanes: each call goes on the first
  // lane free when it starts, so calls that overlap (parallel subgoals)
  // show side by side.
  function callLanes(calls) {
    var lanes = [], ends = [];
    calls.slice().sort(function (a, b) { return a.start_ms - b.start_ms; }).forEach(function (c) {
      var i = 0;
      while (i < ends.length && ends[i] > c.start_ms) i++;
      if (i === ends.length) { lanes.push({ name: "lane " + (i + 1), segs: [] }); ends.push(0); }
      ends[i] = c.start_ms + Math.max(c.ms, 1);
      // A call that reported no tokens (a cached or failed reply, or an
      // endpoint without usage) is drawn hollow, not as a full call.
      lanes[i].segs.push({ start: c.start_ms, end: c.start_ms + c.ms, label: c.stage + " (" + c.role + ", " + (c.tokens || 0) + " tokens" + (c.failed ? ", failed" : "") + ")",
        cls: stageClass(c.stage) + (c.failed ? " failed" : "") + (c.tokens ? "" : " zero") });
    });
    return lanes;
  }

  function stageClass(stage) {
    var map = { plan: "planning", plan_fewshot: "planning", mentions: "planning", tentative: "tentative", relations: "explore", prune: "explore", refine: "refine", sufficiency: "sufficiency" };
    return map[stage] || "step";
  }

  function statusOf(m, s) {
    if (s.status === "done" && s.result && s.result.source) return "done";
    return s.status || "pending";
  }

  // planGraph draws the plan as a DAG with one node per subgoal.
  function planGraph(m, onSelect) {
    var nodes = m.subgoals.map(function (s) {
      var ans = s.result && s.result.text ? "→ " + s.result.text : s.tentative ? "tentative: " + s.tentative.answer : "";
      var lines = [s.id + " · " + s.op + " · " + (s.status || "pending")].concat(Draw.wrap(s.text, 30, 1), ans ? Draw.wrap(ans, 30, 1) : []);
      return { id: s.id, lines: lines, cls: "st-" + statusOf(m, s), title: s.id + " (" + (s.status || "pending") + "): " + s.text + (ans ? " " + ans : "") };
    });
    var edges = [];
    m.subgoals.forEach(function (s) { (s.needs || []).forEach(function (n) { edges.push({ from: n, to: s.id }); }); });
    return Draw.graph(nodes, edges, { label: "plan", onSelect: onSelect, w: 230, h: 56 });
  }

  function names(terms) { return (terms || []).map(function (t) { return t.name || t.id; }).join(", "); }

  // factGraph draws a subgoal's retrieved facts: anchors, mediators and
  // neighbours, edges labelled by relation.
  function factGraph(facts, cap) {
    cap = cap || 30;
    var shown = facts.slice(0, cap), nodes = {}, order = [], edges = [];
    function node(id, label, cls) { if (!nodes[id]) { nodes[id] = { id: id, lines: Draw.wrap(label, 22, 2), cls: cls, title: label + (id !== label ? " (" + id + ")" : "") }; order.push(id); } return id; }
    function short(p) { var s = String(p).split("."); return s[s.length - 1]; }
    shown.forEach(function (f) {
      var h = node("e:" + (f.head.id || f.head.name), f.head.name || f.head.id, "anchor");
      var tailKey = "e:" + (f.tail.id || f.tail.name);
      var t = node(tailKey, f.tail.name || f.tail.id || "?", f.tail.id ? "entity" : "literal");
      var arrow = f.dir === "in" ? "← " : "";
      if (f.mediator) {
        var mid = node("m:" + f.mediator, "(mediator) " + f.mediator, "mediator");
        edges.push({ from: h, to: mid, label: arrow + short(f.path[0]) });
        edges.push({ from: mid, to: t, label: (f.dir2 === "in" ? "← " : "") + short(f.path[1] || "") });
      } else {
        edges.push({ from: h, to: t, label: arrow + short(f.path[0]) });
      }
    });
    var g = Draw.graph(order.map(function (id) { return nodes[id]; }), edges, { label: "retrieved facts", w: 160, h: 40, gapX: 110, gapY: 8 });
    return el("div", {}, [facts.length > cap ? el("p", { class: "note" }, ["showing " + cap + " of " + facts.length + " facts"]) : null, g]);
  }

  function relList(rels) {
    return (rels || []).map(function (r) { return r.id + (r.dir === "in" ? " (in)" : ""); }).join(", ") || "none";
  }

  // prompts shows a subgoal's model calls (messages and raw reply) and
  // SPARQL queries from the transcript (--trace-prompts), one fold per
  // round, each call folded again; everything starts folded.
  function prompts(t, id) {
    if (!t) return null;
    var calls = (t.calls || []).filter(function (c) { return (c.subgoal || "") === id; });
    var queries = (t.queries || []).filter(function (q) { return (q.subgoal || "") === id; });
    if (!calls.length && !queries.length) return null;
    var rounds = [];
    calls.concat(queries).forEach(function (x) { var r = x.round || 0; if (rounds.indexOf(r) < 0) rounds.push(r); });
    rounds.sort(function (a, b) { return a - b; });
    function count(n, what) { return n + " " + what + (n === 1 ? "" : "s"); }
    return el("div", { class: "prompts" }, [el("h4", {}, ["Prompts and replies"])].concat(rounds.map(function (r) {
      var cs = calls.filter(function (c) { return (c.round || 0) === r; }), qs = queries.filter(function (q) { return (q.round || 0) === r; });
      var head = (r ? "round " + r : "before exploration") + ": " + [cs.length ? count(cs.length, "model call") : "", qs.length ? count(qs.length, "SPARQL query").replace("querys", "queries") : ""].filter(Boolean).join(", ");
      return el("details", {}, [el("summary", {}, [head])].concat(cs.map(function (c) {
        return el("details", { class: "call" }, [el("summary", {}, [c.stage + " (" + c.role + ")" + (c.error ? " — failed" : "")]),
          el("div", {}, c.messages.map(function (m) { return el("div", { class: "msg" }, [el("span", { class: "role" }, [m.role]), el("pre", {}, [m.content])]); })),
          el("div", { class: "msg reply" }, [el("span", { class: "role" }, ["reply"]), el("pre", {}, [c.error ? c.error : c.reply])])]);
      }), qs.map(function (q) { return el("details", { class: "query" }, [el("summary", {}, ["SPARQL"]), el("pre", {}, [q.sparql])]); })));
    })));
  }

  var recoveryKinds = {
    backtrack: "backtracked", aligned_recheck: "aligned verdict asked again",
    misaligned_recheck: "misaligned verdict asked again", next_relation: "next-best relation followed",
    plan_check: "plan sent back or mended"
  };

  // recoveryLine says one recovery in words: what was revisited, what the
  // engine had, and what it took instead (or that the first stood).
  function recoveryLine(r, withSubgoal) {
    return (withSubgoal && r.subgoal ? r.subgoal + ": " : "") + (recoveryKinds[r.kind] || r.kind) + " — " + (r.from || "?") + " → " + (r.to ? r.to : "the first judgement stood");
  }

  // recoveries lists the judgements the engine revisited; cls and
  // withSubgoal place it in the summary (all of them) or in a subgoal.
  function recoveries(list, cls, withSubgoal) {
    if (!list || !list.length) return null;
    return el("div", { class: cls }, [el("h4", {}, ["Recoveries (" + list.length + ")"]),
      el("ul", {}, list.map(function (r) { return el("li", { class: "recovery " + r.kind }, [recoveryLine(r, withSubgoal)]); }))]);
  }

  // subgoalDetail shows one subgoal: tentative beside refined answer, the
  // verdict and the judgements revisited, the relations per round, the
  // facts and, when traced, the prompts.
  function subgoalDetail(s, t, recs) {
    var v = s.verdict, facts = [];
    (s.rounds || []).forEach(function (r) { facts = facts.concat(r.facts || []); });
    var verdict = v ? (v.kept_tentative ? "kept the tentative answer" : v.aligned ? "aligned: refined against the evidence" : "misaligned") : "no refinement";
    return el("section", { class: "subgoal", "aria-label": "subgoal " + s.id }, [
      el("h3", {}, [s.id + ": " + s.text]),
      el("div", { class: "answers" }, [
        el("div", { class: "answer-box tentative" }, [el("h4", {}, ["Tentative (parametric)"]), el("p", {}, [s.tentative ? s.tentative.answer : "—"])]),
        el("div", { class: "answer-box refined" }, [el("h4", {}, ["Refined"]), el("p", { class: "refined-answer" }, [s.result ? s.result.text || names(s.result.entities) || "—" : "…"]),
          el("p", { class: "meta" }, [s.result ? "source: " + s.result.source + (s.corrected ? " · corrected" : "") : ""])]),
        el("div", { class: "answer-box verdict" }, [el("h4", {}, ["Verdict"]), el("p", {}, [verdict]), v && v.reason ? el("p", { class: "meta" }, [v.reason]) : null,
          v && v.rejected && v.rejected.length ? el("p", { class: "meta" }, ["rejected (not in the evidence): " + v.rejected.join(", ")]) : null])
      ]),
      recoveries(recs, "recoveries subgoal-recoveries", false),
      s.set_op ? el("p", { class: "meta" }, ["set logic: " + s.set_op.method + " over inputs of sizes " + (s.set_op.inputs || []).join(", ") + (s.set_op.note ? " — " + s.set_op.note : "")]) : null,
      s.error ? el("p", { class: "error" }, [s.error]) : null,
      (s.rounds || []).length ? Draw.table(["round", "anchors", "offered", "chosen", "rejected"], (s.rounds || []).map(function (r, i) {
        return [String(i + 1), names(r.anchors),
          el("details", {}, [el("summary", {}, [r.offered + " relations"]), el("p", { class: "rels" }, [relList(r.offered_relations)])]),
          relList(r.chosen) + (r.chosen_by ? " (by " + r.chosen_by + ")" : ""),
          (r.rejected || []).map(function (x) { return x.id + " (" + x.reason.replace("_", " ") + ")"; }).join(", ") || "none"];
      }), { class: "rounds" }) : null,
      facts.length ? el("div", { class: "facts" }, [el("h4", {}, ["Facts retrieved (" + facts.length + ")"]), factGraph(facts)]) : null,
      prompts(t, s.id)
    ]);
  }

  function costTable(u) {
    if (!u || !u.llm) return el("p", { class: "meta" }, ["no cost recorded"]);
    function rows(by) {
      return Object.keys(by || {}).sort().map(function (k) { var t = by[k]; return [k, String(t.calls), String(t.prompt_tokens), String(t.completion_tokens), Math.round((t.latency_ns || 0) / 1e6) + " ms"]; });
    }
    return el("div", { class: "cost" }, [
      el("p", {}, [u.llm.calls + " model calls, " + u.llm.total_tokens + " tokens · " + u.sparql_queries + " SPARQL queries · cache " + u.cache_hits + " hits / " + u.cache_misses + " misses · critical path " + u.critical_path_calls + " calls · " + u.wall_ms + " ms"]),
      Draw.table(["role", "calls", "prompt tokens", "completion tokens", "latency"], rows(u.llm.by_role), { class: "cost-table", "aria-label": "cost per role" }),
      Draw.table(["stage", "calls", "prompt tokens", "completion tokens", "latency"], rows(u.llm.by_stage), { class: "cost-table", "aria-label": "cost per stage" })
    ]);
  }

  // informative reports whether a subgoal has something of its own to show:
  // a tentative answer, a refinement verdict or retrieval rounds (a set
  // operation over other subgoals' results has none).
  function informative(s) {
    return !!(s.tentative || s.verdict || (s.rounds && s.rounds.length) || s.error);
  }

  // answeredBy names the subgoal to show first: the one that produced the
  // answer (whose judgement stopped the run early, else the plan's answer
  // subgoal) when it ran and has something to show; else the last subgoal
  // that ran and has (an intersect's inputs, say); else the last that ran.
  function answeredBy(m) {
    if (!m.subgoals.length) return null;
    var byId = {};
    m.subgoals.forEach(function (s) { byId[s.id] = s; });
    var id = m.final && m.final.after && byId[m.final.after] ? m.final.after : m.plan && m.plan.answer && byId[m.plan.answer] ? m.plan.answer : m.subgoals[m.subgoals.length - 1].id;
    var ran = function (s) { return s.status === "done" || s.status === "failed" || s.status === "running"; };
    if (ran(byId[id]) && informative(byId[id])) return id;
    var shown = m.subgoals.filter(function (s) { return ran(s) && informative(s); });
    if (shown.length) return shown[shown.length - 1].id;
    if (ran(byId[id])) return id;
    var any = m.subgoals.filter(ran);
    return any.length ? any[any.length - 1].id : id;
  }

  // legend says what the trace's words mean.
  function legend() {
    var terms = [
      ["tentative", "the model's answer to a subgoal from its own knowledge, before any evidence"],
      ["refined", "the answer after checking the tentative one against facts retrieved from the KG (source: evidence), or the tentative one when no evidence was aligned"],
      ["verdict", "the refine call's judgement: aligned (the facts bear on the subgoal; the answer comes from them) or misaligned"],
      ["kept", "the tentative answer stood: the evidence was misaligned, so it was not trusted over the model"],
      ["recovery", "a judgement the engine did not take as final: a verdict the KG doubted, asked again with the reason, or a subgoal reopened; from is what it had, to what it took instead"],
      ["skipped", "the subgoal did not run: the question was answered before it, or the answer does not need it"]];
    return el("details", { class: "legend-box", open: true }, [el("summary", {}, ["What the words mean"]),
      el("dl", { class: "legend-terms" }, [].concat.apply([], terms.map(function (t) { return [el("dt", {}, [t[0]]), el("dd", {}, [t[1]])]; })))]);
  }

  // failure is the body of a question that failed before any trace.
  function failure(question, message) {
    var root = el("div", { class: "trace" });
    root.appendChild(el("section", { class: "summary failure", role: "alert" }, [el("h2", {}, [question]),
      el("p", { class: "final" }, [el("span", { class: "label" }, ["Answer: "]), el("strong", { class: "answer-text" }, ["(none)"])]),
      el("p", { class: "error" }, ["The question failed: " + message])]));
    return root;
  }

  // view draws a question: answer, plan DAG, the selected subgoal, stop
  // reason, cost and timeline. events are the stream events, when known.
  // opts.selected names the subgoal to show first (default: the last);
  // opts.onSelect(id) hears every selection, so a redraw can keep it.
  function view(m, events, opts) {
    opts = opts || {};
    var root = el("div", { class: "trace" }), detail = el("div", { class: "detail", "aria-live": "polite" });
    var known = m.subgoals.some(function (x) { return x.id === opts.selected; });
    var selected = known ? opts.selected : answeredBy(m);
    // select shows subgoal id; auto (the first choice, not the user's) is
    // not reported to onSelect, so that a redraw with more of the trace
    // chooses again rather than keeping a choice made on less of it.
    function select(id, auto) {
      selected = id;
      if (opts.onSelect && !auto) opts.onSelect(id);
      detail.textContent = "";
      var s = m.subgoals.filter(function (x) { return x.id === id; })[0];
      if (s) detail.appendChild(subgoalDetail(s, m.transcript, (m.recoveries || []).filter(function (r) { return r.subgoal === id; })));
      root.querySelectorAll(".node").forEach(function (n) { n.classList.toggle("selected", n.getAttribute("data-id") === id); });
    }
    var meta = m.meta ? el("p", { class: "meta" }, [[m.meta.id, m.meta.type, m.meta.hit === true ? "hit" : m.meta.hit === false ? "miss" : "", m.meta.gold ? "gold: " + m.meta.gold.join(", ") : ""].filter(Boolean).join(" · ")]) : null;
    root.appendChild(el("section", { class: "summary" }, [
      el("h2", {}, [m.question]),
      meta,
      el("p", { class: "final" }, [el("span", { class: "label" }, ["Answer: "]), el("strong", { class: "answer-text" }, [m.running ? "…" : m.answer || "(none)"])]),
      m.tentative ? el("p", { class: "meta" }, ["tentative answer of the question: " + (m.tentative.derivable ? (m.tentative.names || []).join(", ") || "(empty)" : "not derivable" + (m.tentative.reason ? " (" + m.tentative.reason + ")" : ""))]) : null,
      el("p", { class: "meta" }, [m.running ? "running…" : "stop reason: " + (m.stop || "?") + (m.final ? " · answered by " + m.final.source + (m.final.after ? " after " + m.final.after : "") : "") + (m.planInfo ? " · plan from " + m.planInfo.source : "")]),
      m.error ? el("p", { class: "error" }, [m.error]) : null,
      recoveries(m.recoveries, "recoveries answer-recoveries", true)
    ]));
    if (m.noTrace) { root.appendChild(el("p", { class: "note" }, ["this row carries no trace"])); return root; }
    root.appendChild(el("section", { class: "plan", id: "plan" }, [el("h2", {}, ["Plan"]), m.subgoals.length ? planGraph(m, select) : el("p", {}, [m.running ? "no plan yet" : "no plan"]),
      m.subgoals.length ? legend() : null,
      m.prompts ? el("p", { class: "meta" }, ["prompt templates: " + m.prompts]) : null]));
    root.appendChild(detail);
    var calls = m.usage && m.usage.calls && m.usage.calls.length ? callLanes(m.usage.calls) : [];
    var lanes = events && events.length ? stepLanes(events) : planLanes(m);
    root.appendChild(el("section", { class: "timing" }, [
      el("h2", {}, ["Cost"]), costTable(m.usage),
      calls.length ? el("h3", {}, ["Timeline of the model calls (overlapping calls on separate lanes)"]) : null,
      calls.length ? Draw.timeline(calls, { label: "timeline of the model calls", cls: "calls" }) : null,
      lanes.length ? el("h3", {}, [events && events.length ? "Timeline of the steps per subgoal (from the stream)" : "Timeline of the subgoals (from their wall times and dependencies)"]) : null,
      lanes.length ? Draw.timeline(lanes, { label: "timeline of the steps" }) : null
    ]));
    if (selected) select(selected, !known);
    return root;
  }

  return { normalize: normalize, fromEvents: fromEvents, view: view, failure: failure };
})();
