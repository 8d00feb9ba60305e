package main

import (
	"encoding/json"
	"log"
	"os"
	"regexp"
	"strings"

	"github.com/parog/parog-go/dataset"
	"github.com/parog/parog-go/kgqa"
)

// Gold queries avoid two habits that goRDFlib v0.1.5 does not handle
// although they are valid SPARQL: a prefixed name with dots inside FILTER
// (write the full IRI) and a prefixed datatype on a literal in a triple
// pattern (write ^^<http://www.w3.org/2001/XMLSchema#...>).

// question is a hand-written demo question. In SPARQL, "[[Name]]" stands
// for the id of the entity named Name; answers are given by name (or as
// literals) and resolved to ids, never computed from the graph.
type question struct {
	id, text, typ string
	topics        []string
	answers       []string
	literal       *literalAnswer
	sparql        string
	plan          []kgqa.Subgoal
}

type literalAnswer struct{ lex, datatype string }

func sg(id string, o kgqa.Op, text string, needs ...string) kgqa.Subgoal {
	return kgqa.Subgoal{ID: id, Op: o, Text: text, Needs: needs}
}

func withArgs(s kgqa.Subgoal, a kgqa.Args) kgqa.Subgoal {
	s.Args = &a
	return s
}

const (
	fbPrefix = "PREFIX ns: <http://rdf.freebase.com/ns/>\nPREFIX xsd: <http://www.w3.org/2001/XMLSchema#>\n"
	wdPrefix = "PREFIX wd: <http://www.wikidata.org/entity/>\nPREFIX wdt: <http://www.wikidata.org/prop/direct/>\n" +
		"PREFIX p: <http://www.wikidata.org/prop/>\nPREFIX ps: <http://www.wikidata.org/prop/statement/>\n" +
		"PREFIX pq: <http://www.wikidata.org/prop/qualifier/>\nPREFIX xsd: <http://www.w3.org/2001/XMLSchema#>\n"
	xsdInteger = "http://www.w3.org/2001/XMLSchema#integer"
)

var placeholder = regexp.MustCompile(`\[\[([^\[\]]+)\]\]`)

func writeQuestions(path string, qs []question, resolve func(name string) string) {
	out := make([]dataset.DemoRecord, 0, len(qs))
	for _, q := range qs {
		p, err := json.Marshal(kgqa.Plan{Version: kgqa.PlanVersion, Subgoals: q.plan})
		if err != nil {
			log.Fatal(err)
		}
		j := dataset.DemoRecord{ID: q.id, Question: q.text, Type: q.typ, Plan: p}
		for _, t := range q.topics {
			j.TopicEntities = append(j.TopicEntities, dataset.DemoEntity{ID: resolve(t), Name: t})
		}
		for _, a := range q.answers {
			j.Answers = append(j.Answers, dataset.DemoAnswer{ID: resolve(a), Name: a})
		}
		if q.literal != nil {
			j.Answers = append(j.Answers, dataset.DemoAnswer{Name: q.literal.lex, Datatype: q.literal.datatype})
		}
		j.SPARQL = placeholder.ReplaceAllStringFunc(strings.TrimSpace(q.sparql), func(m string) string {
			return resolve(m[2 : len(m)-2])
		})
		out = append(out, j)
	}
	data, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		log.Fatal(err)
	}
}
