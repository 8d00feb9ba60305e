package dataset

import "encoding/json"

// DemoRecord is one question of a demo question file (the Demo format),
// with its gold data: the demo KG's generator (kgqa/kgdata/demogen)
// writes it, package demokg ships and decodes it, and the Demo loader
// reads it, so the file has this one definition.
type DemoRecord struct {
	// ID is unique within its file ("demo-01", "wd-01").
	ID string `json:"id"`
	// Question is the natural-language question.
	Question string `json:"question"`
	// Type is the question's structure: "composition", "conjunction",
	// "comparative", "superlative", "count" or "linear". The gold plan
	// contains an operation of this kind.
	Type string `json:"type"`
	// TopicEntities are the entities the question mentions, as linked.
	TopicEntities []DemoEntity `json:"topic_entities"`
	// Answers is the complete gold answer set.
	Answers []DemoAnswer `json:"answers"`
	// SPARQL is the gold query (SPARQL 1.1, with its own PREFIX lines); its
	// first projected variable yields exactly Answers.
	SPARQL string `json:"sparql"`
	// Plan is the gold plan, in the version-1 Plan JSON of package kgqa
	// (decode it with kgqa.ParsePlan).
	Plan json.RawMessage `json:"plan"`
}

// DemoEntity is an entity a demo question mentions.
type DemoEntity struct {
	// ID is the entity id in dialect form ("m.0f8l9c", "Q142").
	ID string `json:"id"`
	// Name is the entity's English name in the graph.
	Name string `json:"name"`
}

// DemoAnswer is one gold answer of a demo question: an entity (ID set)
// or a typed literal.
type DemoAnswer struct {
	// ID is the entity id in dialect form; empty for a literal answer.
	ID string `json:"id,omitempty"`
	// Name is the entity's name, or the literal's lexical form.
	Name string `json:"name"`
	// Datatype is the literal's datatype IRI; empty for an entity.
	Datatype string `json:"datatype,omitempty"`
}

// IsEntity reports whether a is an entity rather than a literal.
func (a DemoAnswer) IsEntity() bool { return a.ID != "" }

func convertDemo(raw json.RawMessage) (Question, string, error) {
	var r DemoRecord
	if err := strictRecord(raw, &r); err != nil {
		return Question{}, peekID(raw, "id"), err
	}
	if err := requireFields(r.ID, "id", r.Question, "question"); err != nil {
		return Question{}, r.ID, err
	}
	q := Question{ID: r.ID, Text: r.Question, SPARQL: r.SPARQL, Label: r.Type}
	for _, e := range r.TopicEntities {
		id, _ := NormalizeMID(e.ID)
		q.TopicEntities = appendEntity(q.TopicEntities, Entity{ID: id, Name: e.Name})
	}
	for _, a := range r.Answers {
		id := a.ID
		if id != "" {
			id, _ = NormalizeMID(id)
		}
		q.Answers = appendAnswer(q.Answers, Answer{ID: id, Name: a.Name, Datatype: a.Datatype})
	}
	if len(r.Plan) > 0 && string(r.Plan) != "null" {
		q.Plan = []byte(r.Plan)
	}
	return q, r.ID, nil
}
