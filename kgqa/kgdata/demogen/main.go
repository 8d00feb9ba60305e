// Command demogen writes the demo knowledge graphs and their questions:
// freebase.nt, wikidata.nt, questions.json and wikidata_questions.json in
// the directory given by -out (default: kgqa/kg/demokg, from this
// directory; `go generate` in package demokg runs it with -out . to
// refresh the shipped files).
//
// The world knowledge lives in the tables of this package (geo.go,
// sports.go, film.go, wikidata.go); the gold answers of the questions
// (questions.go) are written by hand and only their ids are resolved here,
// so the package tests, which run every gold query on the generated graph,
// check the tables against the hand-written answers.
//
// Entity ids are Freebase MIDs: real ones where they are well known (see
// realMIDs), otherwise derived deterministically from the entity key, so
// the output is byte-for-byte reproducible.
package main

import (
	"flag"
	"fmt"
	"hash/fnv"
	"log"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

const (
	ns      = "http://rdf.freebase.com/ns/"
	xsd     = "http://www.w3.org/2001/XMLSchema#"
	midRune = "0123456789bcdfghjklmnpqrstvwxyz_"
)

// realMIDs are Freebase MIDs of well-known entities, keyed by entity key.
var realMIDs = map[string]string{
	"France":               "m.0f8l9c",
	"Germany":              "m.0345h",
	"United States":        "m.09c7w0",
	"Netherlands":          "m.059j2",
	"Spain":                "m.06mkj",
	"Italy":                "m.03rjj",
	"Switzerland":          "m.06mzp",
	"Belgium":              "m.0154j",
	"Luxembourg":           "m.04g61",
	"United Kingdom":       "m.07ssc",
	"Paris":                "m.05qtj",
	"Berlin":               "m.0156q",
	"San Francisco":        "m.0d6lp",
	"New York City":        "m.02_286",
	"San Francisco Giants": "m.0713r",
	"Lou Seal":             "m.03_dwn",
}

// builder accumulates N-Triples lines and the entity registry.
type builder struct {
	lines []string
	seen  map[string]bool
	mids  map[string]string // entity key -> MID
	keys  map[string]string // MID -> entity key
	named map[string]string // entity key -> name, for named entities
}

func newBuilder() *builder {
	return &builder{seen: map[string]bool{}, mids: map[string]string{}, keys: map[string]string{}, named: map[string]string{}}
}

// mid returns the MID of key, assigning one on first use.
func (b *builder) mid(key string) string {
	if m, ok := b.mids[key]; ok {
		return m
	}
	m, ok := realMIDs[key]
	for salt := 0; !ok || b.keys[m] != ""; salt++ {
		h := fnv.New64a()
		fmt.Fprintf(h, "%s#%d", key, salt)
		v := h.Sum64()
		var sb strings.Builder
		sb.WriteString("m.0")
		for i := 0; i < 5; i++ {
			sb.WriteByte(midRune[v%32])
			v /= 32
		}
		m, ok = sb.String(), true
	}
	b.mids[key] = m
	b.keys[m] = key
	return m
}

// ref returns the MID of an entity that must already be declared.
func (b *builder) ref(key string) string {
	if _, ok := b.named[key]; !ok {
		log.Fatalf("gen: reference to undeclared entity %q", key)
	}
	return b.mids[key]
}

func iri(local string) string { return "<" + ns + local + ">" }

func (b *builder) add(s, p, o string) {
	line := s + " " + p + " " + o + " ."
	if b.seen[line] {
		return
	}
	b.seen[line] = true
	b.lines = append(b.lines, line)
}

func quote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}

// rel adds (s, p, o) between two MIDs.
func (b *builder) rel(s, p, o string) { b.add(iri(s), iri(p), iri(o)) }

// typed adds a typed literal.
func (b *builder) typed(s, p, lex, dt string) {
	b.add(iri(s), iri(p), quote(lex)+"^^<"+xsd+dt+">")
}

// text adds an English string literal.
func (b *builder) text(s, p, v string) { b.add(iri(s), iri(p), quote(v)+"@en") }

// entity declares a named entity with its types and the usual topic noise
// (common.topic type, a wikipedia key, a webpage, freebase.* and kg.*
// hints).
func (b *builder) entity(key, name string, types ...string) string {
	if old, ok := b.named[key]; ok {
		if old != name {
			log.Fatalf("gen: entity %q declared as %q and %q", key, old, name)
		}
		return b.mids[key]
	}
	m := b.mid(key)
	b.named[key] = name
	b.text(m, "type.object.name", name)
	for _, t := range types {
		b.rel(m, "type.object.type", t)
	}
	b.rel(m, "type.object.type", "common.topic")
	wiki := strings.ReplaceAll(name, " ", "_")
	b.add(iri(m), iri("type.object.key"), quote("/wikipedia/en/"+wiki))
	b.add(iri(m), iri("common.topic.topic_equivalent_webpage"), "<https://en.wikipedia.org/wiki/"+wiki+">")
	hrid := strings.ToLower(strings.NewReplacer(" ", "_", ".", "", ",", "", "'", "").Replace(name))
	b.add(iri(m), iri("freebase.object_hints.best_hrid"), quote("/en/"+hrid))
	if len(types) > 0 {
		b.rel(m, "common.topic.notable_types", types[0])
		b.rel(m, "kg.object_profile.prominent_type", types[0])
	}
	return m
}

// describe adds a common.topic.description noise literal.
func (b *builder) describe(key, d string) { b.text(b.ref(key), "common.topic.description", d) }

// cvt declares a nameless mediator node of the given type.
func (b *builder) cvt(key, typ string) string {
	m := b.mid("cvt:" + key)
	b.rel(m, "type.object.type", typ)
	return m
}

func (b *builder) write(path string) {
	if err := os.WriteFile(path, []byte(strings.Join(b.lines, "\n")+"\n"), 0o644); err != nil {
		log.Fatal(err)
	}
}

func main() {
	out := flag.String("out", "../../kg/demokg", "directory to write the files to")
	flag.Parse()
	if flag.NArg() != 0 {
		log.Fatal("gen: no arguments expected")
	}
	b := newBuilder()
	buildGeo(b)
	buildSports(b)
	buildFilm(b)
	b.write(filepath.Join(*out, "freebase.nt"))
	writeQuestions(filepath.Join(*out, "questions.json"), freebaseQuestions, func(name string) string {
		return b.ref(name)
	})

	w := newWikidata()
	buildWikidata(w)
	w.write(filepath.Join(*out, "wikidata.nt"))
	writeQuestions(filepath.Join(*out, "wikidata_questions.json"), wikidataQuestions, w.ref)

	names := make([]string, 0, len(b.named))
	for k := range b.named {
		names = append(names, k)
	}
	sort.Strings(names)
	fmt.Fprintf(os.Stderr, "freebase.nt: %d triples, %d named entities; wikidata.nt: %d triples\n", len(b.lines), len(names), len(w.lines))
}
