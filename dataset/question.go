// Package dataset loads KGQA benchmarks (ComplexWebQuestions, GrailQA,
// WebQSP, the demo question files, and the benchmarks of Think-on-Graph's
// release) into one Question model, and defines the record of each file
// format. It holds the loaders only: evaluation (dataset/eval), the oracle
// (dataset/oracle) and the commands read questions through it, and parog
// sparql2plan hands them to sparql2plan as pairs.
//
// Loaders stream: they decode one record at a time from the top-level JSON
// array, so memory stays bounded by the largest record, not the file. A
// malformed record is reported as a Skipped value (index, id, reason) and
// the load goes on; only an unreadable file or a broken JSON framing stops
// it.
package dataset

import (
	"fmt"
	"regexp"
	"strings"
)

// Format names an input file format.
type Format string

// The supported input formats.
const (
	// CWQ is ComplexWebQuestions: a JSON array of records with ID,
	// question, sparql, compositionality_type, topic_entity and answer(s).
	CWQ Format = "cwq"
	// GrailQA is a JSON array of records with qid, question, answer,
	// function, sparql_query, graph_query and topic_entity.
	GrailQA Format = "grailqa"
	// WebQSP is an object {"Questions": [...]} whose questions hold Parses
	// with Sparql, TopicEntityMid and Answers.
	WebQSP Format = "webqsp"
	// Demo is the question file shape shipped with the demo KG: an array of
	// {id, question, type, topic_entities, answers, sparql, plan}, one
	// DemoRecord each.
	Demo Format = "demo"
	// WebQuestions is WebQuestions (Freebase) as Think-on-Graph ships it:
	// an array of {question, answers (names), topic_entity (MID -> name),
	// qid_topic_entity, url}.
	WebQuestions Format = "webquestions"
	// SimpleQuestions is SimpleQuestions (Freebase) as Think-on-Graph
	// ships it: an array of {question, answer (a name), topic_entity,
	// relation}.
	SimpleQuestions Format = "simplequestions"
	// QALD is QALD-10 English (Wikidata) as Think-on-Graph ships it: an
	// array of {question, sparql (Wikidata SPARQL), answer (QID -> label;
	// a literal is its own key)}.
	QALD Format = "qald"
)

// Formats lists every supported format.
var Formats = []Format{CWQ, GrailQA, WebQSP, Demo, WebQuestions, SimpleQuestions, QALD}

// ParseFormat returns the Format named s (case-insensitive).
func ParseFormat(s string) (Format, error) {
	f := Format(strings.ToLower(strings.TrimSpace(s)))
	for _, k := range Formats {
		if k == f {
			return f, nil
		}
	}
	names := make([]string, len(Formats))
	for i, k := range Formats {
		names[i] = string(k)
	}
	return "", fmt.Errorf("dataset: unknown format %q (want one of %s)", s, strings.Join(names, ", "))
}

// Question is one benchmark question, whatever file it came from.
type Question struct {
	// ID is the dataset's own identifier (CWQ ID, GrailQA qid as decimal
	// text, WebQSP QuestionId, demo id).
	ID string `json:"id"`
	// Text is the question as asked.
	Text string `json:"question"`
	// Source is the format the question was loaded from.
	Source Format `json:"source"`
	// TopicEntities are the entities the question is about, in file order.
	TopicEntities []Entity `json:"topic_entities,omitempty"`
	// Answers are the gold answers.
	Answers []Answer `json:"answers,omitempty"`
	// SPARQL is the gold query, as written in the file.
	SPARQL string `json:"sparql,omitempty"`
	// Label is the dataset's structure label: CWQ compositionality_type,
	// GrailQA function, the demo type; empty for WebQSP.
	Label string `json:"label,omitempty"`
	// Level is GrailQA's generalisation level (i.i.d., compositional,
	// zero-shot); empty elsewhere.
	Level string `json:"level,omitempty"`
	// Plan is the gold plan JSON of demo questions, kept verbatim.
	Plan []byte `json:"plan,omitempty"`
}

// Entity is a KG entity with its display name.
type Entity struct {
	// ID is a normalised Freebase id ("m.03_dwn", "g.11b6...") or another
	// KG's id as given (Wikidata "Q42").
	ID string `json:"id"`
	// Name is the entity's name as the dataset gives it (may be empty).
	Name string `json:"name,omitempty"`
}

// Answer is one gold answer: an entity (ID set) or a literal (ID empty).
type Answer struct {
	// ID is the normalised entity id; empty for literal answers.
	ID string `json:"id,omitempty"`
	// Name is the answer's name or the literal's lexical form.
	Name string `json:"name,omitempty"`
	// Aliases are other accepted names.
	Aliases []string `json:"aliases,omitempty"`
	// Datatype is the XSD datatype IRI of a literal answer, when known.
	Datatype string `json:"datatype,omitempty"`
}

// IsLiteral reports whether the answer is a literal value, not an entity.
func (a Answer) IsLiteral() bool { return a.ID == "" }

// XSD is the XML Schema datatype namespace.
const XSD = "http://www.w3.org/2001/XMLSchema#"

// FreebaseNS is the Freebase namespace that MIDs are written under.
const FreebaseNS = "http://rdf.freebase.com/ns/"

var midPattern = regexp.MustCompile(`^[mg]\.[0-9a-z_]+$`)

// NormalizeMID turns the spellings of a Freebase id found in benchmark files
// ("ns:m.03_dwn", ":m.03_dwn", "<http://rdf.freebase.com/ns/m.03_dwn>",
// "http://rdf.freebase.com/ns/m.03_dwn", "/m/03_dwn", "m.03_dwn") into
// "m.03_dwn". ok is false when s is not a Freebase m./g. id; s is then
// returned trimmed but otherwise unchanged.
func NormalizeMID(s string) (id string, ok bool) {
	t := strings.TrimSpace(s)
	t = strings.TrimSuffix(strings.TrimPrefix(t, "<"), ">")
	switch {
	case strings.HasPrefix(t, FreebaseNS):
		t = t[len(FreebaseNS):]
	case strings.HasPrefix(t, "ns:"):
		t = t[3:]
	case strings.HasPrefix(t, ":"):
		t = t[1:]
	case strings.HasPrefix(t, "/m/") || strings.HasPrefix(t, "/g/"):
		t = t[1:2] + "." + t[3:]
	}
	if midPattern.MatchString(t) {
		return t, true
	}
	return strings.TrimSpace(s), false
}

// Skipped reports a malformed record that a loader left out.
type Skipped struct {
	// Index is the record's 0-based position in the file's question array.
	Index int `json:"index"`
	// ID is the record's id when it could be read.
	ID string `json:"id,omitempty"`
	// Reason says what was wrong.
	Reason string `json:"reason"`
}

// Error makes a Skipped usable as an error value.
func (s Skipped) Error() string {
	if s.ID != "" {
		return fmt.Sprintf("dataset: record %d (%s): %s", s.Index, s.ID, s.Reason)
	}
	return fmt.Sprintf("dataset: record %d: %s", s.Index, s.Reason)
}

// GoldNames lists the gold answers as the scorer and the reports show
// them: each answer's name, or its id when it has none.
func (q *Question) GoldNames() []string {
	out := make([]string, 0, len(q.Answers))
	for _, a := range q.Answers {
		if a.Name != "" {
			out = append(out, a.Name)
		} else {
			out = append(out, a.ID)
		}
	}
	return out
}
