// certificate.js: the viewer's certificate panel. It shows the SPARQL query
// that reproduces an answer, copies it, and runs it through the server's
// /sparql endpoint to show the rows it returns. It reads the certificate
// out of any shape the viewer opens and draws into its own section, so the
// rest of the page does not know it is there.
"use strict";

var Certificate = (function () {
  var el = Draw.el;

  // of finds the certificate in an /v1/ask response, an engine answer, an
  // eval results row (its trace holds the answer) or a row that only keeps
  // the certificate's columns; null when there is none.
  function of(o) {
    if (!o || typeof o !== "object") return null;
    if (o.certificate && typeof o.certificate === "object") return o.certificate;
    if (o.trace && typeof o.trace === "object" && o.trace.certificate) return o.trace.certificate;
    if (typeof o.certificate_sparql === "string" || o.certificate_verified !== undefined) {
      return { sparql: o.certificate_sparql || "", verified: !!o.certificate_verified, covers: o.certificate_covers || "", error: "" };
    }
    return null;
  }

  // short writes an IRI of a known namespace with its usual prefix.
  var prefixes = [["http://rdf.freebase.com/ns/", "ns:"], ["http://www.wikidata.org/entity/", "wd:"]];
  function short(v) {
    for (var i = 0; i < prefixes.length; i++) {
      if (v.indexOf(prefixes[i][0]) === 0) return prefixes[i][1] + v.slice(prefixes[i][0].length);
    }
    return v;
  }

  // entityID is the KG's own id of an entity IRI ("m.0345h", "Q183"), or
  // "" for any other IRI.
  function entityID(v) {
    for (var i = 0; i < prefixes.length; i++) {
      if (v.indexOf(prefixes[i][0]) === 0) return v.slice(prefixes[i][0].length);
    }
    return "";
  }

  // cell shows one binding; an entity's cell gets its name later (names).
  function cell(b) {
    if (!b) return "";
    if (b.type === "uri") {
      var id = entityID(b.value);
      return id ? el("span", { class: "cert-entity", "data-id": id }, [el("span", { class: "cert-name" }, []), el("span", { class: "cert-id" }, [short(b.value)])]) : short(b.value);
    }
    return b.value + (b["xml:lang"] ? "@" + b["xml:lang"] : "");
  }

  // maxNamed bounds the entities named in a result table (one request each).
  var maxNamed = 50;

  // names looks up the name of each entity cell under node (GET
  // /v1/entities/{id}), the first maxNamed distinct ones, and shows it
  // before the id; a nameless node (a mediator) keeps its id alone.
  function names(node, headers) {
    var cells = Array.prototype.slice.call(node.querySelectorAll(".cert-entity")), byID = {};
    cells.forEach(function (c) { (byID[c.getAttribute("data-id")] = byID[c.getAttribute("data-id")] || []).push(c); });
    return Promise.all(Object.keys(byID).slice(0, maxNamed).map(function (id) {
      return fetch("/v1/entities/" + encodeURIComponent(id), { headers: headers }).then(function (r) { return r.ok ? r.json() : null; }).then(function (e) {
        if (!e || !e.name) return;
        byID[id].forEach(function (c) { c.querySelector(".cert-name").textContent = e.name + " "; });
      }, function () {});
    }));
  }

  // rowsTable draws SPARQL JSON results.
  function rowsTable(res, truncated) {
    var vars = (res.head && res.head.vars) || [], rows = (res.results && res.results.bindings) || [];
    var n = rows.length + " row" + (rows.length === 1 ? "" : "s") + (truncated ? " (cut at the server's limit)" : "");
    return el("div", { class: "cert-rows" }, [
      el("p", { class: "meta cert-count" }, [n]),
      rows.length ? Draw.table(vars, rows.map(function (r) { return vars.map(function (v) { return cell(r[v]); }); }), { class: "cert-table", "aria-label": "rows of the certificate query" }) : null
    ]);
  }

  // selectText selects the text of node, so that what is copied is shown.
  function selectText(node) {
    var r = document.createRange(), s = window.getSelection();
    r.selectNodeContents(node);
    s.removeAllRanges();
    s.addRange(r);
  }

  // panel draws a certificate. opts.headers() gives the request headers
  // (the API key); without it the panel has no run button (a page with no
  // server behind it).
  function panel(c, opts) {
    opts = opts || {};
    var state = c.verified ? "verified" : c.sparql ? "not verified" : "no query";
    var facts = [state, c.covers ? "covers: " + c.covers : "", c.rows !== undefined && c.sparql ? c.rows + " result" + (c.rows === 1 ? "" : "s") + " when the engine ran it" : ""].filter(Boolean).join(" · ");
    var note = el("p", { class: "meta cert-note", role: "status" }, []);
    var out = el("div", { class: "cert-out" }, []);
    var children = [el("h2", {}, ["Certificate"]), el("p", { class: "cert-state " + (c.verified ? "cert-verified" : "cert-unverified") }, [facts])];
    if (c.error) children.push(el("p", { class: "error cert-error" }, [c.error]));
    if (!c.sparql) return el("section", { class: "certificate", "aria-label": "certificate" }, children);
    var pre = el("pre", { class: "cert-sparql", tabindex: "0" }, [c.sparql]);
    var copy = el("button", { type: "button", class: "cert-copy", onclick: function () {
      selectText(pre);
      var done = function () { note.textContent = "copied the query"; };
      var manual = function () { note.textContent = "the query is selected: press Ctrl+C (or ⌘C) to copy it"; };
      if (navigator.clipboard && navigator.clipboard.writeText) navigator.clipboard.writeText(c.sparql).then(done, manual);
      else manual();
    } }, ["Copy query"]);
    var run = opts.headers ? el("button", { type: "button", class: "cert-run", onclick: function () {
      var btn = this;
      btn.disabled = true;
      note.textContent = "running the query…";
      out.textContent = "";
      var h = opts.headers();
      h["Content-Type"] = "application/sparql-query";
      h.Accept = "application/sparql-results+json";
      fetch("/sparql", { method: "POST", headers: h, body: c.sparql }).then(function (r) {
        if (!r.ok) return r.json().then(function (b) { throw new Error(b.error || ("status " + r.status)); }, function () { throw new Error("status " + r.status); });
        return r.json().then(function (res) {
          out.appendChild(rowsTable(res, r.headers.get("X-Parog-Truncated") === "true"));
          note.textContent = "ran the query on this server's KG; naming its entities…";
          var hn = opts.headers();
          delete hn["Content-Type"];
          return names(out, hn).then(function () { note.textContent = "ran the query on this server's KG"; });
        });
      }).catch(function (e) {
        out.appendChild(el("p", { class: "error cert-failed" }, ["the query failed: " + e.message]));
        note.textContent = "";
      }).then(function () { btn.disabled = false; });
    } }, ["Run on /sparql"]) : null;
    children.push(pre, el("div", { class: "cert-actions" }, [copy, run]), note, out);
    return el("section", { class: "certificate", "aria-label": "certificate" }, children);
  }

  // show puts the certificate of o (any shape of() reads) into container,
  // hiding it when there is none.
  function show(container, o, opts) {
    container.textContent = "";
    var c = of(o);
    container.hidden = !c;
    if (c) container.appendChild(panel(c, opts));
  }

  return { of: of, panel: panel, show: show };
})();
