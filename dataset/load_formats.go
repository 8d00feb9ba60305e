package dataset

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// CWQAnswer is one answer of CWQ's original answer list.
type CWQAnswer struct {
	Answer   string   `json:"answer"`
	AnswerID string   `json:"answer_id"`
	Aliases  []string `json:"aliases"`
}

// CWQRecord is one question of a ComplexWebQuestions file, as distributed.
type CWQRecord struct {
	ID          string          `json:"ID"`
	Question    string          `json:"question"`
	SPARQL      string          `json:"sparql"`
	Type        string          `json:"compositionality_type"`
	TopicEntity json.RawMessage `json:"topic_entity"`
	// Answer is the single answer name of the distributed samples.
	Answer *string `json:"answer"`
	// Answers is the original CWQ answer list with ids and aliases.
	Answers []CWQAnswer `json:"answers"`
}

func convertCWQ(raw json.RawMessage) (Question, string, error) {
	var r CWQRecord
	if err := strictRecord(raw, &r); err != nil {
		return Question{}, peekID(raw, "ID"), err
	}
	if err := requireFields(r.ID, "ID", r.Question, "question"); err != nil {
		return Question{}, r.ID, err
	}
	tes, err := entityMap(r.TopicEntity)
	if err != nil {
		return Question{}, r.ID, err
	}
	q := Question{ID: r.ID, Text: r.Question, SPARQL: r.SPARQL, Label: r.Type, TopicEntities: tes}
	for _, a := range r.Answers {
		id, _ := NormalizeMID(a.AnswerID)
		q.Answers = appendAnswer(q.Answers, Answer{ID: id, Name: a.Answer, Aliases: a.Aliases})
	}
	if r.Answer != nil && *r.Answer != "" && len(q.Answers) == 0 {
		// A name alone: an entity whose id the sample does not give, or a
		// date written as a literal.
		q.Answers = []Answer{{Name: *r.Answer, Datatype: guessLiteralType(*r.Answer, false)}}
	}
	return q, r.ID, nil
}

type grailAnswer struct {
	AnswerType     string `json:"answer_type"`
	AnswerArgument string `json:"answer_argument"`
	EntityName     string `json:"entity_name"`
}

type grailRecord struct {
	QID         json.RawMessage `json:"qid"`
	Question    string          `json:"question"`
	Answer      []grailAnswer   `json:"answer"`
	Function    string          `json:"function"`
	SPARQL      string          `json:"sparql_query"`
	Level       string          `json:"level"`
	TopicEntity json.RawMessage `json:"topic_entity"`
	GraphQuery  struct {
		Nodes []struct {
			NodeType     string `json:"node_type"`
			ID           string `json:"id"`
			Class        string `json:"class"`
			FriendlyName string `json:"friendly_name"`
			QuestionNode int    `json:"question_node"`
		} `json:"nodes"`
	} `json:"graph_query"`
}

func convertGrailQA(raw json.RawMessage) (Question, string, error) {
	var r grailRecord
	if err := strictRecord(raw, &r); err != nil {
		return Question{}, peekID(raw, "qid"), err
	}
	id := scalarText(r.QID)
	if err := requireFields(id, "qid", r.Question, "question"); err != nil {
		return Question{}, id, err
	}
	tes, err := entityMap(r.TopicEntity)
	if err != nil {
		return Question{}, id, err
	}
	answerClass := ""
	for _, n := range r.GraphQuery.Nodes {
		if n.NodeType == "entity" {
			mid, _ := NormalizeMID(n.ID)
			tes = appendEntity(tes, Entity{ID: mid, Name: n.FriendlyName})
		}
		if n.QuestionNode == 1 {
			answerClass = n.Class
		}
	}
	q := Question{ID: id, Text: r.Question, SPARQL: r.SPARQL, Label: r.Function, Level: r.Level, TopicEntities: tes}
	for _, a := range r.Answer {
		if a.AnswerType == "Entity" {
			mid, _ := NormalizeMID(a.AnswerArgument)
			q.Answers = appendAnswer(q.Answers, Answer{ID: mid, Name: a.EntityName})
			continue
		}
		dt := grailDatatype(answerClass, a.AnswerArgument)
		if r.Function == "count" {
			dt = XSD + "integer"
		}
		q.Answers = appendAnswer(q.Answers, Answer{Name: a.AnswerArgument, Datatype: dt})
	}
	return q, id, nil
}

// grailDatatype maps the class of GrailQA's question node to an XSD type.
func grailDatatype(class, lex string) string {
	switch class {
	case "type.int":
		return XSD + "integer"
	case "type.float":
		return XSD + "float"
	case "type.boolean":
		return XSD + "boolean"
	case "type.datetime":
		if dt := guessLiteralType(lex, false); dt != "" {
			return dt
		}
		return XSD + "dateTime"
	}
	return guessLiteralType(lex, false)
}

var (
	reYear     = regexp.MustCompile(`^-?\d{4}$`)
	reYearMon  = regexp.MustCompile(`^-?\d{4}-\d{2}$`)
	reDate     = regexp.MustCompile(`^-?\d{4}-\d{2}-\d{2}$`)
	reDateTime = regexp.MustCompile(`^-?\d{4}-\d{2}-\d{2}T`)
	reInt      = regexp.MustCompile(`^[+-]?\d+$`)
	reFloat    = regexp.MustCompile(`^[+-]?(\d+\.\d*|\.\d+)([eE][+-]?\d+)?$`)
)

// guessLiteralType infers the XSD type of a literal from its lexical form:
// dates by shape, numbers when numeric is true (a bare "1990" in an answer
// list is a year, not a count).
func guessLiteralType(lex string, numeric bool) string {
	switch {
	case reDateTime.MatchString(lex):
		return XSD + "dateTime"
	case reDate.MatchString(lex):
		return XSD + "date"
	case reYearMon.MatchString(lex):
		return XSD + "gYearMonth"
	case numeric && reInt.MatchString(lex):
		return XSD + "integer"
	case reYear.MatchString(lex):
		return XSD + "gYear"
	case numeric && reFloat.MatchString(lex):
		return XSD + "float"
	}
	return ""
}

// WebQSPAnswer is one gold answer of a WebQSP parse, as published.
type WebQSPAnswer struct {
	AnswerType     string `json:"AnswerType"`
	AnswerArgument string `json:"AnswerArgument"`
	EntityName     string `json:"EntityName"`
}

// WebQSPParse is one gold parse of a WebQSP question: its SPARQL, topic
// entity and answers.
type WebQSPParse struct {
	ParseID         string         `json:"ParseId"`
	Sparql          string         `json:"Sparql"`
	TopicEntityMid  string         `json:"TopicEntityMid"`
	TopicEntityName string         `json:"TopicEntityName"`
	Answers         []WebQSPAnswer `json:"Answers"`
}

// WebQSPRecord is one question of a WebQSP file in its published format
// (the raw record a Question keeps, with every parse).
type WebQSPRecord struct {
	QuestionID        string        `json:"QuestionId"`
	RawQuestion       string        `json:"RawQuestion"`
	ProcessedQuestion string        `json:"ProcessedQuestion"`
	Parses            []WebQSPParse `json:"Parses"`
	// TopicEntityMid and Answers are the answer-only shape PoG
	// distributes: one implicit parse without SPARQL.
	TopicEntityMid string         `json:"TopicEntityMid"`
	Answers        []WebQSPAnswer `json:"Answers"`
}

// convertWebQSP keeps the first parse's SPARQL (the one the benchmark's
// tooling uses) and the union of all parses' topic entities and answers.
// A record without Parses but with Answers (PoG's answer-only shape) is
// read as one parse; its answers have no AnswerType, so an argument
// shaped like a Freebase id is an entity and any other a value.
func convertWebQSP(raw json.RawMessage) (Question, string, error) {
	var r WebQSPRecord
	if err := strictRecord(raw, &r); err != nil {
		return Question{}, peekID(raw, "QuestionId"), err
	}
	if len(r.Parses) == 0 && r.Answers != nil {
		r.Parses = []WebQSPParse{{TopicEntityMid: r.TopicEntityMid, Answers: r.Answers}}
	}
	text := r.RawQuestion
	if text == "" {
		text = r.ProcessedQuestion
	}
	if err := requireFields(r.QuestionID, "QuestionId", text, "RawQuestion"); err != nil {
		return Question{}, r.QuestionID, err
	}
	if len(r.Parses) == 0 {
		return Question{}, r.QuestionID, errors.New("no Parses")
	}
	q := Question{ID: r.QuestionID, Text: text, SPARQL: r.Parses[0].Sparql}
	for _, p := range r.Parses {
		if p.TopicEntityMid != "" {
			mid, _ := NormalizeMID(p.TopicEntityMid)
			q.TopicEntities = appendEntity(q.TopicEntities, Entity{ID: mid, Name: p.TopicEntityName})
		}
		for _, a := range p.Answers {
			if a.AnswerType == "" {
				if _, ok := NormalizeMID(a.AnswerArgument); ok {
					a.AnswerType = "Entity"
				}
			}
			if a.AnswerType == "Entity" {
				mid, _ := NormalizeMID(a.AnswerArgument)
				q.Answers = appendAnswer(q.Answers, Answer{ID: mid, Name: a.EntityName})
				continue
			}
			q.Answers = appendAnswer(q.Answers, Answer{Name: a.AnswerArgument, Datatype: guessLiteralType(a.AnswerArgument, true)})
		}
	}
	return q, r.QuestionID, nil
}

// require checks (value, name) pairs for non-empty values.
func requireFields(pairs ...string) error {
	var missing []string
	for i := 0; i+1 < len(pairs); i += 2 {
		if strings.TrimSpace(pairs[i]) == "" {
			missing = append(missing, pairs[i+1])
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("missing %s", strings.Join(missing, ", "))
	}
	return nil
}
