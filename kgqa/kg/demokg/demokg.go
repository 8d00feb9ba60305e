// Package demokg ships the demo knowledge graphs and their questions,
// embedded in the binary so that the main job runs with no server.
//
// freebase.nt is a Freebase-style graph: entities are MIDs under
// http://rdf.freebase.com/ns/, names come from type.object.name (@en), types
// from type.object.type, and mediator (CVT) nodes are MIDs without a name
// (borders through location.adjoining_relationship, populations through
// measurement_unit.dated_integer, team venues, league memberships, film
// performances). It also carries the usual noise (common.topic.*,
// type.object.key) and distractors built for the questions: France borders
// ten countries, four airports serve Nijmegen and only one of them is in
// Germany, Mont Blanc is higher than every Swiss peak but not in
// Switzerland, and so on.
//
// wikidata.nt is a small Wikidata-style graph (wd:/wdt: truthy edges, p:/ps:/
// pq: statements with ranks, rdfs:label in English).
//
// questions.json and wikidata_questions.json hold demo questions with their
// topic entities, gold answers, gold SPARQL and the gold Plan (version 1 of
// the kgqa Plan JSON). Every gold query returns exactly the gold answers on
// the graph; the package tests check it.
//
// The graphs and the questions are generated from the tables in ./gen:
// run `go generate` in this directory after editing them.
package demokg

//go:generate go run ../../kgdata/demogen -out .

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
)

var (
	//go:embed freebase.nt
	freebaseNT []byte
	//go:embed wikidata.nt
	wikidataNT []byte
	//go:embed questions.json
	freebaseJSON []byte
	//go:embed wikidata_questions.json
	wikidataJSON []byte
)

// Question is one demo question with its gold data, in the shape of
// questions.json: the generator (gen) writes it and dataset's demo format
// reads it, so the file has this one definition.
type Question struct {
	// ID is unique within its file ("demo-01", "wd-01").
	ID string `json:"id"`
	// Question is the natural-language question.
	Question string `json:"question"`
	// Type is the question's structure: "composition", "conjunction",
	// "comparative", "superlative", "count" or "linear". The gold plan
	// contains an operation of this kind.
	Type string `json:"type"`
	// TopicEntities are the entities the question mentions, as linked.
	TopicEntities []TopicEntity `json:"topic_entities"`
	// Answers is the complete gold answer set.
	Answers []Answer `json:"answers"`
	// SPARQL is the gold query (SPARQL 1.1, with its own PREFIX lines); its
	// first projected variable yields exactly Answers.
	SPARQL string `json:"sparql"`
	// Plan is the gold plan, in the version-1 Plan JSON of package kgqa
	// (decode it with kgqa.ParsePlan).
	Plan json.RawMessage `json:"plan"`
}

// TopicEntity is an entity mentioned by a question.
type TopicEntity struct {
	// ID is the entity id in dialect form ("m.0f8l9c", "Q142").
	ID string `json:"id"`
	// Name is the entity's English name in the graph.
	Name string `json:"name"`
}

// Answer is one gold answer: an entity (ID set) or a typed literal.
type Answer struct {
	// ID is the entity id in dialect form; empty for a literal answer.
	ID string `json:"id,omitempty"`
	// Name is the entity's name, or the literal's lexical form.
	Name string `json:"name"`
	// Datatype is the literal's datatype IRI; empty for an entity.
	Datatype string `json:"datatype,omitempty"`
}

// IsEntity reports whether a is an entity rather than a literal.
func (a Answer) IsEntity() bool { return a.ID != "" }

// Freebase returns the Freebase-style demo graph as N-Triples.
func Freebase() []byte { return slices.Clone(freebaseNT) }

// Wikidata returns the Wikidata-style demo graph as N-Triples.
func Wikidata() []byte { return slices.Clone(wikidataNT) }

var (
	freebaseQuestions = sync.OnceValue(func() []Question { return mustDecode("questions.json", freebaseJSON) })
	wikidataQuestions = sync.OnceValue(func() []Question { return mustDecode("wikidata_questions.json", wikidataJSON) })
)

// FreebaseQuestions returns the questions on the Freebase demo graph, in
// file order. The caller owns the result.
func FreebaseQuestions() []Question { return cloneQuestions(freebaseQuestions()) }

// WikidataQuestions returns the questions on the Wikidata demo graph, in
// file order. The caller owns the result.
func WikidataQuestions() []Question { return cloneQuestions(wikidataQuestions()) }

// mustDecode panics on a malformed embedded file: it is generated, checked
// by the package tests, and cannot change at run time.
func mustDecode(name string, data []byte) []Question {
	var qs []Question
	if err := json.Unmarshal(data, &qs); err != nil {
		panic(fmt.Sprintf("demokg: decode %s: %v", name, err))
	}
	return qs
}

func cloneQuestions(qs []Question) []Question {
	out := make([]Question, len(qs))
	for i, q := range qs {
		q.TopicEntities = slices.Clone(q.TopicEntities)
		q.Answers = slices.Clone(q.Answers)
		q.Plan = slices.Clone(q.Plan)
		out[i] = q
	}
	return out
}
