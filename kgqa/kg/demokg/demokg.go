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
// the kgqa Plan JSON), one dataset.DemoRecord each. Every gold query returns
// exactly the gold answers on the graph; the package tests check it.
//
// The graphs and the questions are generated from the tables of
// kgqa/kgdata/demogen: run `go generate` in this directory after editing
// them.
package demokg

//go:generate go run ../../kgdata/demogen -out .

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/parog/parog-go/dataset"
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

// Freebase returns the Freebase-style demo graph as N-Triples.
func Freebase() []byte { return slices.Clone(freebaseNT) }

// Wikidata returns the Wikidata-style demo graph as N-Triples.
func Wikidata() []byte { return slices.Clone(wikidataNT) }

var (
	freebaseQuestions = sync.OnceValue(func() []dataset.DemoRecord { return mustDecode("questions.json", freebaseJSON) })
	wikidataQuestions = sync.OnceValue(func() []dataset.DemoRecord { return mustDecode("wikidata_questions.json", wikidataJSON) })
)

// FreebaseQuestions returns the questions on the Freebase demo graph, in
// file order. The caller owns the result.
func FreebaseQuestions() []dataset.DemoRecord { return cloneQuestions(freebaseQuestions()) }

// WikidataQuestions returns the questions on the Wikidata demo graph, in
// file order. The caller owns the result.
func WikidataQuestions() []dataset.DemoRecord { return cloneQuestions(wikidataQuestions()) }

// mustDecode panics on a malformed embedded file: it is generated, checked
// by the package tests, and cannot change at run time.
func mustDecode(name string, data []byte) []dataset.DemoRecord {
	var qs []dataset.DemoRecord
	if err := json.Unmarshal(data, &qs); err != nil {
		panic(fmt.Sprintf("demokg: decode %s: %v", name, err))
	}
	return qs
}

func cloneQuestions(qs []dataset.DemoRecord) []dataset.DemoRecord {
	out := make([]dataset.DemoRecord, len(qs))
	for i, q := range qs {
		q.TopicEntities = slices.Clone(q.TopicEntities)
		q.Answers = slices.Clone(q.Answers)
		q.Plan = slices.Clone(q.Plan)
		out[i] = q
	}
	return out
}
