package generate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/parog/parog-go/dataset"
)

// cwqAnswer is one answer of CWQ's original answer list.
type cwqAnswer struct {
	Answer   string   `json:"answer"`
	AnswerID string   `json:"answer_id"`
	Aliases  []string `json:"aliases"`
}

// cwqRecord is a question in ComplexWebQuestions' format; the shape is
// its compositionality_type.
type cwqRecord struct {
	ID          string          `json:"ID"`
	Question    string          `json:"question"`
	Machine     string          `json:"machine_question"`
	SPARQL      string          `json:"sparql"`
	Type        string          `json:"compositionality_type"`
	TopicEntity json.RawMessage `json:"topic_entity"`
	Answer      string          `json:"answer"`
	Answers     []cwqAnswer     `json:"answers"`
}

// grailAnswer is one answer of a GrailQA record.
type grailAnswer struct {
	AnswerType     string `json:"answer_type"`
	AnswerArgument string `json:"answer_argument"`
	EntityName     string `json:"entity_name,omitempty"`
}

// grailNode is one node of GrailQA's graph_query.
type grailNode struct {
	NID          int    `json:"nid"`
	NodeType     string `json:"node_type"`
	ID           string `json:"id"`
	Class        string `json:"class"`
	FriendlyName string `json:"friendly_name"`
	QuestionNode int    `json:"question_node"`
	Function     string `json:"function"`
}

// grailEdge is one edge of GrailQA's graph_query.
type grailEdge struct {
	Start        int    `json:"start"`
	End          int    `json:"end"`
	Relation     string `json:"relation"`
	FriendlyName string `json:"friendly_name"`
}

// grailRecord is a question in GrailQA's format. The graph query holds the
// topic entities and the question node; its edges list the relations the
// gold query uses, each from the question node (their true ends are in
// the SPARQL, which is what every reader uses).
type grailRecord struct {
	QID        int64         `json:"qid"`
	Question   string        `json:"question"`
	Answer     []grailAnswer `json:"answer"`
	Function   string        `json:"function"`
	NumNode    int           `json:"num_node"`
	NumEdge    int           `json:"num_edge"`
	GraphQuery struct {
		Nodes []grailNode `json:"nodes"`
		Edges []grailEdge `json:"edges"`
	} `json:"graph_query"`
	SPARQL      string          `json:"sparql_query"`
	Domains     []string        `json:"domains"`
	Level       string          `json:"level"`
	SExpression string          `json:"s_expression"`
	TopicEntity json.RawMessage `json:"topic_entity"`
	Shape       string          `json:"shape"`
}

// Write writes the questions as a JSON array in format f (CWQ or GrailQA),
// one record per line, which the dataset loaders read.
func Write(w io.Writer, f dataset.Format, qs []Question) error {
	var b bytes.Buffer
	b.WriteString("[")
	for i, q := range qs {
		var rec any
		switch f {
		case dataset.CWQ:
			rec = cwq(q)
		case dataset.GrailQA:
			rec = grail(q, int64(i+1))
		default:
			return fmt.Errorf("generate: write: format %q (want cwq or grailqa)", f)
		}
		line, err := json.Marshal(rec)
		if err != nil {
			return fmt.Errorf("generate: write: %w", err)
		}
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n")
		b.Write(line)
	}
	b.WriteString("\n]\n")
	if _, err := w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("generate: write: %w", err)
	}
	return nil
}

// topicObject writes the topic entities as an id -> name object in their
// order (the first is the question's main topic).
func topicObject(es []dataset.Entity) json.RawMessage {
	var b bytes.Buffer
	b.WriteString("{")
	for i, e := range es {
		if i > 0 {
			b.WriteString(", ")
		}
		k, _ := json.Marshal(e.ID)
		v, _ := json.Marshal(e.Name)
		b.Write(k)
		b.WriteString(": ")
		b.Write(v)
	}
	b.WriteString("}")
	return b.Bytes()
}

func cwq(q Question) cwqRecord {
	r := cwqRecord{ID: q.ID, Question: q.Text, Machine: q.Text, SPARQL: q.SPARQL, Type: string(q.Shape), TopicEntity: topicObject(q.Topics)}
	for _, a := range q.Answers {
		r.Answers = append(r.Answers, cwqAnswer{Answer: a.Name, AnswerID: a.ID, Aliases: []string{}})
	}
	if len(q.Answers) > 0 {
		r.Answer = q.Answers[0].Name
	}
	return r
}

func grail(q Question, n int64) grailRecord {
	r := grailRecord{QID: n, Question: q.Text, Function: q.Function, SPARQL: q.SPARQL,
		Level: "generated", TopicEntity: topicObject(q.Topics), Shape: string(q.Shape), Domains: []string{}}
	for _, a := range q.Answers {
		if a.ID != "" {
			r.Answer = append(r.Answer, grailAnswer{AnswerType: "Entity", AnswerArgument: a.ID, EntityName: a.Name})
		} else {
			r.Answer = append(r.Answer, grailAnswer{AnswerType: "Value", AnswerArgument: a.Name})
		}
	}
	class := ""
	if len(q.Classes) > 0 {
		class = q.Classes[0]
	}
	if q.Function == "count" {
		class = "type.int"
	}
	nodes := []grailNode{{NID: 0, NodeType: "class", ID: class, Class: class, QuestionNode: 1, Function: q.Function}}
	for i, e := range q.Topics {
		nodes = append(nodes, grailNode{NID: i + 1, NodeType: "entity", ID: e.ID, FriendlyName: e.Name, Function: "none"})
	}
	r.GraphQuery.Nodes = nodes
	r.GraphQuery.Edges = []grailEdge{}
	for _, rel := range q.Relations {
		r.GraphQuery.Edges = append(r.GraphQuery.Edges, grailEdge{Relation: rel, FriendlyName: capitalise(words(rel))})
		if d, _, _ := strings.Cut(rel, "."); !slices.Contains(r.Domains, d) {
			r.Domains = append(r.Domains, d)
		}
	}
	r.NumNode, r.NumEdge = len(nodes), len(q.Relations)
	return r
}
