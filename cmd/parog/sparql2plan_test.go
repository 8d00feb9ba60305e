package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/internal/realdata"
	"github.com/parog/parog-go/kgqa"
)

// cwqFixture holds two convertible questions, one whose query has no plan
// operation (ASK), and one malformed record (question is a number).
const cwqFixture = `[
{"ID": "q1", "question": "Lou Seal is the mascot for the team that last won the World Series when?", "compositionality_type": "composition",
 "sparql": "PREFIX ns: <http://rdf.freebase.com/ns/>\nSELECT DISTINCT ?x WHERE { ?c ns:sports.sports_team.team_mascot ns:m.03_dwn . ?c ns:sports.sports_team.championships ?x . ?x ns:time.event.start_date ?d . } ORDER BY DESC(xsd:datetime(?d)) LIMIT 1",
 "topic_entity": {"m.03_dwn": "Lou Seal"}, "answer": "2014 World Series"},
{"ID": "q2", "question": "What countries with calling codes over 677 are in Oceania?", "compositionality_type": "comparative",
 "sparql": "PREFIX ns: <http://rdf.freebase.com/ns/>\nSELECT DISTINCT ?x WHERE { ns:m.05nrg ns:location.location.contains ?x . ?x ns:common.topic.notable_types ns:m.01mp . ?x ns:location.country.calling_code ?n . FILTER (xsd:integer(?n) > 677) }",
 "topic_entity": {"m.05nrg": "Oceania"}, "answer": "Fiji"},
{"ID": "q3", "question": "Is it an ask?", "compositionality_type": "conjunction",
 "sparql": "ASK { ?x <http://rdf.freebase.com/ns/a.b.c> ?y }", "topic_entity": {}},
{"ID": "q4", "question": 5, "compositionality_type": "conjunction", "sparql": "", "topic_entity": {}}
]`

func readRecords(t *testing.T, path string) []map[string]json.RawMessage {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var out []map[string]json.RawMessage
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(sc.Bytes(), &r), sc.Text())
		out = append(out, r)
	}
	require.NoError(t, sc.Err())
	return out
}

func TestSPARQL2PlanCLI(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "cwq_train.json")
	require.NoError(t, os.WriteFile(in, []byte(cwqFixture), 0o644))
	out := filepath.Join(dir, "sft.jsonl")
	report := filepath.Join(dir, "report.json")

	code, stdout, stderr := runParog(t, nil, "sparql2plan", "--format", "cwq", "--input", in, "--out", out, "--report", report)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "converted 2 of 3 questions")
	assert.Contains(t, stdout, "wrote 2 records")
	assert.Contains(t, stdout, "malformed 1")
	assert.Contains(t, stdout, "label agreement 2 of 2 (100.00%) by containment, 1 of 2 (50.00%) by primary type",
		"the Lou Seal plan contains a composition but is a superlative")
	assert.Contains(t, stderr, "q4", "the malformed record is reported")

	recs := readRecords(t, out)
	require.Len(t, recs, 2)
	for _, r := range recs {
		var msgs []struct{ Role, Content string }
		require.NoError(t, json.Unmarshal(r["messages"], &msgs))
		require.Len(t, msgs, 3)
		assert.Equal(t, []string{"system", "user", "assistant"}, []string{msgs[0].Role, msgs[1].Role, msgs[2].Role})
		p, err := kgqa.ParsePlan([]byte(msgs[2].Content))
		require.NoError(t, err, "the assistant target is a valid plan")
		for _, s := range p.Subgoals {
			assert.NotRegexp(t, `\bm\.0`, s.Text, "no bare MID in %q", s.Text)
		}
		assert.JSONEq(t, `true`, string(r["label_agrees"]))
		assert.JSONEq(t, `"train"`, string(r["source_split"]), "the split comes from the file name")
	}
	// The Oceania question: the notable type names the countries.
	var q2 struct{ Plan kgqa.Plan }
	require.NoError(t, json.Unmarshal(mustJSON(t, recs[1]), &q2))
	assert.Equal(t, "Find the countries that Oceania contains.", q2.Plan.Subgoals[0].Text)

	var st struct {
		Input, Converted, Written, Malformed int
		Failures                             map[string]int
		PrimaryKinds                         map[string]int `json:"primary_kinds"`
	}
	b, err := os.ReadFile(report)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &st))
	assert.Equal(t, 3, st.Input)
	assert.Equal(t, 2, st.Converted)
	assert.Equal(t, 1, st.Malformed)
	assert.Equal(t, map[string]int{"unsupported: ASK query": 1}, st.Failures)
	assert.Equal(t, map[string]int{"superlative": 1, "comparative": 1}, st.PrimaryKinds)
	md, err := os.ReadFile(strings.TrimSuffix(report, ".json") + ".md")
	require.NoError(t, err)
	assert.Contains(t, string(md), "| comparative | 1 | 50.00% | 4.49% |")

	// Resume: a second run writes nothing new, says so, and its report
	// covers the whole output file: the first run's, but for what this
	// run wrote and resumed.
	code, stdout, stderr = runParog(t, nil, "sparql2plan", "--format", "cwq", "--input", in, "--out", out, "--report", report)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "converted 2 of 3 questions (66.67%), wrote 0 records (2 in "+out+", 2 resumed)")
	assert.Len(t, readRecords(t, out), 2)
	b2, err := os.ReadFile(report)
	require.NoError(t, err)
	var first, second map[string]any
	require.NoError(t, json.Unmarshal(b, &first))
	require.NoError(t, json.Unmarshal(b2, &second))
	assert.Equal(t, []any{2.0, 0.0, 2.0, 2.0}, []any{first["written"], first["resumed"], second["resumed"], second["records"]})
	for _, k := range []string{"written", "resumed"} {
		delete(first, k)
		delete(second, k)
	}
	assert.Equal(t, first, second)

	// A torn last line (a crash mid-write) is cut, and the lost record is
	// written again.
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	lines := strings.SplitAfter(string(data), "\n")
	require.NoError(t, os.WriteFile(out, []byte(lines[0]+lines[1][:20]), 0o644))
	code, stdout, stderr = runParog(t, nil, "sparql2plan", "--format", "cwq", "--input", in, "--out", out)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "wrote 1 records (2 in "+out+", 1 resumed)")
	assert.Len(t, readRecords(t, out), 2)
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

func TestSPARQL2PlanCLIBadInput(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "sft.jsonl")
	notJSON := filepath.Join(dir, "bad_dev.json")
	require.NoError(t, os.WriteFile(notJSON, []byte("{not json"), 0o644))
	empty := filepath.Join(dir, "empty.json")
	require.NoError(t, os.WriteFile(empty, []byte("[]"), 0o644))
	notRecords := filepath.Join(dir, "notrecords.jsonl")
	require.NoError(t, os.WriteFile(notRecords, []byte("hello\n"), 0o644))
	cases := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"missing flags", []string{"sparql2plan", "--format", "cwq"}, 2, "--input FILE and --out FILE.jsonl are required"},
		{"bad format", []string{"sparql2plan", "--format", "lcquad", "--input", notJSON, "--out", out}, 2, "--format"},
		{"bad concurrency", []string{"sparql2plan", "--format", "cwq", "--input", notJSON, "--out", out, "--concurrency", "0"}, 2, "--concurrency must be >= 1"},
		{"missing input", []string{"sparql2plan", "--format", "cwq", "--input", filepath.Join(dir, "nope_test.json"), "--out", out}, 1, "no such file"},
		{"input not JSON", []string{"sparql2plan", "--format", "cwq", "--input", notJSON, "--out", out}, 1, "want a JSON array of questions"},
		{"no question", []string{"sparql2plan", "--format", "cwq", "--split", "train", "--input", empty, "--out", out}, 1, "no question parses as cwq (0 malformed records)"},
		{"output not records", []string{"sparql2plan", "--format", "cwq", "--input", notJSON, "--out", notRecords}, 1, "refusing to append"},
		{"split unknown", []string{"sparql2plan", "--format", "cwq", "--input", notRecords, "--out", out}, 2, "give --split train, dev or test"},
		{"bad split", []string{"sparql2plan", "--format", "cwq", "--input", notJSON, "--out", out, "--split", "holdout"}, 2, "want train, dev or test"},
		{"teacher without config", []string{"sparql2plan", "--format", "cwq", "--input", notJSON, "--out", out, "--teacher"}, 2, "--config FILE is required"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := runParog(t, nil, tc.args...)
			assert.Equal(t, tc.code, code, errOut)
			lines := strings.Split(strings.TrimSpace(errOut), "\n")
			assert.Contains(t, lines[len(lines)-1], tc.msg, "the error is the last line")
		})
	}
}

// TestSPARQL2PlanWrongFormat passes the GrailQA sample's excerpt as CWQ:
// every record is malformed, so the run fails instead of reporting a
// conversion of nothing.
func TestSPARQL2PlanWrongFormat(t *testing.T) {
	grailQA := realdata.Excerpt(t, "grailqa_sample.json")
	out := filepath.Join(t.TempDir(), "sft.jsonl")
	code, stdout, stderr := runParog(t, nil, "sparql2plan", "--format", "cwq", "--split", "train", "--input", grailQA, "--out", out, "--report", out+".json")
	assert.Equal(t, 1, code)
	assert.Empty(t, stdout)
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	assert.Regexp(t, `^parog sparql2plan: sparql2plan: .*grailqa_sample.json: no question parses as cwq \(\d+ malformed records\): is it a cwq file\?$`, lines[len(lines)-1])
	assert.NoFileExists(t, out+".json", "no report of nothing")
}

// TestSPARQL2PlanVerify runs --verify on the demo questions: without a
// config it checks the algebra only; with the demo config it runs both
// queries on the embedded demo KG and compares their answers.
func TestSPARQL2PlanVerify(t *testing.T) {
	in := filepath.Join("..", "..", "kgqa", "kg", "demokg", "questions.json")
	code, stdout, stderr := runParog(t, nil, "sparql2plan", "--verify", "--format", "demo", "--input", in)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "| converted and equivalent (same algebra) | 21 | 95.45% |")
	assert.Contains(t, stdout, "| not compiled: a superlative over everything that holds a literal | 1 | demo-14 |")
	assert.NotContains(t, stdout, "both queries ran", "no KG without --config")

	code, stdout, stderr = runParog(t, nil, "sparql2plan", "--verify", "--format", "demo", "--input", in, "--config", filepath.Join("..", "..", "configs", "demo.yaml"))
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "| both queries ran on the KG | 21 | |")
	assert.Contains(t, stdout, "| same non-empty answers | 21 | |")
}
