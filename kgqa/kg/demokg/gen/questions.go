package main

import (
	"encoding/json"
	"log"
	"os"
	"regexp"
	"strings"
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
	plan          []subgoal
}

type literalAnswer struct{ lex, datatype string }

// The plan types mirror the version-1 Plan JSON of package kgqa; they are
// not imported from it because the engine depends (through kgqa/kg) on
// package demokg. The package tests validate every plan with kgqa.
type (
	op      string
	subgoal struct {
		ID    string   `json:"id"`
		Text  string   `json:"text"`
		Needs []string `json:"needs,omitempty"`
		Op    op       `json:"op"`
		Args  *args    `json:"args,omitempty"`
	}
	args struct {
		Attribute string `json:"attribute,omitempty"`
		Order     string `json:"order,omitempty"`
		Cmp       string `json:"cmp,omitempty"`
		Value     string `json:"value,omitempty"`
	}
	plan struct {
		Version  int       `json:"version"`
		Subgoals []subgoal `json:"subgoals"`
	}
)

const (
	opFind        op = "find"
	opIntersect   op = "intersect"
	opCompare     op = "compare"
	opSuperlative op = "superlative"
	opCount       op = "count"
)

func sg(id string, o op, text string, needs ...string) subgoal {
	return subgoal{ID: id, Op: o, Text: text, Needs: needs}
}

func withArgs(s subgoal, a args) subgoal {
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

// jsonQuestion is the shipped JSON shape (see package demokg).
type jsonQuestion struct {
	ID            string       `json:"id"`
	Question      string       `json:"question"`
	Type          string       `json:"type"`
	TopicEntities []jsonEntity `json:"topic_entities"`
	Answers       []jsonAnswer `json:"answers"`
	SPARQL        string       `json:"sparql"`
	Plan          plan         `json:"plan"`
}

type jsonEntity struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

type jsonAnswer struct {
	ID       string `json:"id,omitempty"`
	Name     string `json:"name"`
	Datatype string `json:"datatype,omitempty"`
}

var placeholder = regexp.MustCompile(`\[\[([^\[\]]+)\]\]`)

func writeQuestions(path string, qs []question, resolve func(name string) string) {
	out := make([]jsonQuestion, 0, len(qs))
	for _, q := range qs {
		j := jsonQuestion{ID: q.id, Question: q.text, Type: q.typ,
			Plan: plan{Version: 1, Subgoals: q.plan}}
		for _, t := range q.topics {
			j.TopicEntities = append(j.TopicEntities, jsonEntity{ID: resolve(t), Name: t})
		}
		for _, a := range q.answers {
			j.Answers = append(j.Answers, jsonAnswer{ID: resolve(a), Name: a})
		}
		if q.literal != nil {
			j.Answers = append(j.Answers, jsonAnswer{Name: q.literal.lex, Datatype: q.literal.datatype})
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
