// draw.js: the drawing code shared by the trace viewer and the HTML eval
// report. Everything is plain DOM and SVG: no library, no network.
"use strict";

var Draw = (function () {
  var SVGNS = "http://www.w3.org/2000/svg";

  // el builds an HTML element: attrs are attributes (on* keys are event
  // handlers), children are nodes or strings.
  function el(tag, attrs, children) {
    return build(document.createElement(tag), attrs, children);
  }

  // sv builds an SVG element.
  function sv(tag, attrs, children) {
    return build(document.createElementNS(SVGNS, tag), attrs, children);
  }

  function build(n, attrs, children) {
    Object.keys(attrs || {}).forEach(function (k) {
      var v = attrs[k];
      if (v === undefined || v === null || v === false) return;
      if (k.slice(0, 2) === "on") n.addEventListener(k.slice(2), v);
      else if (k === "text") n.textContent = v;
      else n.setAttribute(k, v === true ? "" : String(v));
    });
    (children || []).forEach(function (c) {
      if (c === null || c === undefined || c === false) return;
      n.appendChild(typeof c === "object" ? c : document.createTextNode(String(c)));
    });
    return n;
  }

  // wrap cuts text into at most lines lines of about width characters.
  function wrap(text, width, lines) {
    var words = String(text || "").split(/\s+/), out = [], cur = "";
    words.forEach(function (w) {
      if (cur && (cur + " " + w).length > width) { out.push(cur); cur = w; } else cur = cur ? cur + " " + w : w;
    });
    if (cur) out.push(cur);
    if (out.length > lines) { out = out.slice(0, lines); out[lines - 1] = out[lines - 1].slice(0, width - 1) + "…"; }
    return out;
  }

  // layers gives each node its longest distance from a source; back edges
  // of a cycle are ignored (at most n rounds of relaxation).
  function layers(ids, edges) {
    var layer = {};
    ids.forEach(function (id) { layer[id] = 0; });
    for (var round = 0; round < ids.length; round++) {
      var changed = false;
      edges.forEach(function (e) {
        if (layer[e.from] === undefined || layer[e.to] === undefined) return;
        if (layer[e.to] < layer[e.from] + 1 && layer[e.from] + 1 < ids.length) { layer[e.to] = layer[e.from] + 1; changed = true; }
      });
      if (!changed) break;
    }
    return layer;
  }

  // layout places nodes left to right by layer (a layered layout). An edge
  // that spans more than one layer gets a waypoint in each layer it
  // crosses: a thin slot of its own in that column, ordered with the nodes
  // by the mean row of their predecessors, so the edge passes the column
  // through its slot and never through a node. Returns the positions of
  // nodes (pos) and of each long edge's waypoints (via, by edge index).
  function layout(nodes, edges, o) {
    var ids = nodes.map(function (n) { return n.id; });
    var layer = layers(ids, edges), cols = [], row = {}, pos = {}, height = {}, via = {}, links = [];
    nodes.forEach(function (n) { (cols[layer[n.id]] = cols[layer[n.id]] || []).push(n.id); height[n.id] = o.h; });
    edges.forEach(function (e, i) {
      if (layer[e.from] === undefined || layer[e.to] === undefined) return;
      var prev = e.from;
      via[i] = [];
      for (var l = layer[e.from] + 1; l < layer[e.to]; l++) {
        var d = "~" + i + "~" + l;
        (cols[l] = cols[l] || []).push(d);
        height[d] = o.slot;
        via[i].push(d);
        links.push({ from: prev, to: d });
        prev = d;
      }
      links.push({ from: prev, to: e.to });
    });
    cols.forEach(function (col, c) {
      if (c > 0) {
        var key = {};
        col.forEach(function (id, i) {
          var preds = links.filter(function (e) { return e.to === id && row[e.from] !== undefined; });
          key[id] = preds.length ? preds.reduce(function (s, e) { return s + row[e.from]; }, 0) / preds.length : i;
        });
        col.sort(function (a, b) { return key[a] - key[b]; });
      }
      col.forEach(function (id, i) { row[id] = i; });
    });
    var colH = cols.map(function (col) { return col.reduce(function (s, id) { return s + height[id]; }, 0) + Math.max(0, col.length - 1) * o.gapY; });
    var tallest = Math.max.apply(null, colH.concat([o.h]));
    cols.forEach(function (col, c) {
      var y = o.pad + (tallest - colH[c]) / 2;
      col.forEach(function (id) { pos[id] = { x: o.pad + c * (o.w + o.gapX), y: y, h: height[id] }; y += height[id] + o.gapY; });
    });
    var vias = {};
    Object.keys(via).forEach(function (i) { vias[i] = via[i].map(function (d) { return pos[d]; }); });
    return { pos: pos, via: vias, width: 2 * o.pad + cols.length * (o.w + o.gapX) - o.gapX, height: 2 * o.pad + tallest };
  }

  // route is the SVG path of edge i: out of the right side of its tail,
  // straight through the slot of each column it crosses, curving only in
  // the gaps between columns (where there are no nodes), into the left
  // side of its head.
  function route(L, o, e, i) {
    var a = L.pos[e.from], b = L.pos[e.to];
    if (b.x <= a.x) { // a back edge of a cycle (facts only): bottom to top
      var x1 = a.x + o.w / 2, y1 = a.y + o.h, x2 = b.x + o.w / 2, y2 = b.y, my = (y1 + y2) / 2;
      return { d: "M" + x1 + "," + y1 + " C" + x1 + "," + my + " " + x2 + "," + my + " " + x2 + "," + y2, label: [(x1 + x2) / 2, my] };
    }
    var pts = [[a.x + o.w, a.y + o.h / 2]];
    (L.via[i] || []).forEach(function (v) { pts.push([v.x, v.y + v.h / 2], [v.x + o.w, v.y + v.h / 2]); });
    pts.push([b.x, b.y + o.h / 2]);
    var d = "M" + pts[0][0] + "," + pts[0][1];
    for (var k = 1; k < pts.length; k++) {
      var p = pts[k - 1], q = pts[k];
      if (k % 2 === 1) { var mx = (p[0] + q[0]) / 2; d += " C" + mx + "," + p[1] + " " + mx + "," + q[1] + " " + q[0] + "," + q[1]; }
      else d += " L" + q[0] + "," + q[1];
    }
    return { d: d, label: [(pts[0][0] + pts[1][0]) / 2, (pts[0][1] + pts[1][1]) / 2 - 4] };
  }

  // graph draws a directed graph as SVG. nodes: {id, lines[], cls, title};
  // edges: {from, to, label}. opts: w, h (node size), onSelect(id) makes
  // nodes focusable buttons.
  function graph(nodes, edges, opts) {
    var o = Object.assign({ w: 190, h: 58, gapX: 70, gapY: 18, pad: 12, slot: 10, label: "graph" }, opts || {});
    var L = layout(nodes, edges, o), uid = "arrow" + Math.random().toString(36).slice(2);
    var svg = sv("svg", { viewBox: "0 0 " + L.width + " " + L.height, width: L.width, height: L.height, role: "group", "aria-label": o.label, class: "graph" });
    svg.appendChild(sv("defs", {}, [sv("marker", { id: uid, viewBox: "0 0 10 10", refX: 10, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" }, [sv("path", { d: "M0,0 L10,5 L0,10 z", class: "arrowhead" })])]));
    edges.forEach(function (e, i) {
      if (!L.pos[e.from] || !L.pos[e.to]) return;
      var r = route(L, o, e, i);
      svg.appendChild(sv("path", { d: r.d, class: "edge", "data-from": e.from, "data-to": e.to, "marker-end": "url(#" + uid + ")" }));
      if (e.label) svg.appendChild(sv("text", { x: r.label[0], y: r.label[1], class: "edge-label", "text-anchor": "middle" }, [e.label]));
    });
    nodes.forEach(function (n) {
      var p = L.pos[n.id];
      var g = sv("g", { class: "node " + (n.cls || ""), "data-id": n.id, transform: "translate(" + p.x + "," + p.y + ")" });
      if (o.onSelect) {
        g.setAttribute("tabindex", "0");
        g.setAttribute("role", "button");
        g.setAttribute("aria-label", (n.title || n.lines.join(" ")));
        g.addEventListener("click", function () { o.onSelect(n.id); });
        g.addEventListener("keydown", function (ev) { if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); o.onSelect(n.id); } });
      }
      g.appendChild(sv("title", {}, [n.title || n.lines.join(" ")]));
      g.appendChild(sv("rect", { width: o.w, height: o.h, rx: 6 }));
      n.lines.forEach(function (line, i) {
        g.appendChild(sv("text", { x: 8, y: 17 + i * 15, class: i === 0 ? "node-head" : "node-text" }, [line]));
      });
      svg.appendChild(g);
    });
    return el("div", { class: "graph-wrap" }, [svg]);
  }

  // bars draws horizontal bars with confidence intervals. rows: {label,
  // value, lo, hi, note}, values in [0,1].
  function bars(rows, opts) {
    var o = Object.assign({ labelW: 170, barW: 360, rowH: 24, label: "bars" }, opts || {});
    var H = rows.length * o.rowH + 24, W = o.labelW + o.barW + 400;
    var svg = sv("svg", { viewBox: "0 0 " + W + " " + H, width: W, height: H, role: "img", "aria-label": o.label, class: "bars" });
    [0, 0.25, 0.5, 0.75, 1].forEach(function (t) {
      var x = o.labelW + t * o.barW;
      svg.appendChild(sv("line", { x1: x, x2: x, y1: 0, y2: H - 18, class: "grid" }));
      svg.appendChild(sv("text", { x: x, y: H - 4, "text-anchor": "middle", class: "axis" }, [Math.round(t * 100) + "%"]));
    });
    rows.forEach(function (r, i) {
      var y = i * o.rowH + 4;
      svg.appendChild(sv("text", { x: o.labelW - 6, y: y + 14, "text-anchor": "end", class: "bar-label" }, [r.label]));
      svg.appendChild(sv("rect", { x: o.labelW, y: y + 3, width: Math.max(0, r.value) * o.barW, height: o.rowH - 10, class: "bar " + (r.cls || "") }, [sv("title", {}, [r.label + ": " + pct(r.value) + (r.note ? " " + r.note : "")])]));
      if (r.lo !== undefined && r.hi !== undefined) {
        var cy = y + o.rowH / 2 - 2, x1 = o.labelW + r.lo * o.barW, x2 = o.labelW + r.hi * o.barW;
        svg.appendChild(sv("path", { d: "M" + x1 + "," + (cy - 5) + "v10M" + x1 + "," + cy + "H" + x2 + "M" + x2 + "," + (cy - 5) + "v10", class: "ci" }));
      }
      svg.appendChild(sv("text", { x: o.labelW + o.barW + 8, y: y + 14, class: "bar-value" }, [pct(r.value) + (r.lo !== undefined ? " [" + pct(r.lo) + ", " + pct(r.hi) + "]" : "") + (r.note ? " " + r.note : "")]));
    });
    return svg;
  }

  // histograms draws the distributions of several series side by side on
  // one axis. series: {name, values[], cls}.
  function histograms(series, opts) {
    var o = Object.assign({ bins: 12, W: 520, H: 160, label: "histogram" }, opts || {});
    var all = [].concat.apply([], series.map(function (s) { return s.values; }));
    var svg = sv("svg", { viewBox: "0 0 " + (o.W + 60) + " " + (o.H + 40), width: o.W + 60, height: o.H + 40, role: "img", "aria-label": o.label, class: "hist" });
    if (!all.length) { svg.appendChild(sv("text", { x: 10, y: 20 }, ["no data"])); return svg; }
    var max = Math.max.apply(null, all), width = Math.max(1, Math.ceil((max + 1) / o.bins));
    var counts = series.map(function (s) {
      var c = new Array(o.bins).fill(0);
      s.values.forEach(function (v) { c[Math.min(o.bins - 1, Math.floor(v / width))]++; });
      return c.map(function (n) { return s.values.length ? n / s.values.length : 0; });
    });
    var top = Math.max.apply(null, [].concat.apply([], counts).concat([0.01])), bw = o.W / o.bins, sw = (bw - 4) / series.length;
    counts.forEach(function (c, si) {
      c.forEach(function (f, b) {
        var h = f / top * o.H;
        svg.appendChild(sv("rect", { x: 40 + b * bw + 2 + si * sw, y: 10 + o.H - h, width: sw, height: h, class: "hbar s" + si }, [sv("title", {}, [series[si].name + ": " + (b * width) + "–" + ((b + 1) * width - 1) + ": " + pct(f)])]));
      });
    });
    for (var b = 0; b <= o.bins; b += 2) svg.appendChild(sv("text", { x: 40 + b * bw, y: o.H + 26, "text-anchor": "middle", class: "axis" }, [String(b * width)]));
    svg.appendChild(sv("text", { x: 36, y: 18, "text-anchor": "end", class: "axis" }, [pct(top)]));
    svg.appendChild(sv("line", { x1: 40, x2: 40 + o.W, y1: 10 + o.H, y2: 10 + o.H, class: "grid" }));
    return el("figure", { class: "hist-fig" }, [svg, legend(series.map(function (s) { return s.name; }))]);
  }

  function legend(names, classes) {
    return el("figcaption", { class: "legend" }, names.map(function (n, i) { return el("span", { class: "key " + (classes ? classes[i] : "s" + i) }, [n]); }));
  }

  // ecdf draws the empirical cumulative distributions of several series on
  // one axis: for each x, the share of a series' values at most x. The x
  // axis is logarithmic, so that a long tail (PoG's 390 calls) and a short
  // one (our 5) are both readable; it starts at the power of ten at or
  // below the smallest positive value (a log axis has no 0: smaller values
  // sit at its left edge). series: {name, values[], cls}; opts.unit names
  // the x quantity.
  function ecdf(series, opts) {
    var o = Object.assign({ W: 560, H: 180, left: 64, bottom: 40, label: "distribution", unit: "" }, opts || {});
    var all = [].concat.apply([], series.map(function (s) { return s.values; }));
    var Wt = o.left + o.W + 20, Ht = o.H + o.bottom + 10;
    var svg = sv("svg", { viewBox: "0 0 " + Wt + " " + Ht, width: Wt, height: Ht, role: "img", "aria-label": o.label, class: "ecdf" });
    if (!all.length) { svg.appendChild(sv("text", { x: 10, y: 20 }, ["no data"])); return svg; }
    var pos = all.filter(function (v) { return v > 0; });
    var lo = Math.pow(10, Math.floor(Math.log10(pos.length ? Math.min.apply(null, pos) : 1)));
    var max = Math.max(Math.max.apply(null, all), lo * 10), span = Math.log10(max / lo);
    function X(v) { return o.left + Math.log10(Math.max(lo, v) / lo) / span * o.W; }
    function Y(f) { return 10 + (1 - f) * o.H; }
    [0, 0.25, 0.5, 0.75, 1].forEach(function (f) {
      svg.appendChild(sv("line", { x1: o.left, x2: o.left + o.W, y1: Y(f), y2: Y(f), class: "grid" }));
      svg.appendChild(sv("text", { x: o.left - 6, y: Y(f) + 4, "text-anchor": "end", class: "axis" }, [Math.round(f * 100) + "%"]));
    });
    var ticks = [];
    for (var p = lo; p <= max * 1.0001; p *= 10) { [1, 2, 5].forEach(function (m) { if (p * m <= max * 1.0001) ticks.push(p * m); }); }
    ticks.forEach(function (t) {
      svg.appendChild(sv("line", { x1: X(t), x2: X(t), y1: 10, y2: 10 + o.H, class: "grid" }));
      if (String(t)[0] !== "2") svg.appendChild(sv("text", { x: X(t), y: 10 + o.H + 14, "text-anchor": "middle", class: "axis x-tick" }, [t >= 1000 ? (t / 1000) + "k" : String(t)]));
    });
    svg.appendChild(sv("text", { x: o.left + o.W / 2, y: 10 + o.H + 32, "text-anchor": "middle", class: "axis" }, [o.unit + " per question (log scale)"]));
    svg.appendChild(sv("text", { x: 12, y: 10 + o.H / 2, "text-anchor": "middle", class: "axis y-label", transform: "rotate(-90 12 " + (10 + o.H / 2) + ")" }, ["questions ≤ x"]));
    series.forEach(function (s) {
      var v = s.values.slice().sort(function (a, b) { return a - b; }), n = v.length;
      if (!n) return;
      var d = "M" + X(lo) + "," + Y(0);
      v.forEach(function (x, i) { d += " H" + X(x) + " V" + Y((i + 1) / n); });
      d += " H" + X(max);
      svg.appendChild(sv("path", { d: d, class: "ecdf-line " + (s.cls || ""), "data-name": s.name }, [sv("title", {}, [s.name + ": median " + v[Math.floor((n - 1) / 2)] + ", max " + v[n - 1]])]));
    });
    return el("figure", { class: "ecdf-fig" }, [svg, legend(series.map(function (s) { return s.name; }), series.map(function (s) { return s.cls || ""; }))]);
  }

  // timeline draws lanes of segments on one time axis. lanes: {name,
  // segs: [{start, end, label, cls}]} in milliseconds.
  function timeline(lanes, opts) {
    var o = Object.assign({ W: 760, laneH: 24, nameW: 90, label: "timeline" }, opts || {});
    var end = 1;
    lanes.forEach(function (l) { l.segs.forEach(function (s) { end = Math.max(end, s.end); }); });
    var H = lanes.length * o.laneH + 26, scale = o.W / end;
    var svg = sv("svg", { viewBox: "0 0 " + (o.nameW + o.W + 40) + " " + H, width: o.nameW + o.W + 40, height: H, role: "img", "aria-label": o.label, class: "timeline " + (o.cls || "") });
    lanes.forEach(function (l, i) {
      var y = i * o.laneH;
      svg.appendChild(sv("text", { x: o.nameW - 6, y: y + 16, "text-anchor": "end", class: "bar-label" }, [l.name]));
      l.segs.forEach(function (s) {
        var w = Math.max(2, (s.end - s.start) * scale);
        svg.appendChild(sv("rect", { x: o.nameW + s.start * scale, y: y + 4, width: w, height: o.laneH - 8, class: "seg " + (s.cls || "") }, [sv("title", {}, [l.name + " " + s.label + ": " + s.start + "–" + s.end + " ms"])]));
        var fit = Math.floor((w - 6) / 6.2);
        if (fit >= 4) svg.appendChild(sv("text", { x: o.nameW + s.start * scale + 3, y: y + 16, class: "seg-label" }, [s.label.length > fit ? s.label.slice(0, fit - 1) + "…" : s.label]));
      });
    });
    [0, 0.25, 0.5, 0.75, 1].forEach(function (t) {
      svg.appendChild(sv("text", { x: o.nameW + t * o.W, y: H - 4, "text-anchor": "middle", class: "axis" }, [Math.round(t * end) + " ms"]));
    });
    return svg;
  }

  // table builds a table from a header and rows of cells (strings or
  // nodes).
  function table(head, rows, attrs) {
    return el("table", attrs || {}, [
      el("thead", {}, [el("tr", {}, head.map(function (h) { return el("th", { scope: "col" }, [h]); }))]),
      el("tbody", {}, rows.map(function (r) { return el("tr", {}, r.map(function (c) { return el("td", {}, [c]); })); }))
    ]);
  }

  function pct(x) { return (100 * (x || 0)).toFixed(1) + "%"; }

  return { el: el, sv: sv, wrap: wrap, layout: layout, graph: graph, bars: bars, histograms: histograms, ecdf: ecdf, timeline: timeline, table: table, pct: pct };
})();
