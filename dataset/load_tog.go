package dataset

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// The benchmarks as Think-on-Graph distributes them (its data/ folder):
// JSON arrays whose records carry no id. A question's id is derived from
// its text (see togID), so it stays the same in a filtered copy.

// webQuestionsRecord is one WebQuestions record: the answers are names.
type webQuestionsRecord struct {
	Question    string          `json:"question"`
	Answers     []string        `json:"answers"`
	TopicEntity json.RawMessage `json:"topic_entity"`
	URL         string          `json:"url"`
}

// simpleQARecord is one SimpleQuestions record: one answer name and the
// relation's last word ("country"), not its Freebase id.
type simpleQARecord struct {
	Question    string          `json:"question"`
	Answer      *string         `json:"answer"`
	TopicEntity json.RawMessage `json:"topic_entity"`
	Relation    string          `json:"relation"`
}

// qaldRecord is one QALD-10 record: Wikidata SPARQL and the answers as
// QID -> label (a literal answer is its own key: {"5": "5"}).
type qaldRecord struct {
	Question       string          `json:"question"`
	SPARQL         string          `json:"sparql"`
	Answer         json.RawMessage `json:"answer"`
	QIDTopicEntity json.RawMessage `json:"qid_topic_entity"`
}

// togID derives the id of a question of a ToG file from its text: the
// format's prefix and the first 10 hex digits of the SHA-256 of the text.
func togID(f Format, text string) string {
	sum := sha256.Sum256([]byte(strings.TrimSpace(text)))
	return string(f) + "-" + hex.EncodeToString(sum[:])[:10]
}

func convertWebQuestions(raw json.RawMessage) (Question, string, error) {
	var r webQuestionsRecord
	if err := strictRecord(raw, &r); err != nil {
		return Question{}, "", err
	}
	if err := requireFields(r.Question, "question"); err != nil {
		return Question{}, "", err
	}
	id := togID(WebQuestions, r.Question)
	if len(r.Answers) == 0 {
		return Question{}, id, errors.New("no answers")
	}
	topics, err := freebaseTopics(r.TopicEntity)
	if err != nil {
		return Question{}, id, err
	}
	q := Question{ID: id, Text: r.Question, TopicEntities: topics}
	for _, a := range r.Answers {
		if strings.TrimSpace(a) != "" {
			q.Answers = appendAnswer(q.Answers, Answer{Name: a})
		}
	}
	return q, id, nil
}

func convertSimpleQuestions(raw json.RawMessage) (Question, string, error) {
	var r simpleQARecord
	if err := strictRecord(raw, &r); err != nil {
		return Question{}, "", err
	}
	if err := requireFields(r.Question, "question"); err != nil {
		return Question{}, "", err
	}
	id := togID(SimpleQuestions, r.Question)
	if r.Answer == nil || strings.TrimSpace(*r.Answer) == "" {
		return Question{}, id, errors.New("missing answer")
	}
	topics, err := freebaseTopics(r.TopicEntity)
	if err != nil {
		return Question{}, id, err
	}
	return Question{ID: id, Text: r.Question, TopicEntities: topics, Answers: []Answer{{Name: *r.Answer}}, Label: "simple"}, id, nil
}

var qidPattern = regexp.MustCompile(`^Q[1-9][0-9]*$`)

func convertQALD(raw json.RawMessage) (Question, string, error) {
	var r qaldRecord
	if err := strictRecord(raw, &r); err != nil {
		return Question{}, "", err
	}
	if err := requireFields(r.Question, "question", r.SPARQL, "sparql"); err != nil {
		return Question{}, "", err
	}
	id := togID(QALD, r.Question)
	pairs, err := orderedObject(r.Answer)
	if err != nil {
		return Question{}, id, fmt.Errorf("answer: %w", err)
	}
	q := Question{ID: id, Text: r.Question, SPARQL: r.SPARQL}
	for _, p := range pairs {
		if qidPattern.MatchString(p[0]) {
			q.Answers = appendAnswer(q.Answers, Answer{ID: p[0], Name: p[1]})
			continue
		}
		// A literal (a count, a date, a boolean) or a lexeme id, whose
		// value is its label.
		q.Answers = appendAnswer(q.Answers, Answer{Name: p[1], Datatype: guessLiteralType(p[1], true)})
	}
	if len(r.QIDTopicEntity) > 0 {
		tops, err := orderedObject(r.QIDTopicEntity)
		if err != nil {
			return Question{}, id, fmt.Errorf("qid_topic_entity: %w", err)
		}
		for _, p := range tops {
			if qidPattern.MatchString(p[0]) {
				q.TopicEntities = appendEntity(q.TopicEntities, Entity{ID: p[0], Name: p[1]})
			}
		}
	}
	return q, id, nil
}

// freebaseTopics reads a {"m.xxx": "Name"} object in file order. ToG
// writes "UnknownMID" where the topic entity was not found; it is left out
// (the engine links the question's entities itself); any other key that
// is not a Freebase id is an error.
func freebaseTopics(raw json.RawMessage) ([]Entity, error) {
	pairs, err := orderedObject(raw)
	if err != nil {
		return nil, fmt.Errorf("topic_entity: %w", err)
	}
	var out []Entity
	for _, p := range pairs {
		if p[0] == "UnknownMID" {
			continue
		}
		mid, ok := NormalizeMID(p[0])
		if !ok {
			return nil, fmt.Errorf("topic_entity: %q is not a Freebase id", p[0])
		}
		out = appendEntity(out, Entity{ID: mid, Name: p[1]})
	}
	return out, nil
}

// orderedObject reads a JSON object of strings as (key, value) pairs in
// file order; null or absent is no pairs.
func orderedObject(raw json.RawMessage) ([][2]string, error) {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	var out [][2]string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v string
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("value of %q is not a string", k)
		}
		out = append(out, [2]string{k.(string), v})
	}
	return out, nil
}
