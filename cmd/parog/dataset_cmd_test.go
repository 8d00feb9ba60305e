package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/dataset/eval"
	"github.com/parog/parog-go/internal/realdata"
	"github.com/parog/parog-go/kgqa/kgqatest"
	"github.com/parog/parog-go/kgqa/llm/llmtest"
)

// fb15kArchive writes a small archive in FB15k-237's layout: France's
// government (one hop), its capital and its official language through a
// collapsed mediator path, and a names file.
func fb15kArchive(t *testing.T, dir string) (archive, names string) {
	t.Helper()
	train := "/m/0f8l9c\t/location/country/form_of_government\t/m/01q20\n" +
		"/m/0f8l9c\t/location/country/form_of_government\t/m/06cx9\n" +
		"/m/0f8l9c\t/location/location/contains\t/m/05qtj\n" +
		"/m/0f8l9c\t/location/location/contains\t/m/0k_q\n" +
		"/m/0f8l9c\t/location/statistical_region/places_exported_to./location/imports_and_exports/exported_to\t/m/0345h\n"
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	require.NoError(t, tw.WriteHeader(&tar.Header{Name: "train.txt", Mode: 0o644, Size: int64(len(train))}))
	_, err := tw.Write([]byte(train))
	require.NoError(t, err)
	require.NoError(t, tw.Close())
	require.NoError(t, zw.Close())
	archive = filepath.Join(dir, "FB15k-237.tar.gz")
	require.NoError(t, os.WriteFile(archive, buf.Bytes(), 0o644))
	names = filepath.Join(dir, "mid2name.txt")
	require.NoError(t, os.WriteFile(names, []byte("/m/0f8l9c\tFrance\n/m/01q20\tUnitary_state\n/m/06cx9\tRepublic\n"+
		"/m/05qtj\tParis\n/m/0k_q\tLyon\n/m/0345h\tGermany\n/m/zz no tab\n"), 0o644))
	return archive, names
}

func webqspQuestion(id, sparql string, answers ...string) map[string]any {
	var as []map[string]string
	for _, a := range answers {
		as = append(as, map[string]string{"AnswerType": "Entity", "AnswerArgument": a})
	}
	return map[string]any{"QuestionId": id, "RawQuestion": id + "?", "Parses": []map[string]any{
		{"ParseId": id + ".P0", "Sparql": sparql, "TopicEntityMid": "m.0f8l9c", "Answers": as},
	}}
}

func TestImportThenAnswerable(t *testing.T) {
	dir := t.TempDir()
	archive, names := fb15kArchive(t, dir)
	nt := filepath.Join(dir, "slice.nt.gz")
	var out, errOut bytes.Buffer
	env := &Env{Stdout: &out, Stderr: &errOut, Getenv: func(string) (string, bool) { return "", false }}
	code := Main(context.Background(), []string{"kg", "import", "fb15k237", "--in", archive, "--names", names, "--out", nt}, env)
	require.Equal(t, 0, code, errOut.String())
	assert.Equal(t, nt+": 12 triples (4 facts, 1 paths through a rebuilt mediator node, 6 names); "+
		"6 entities, 0 without a name; 1 bad lines left out\n", out.String())
	assert.Equal(t, "bad line mid2name.txt:7: no tab between MID and name\n", errOut.String())

	cfg := filepath.Join(dir, "kg.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte("kg:\n  backend: embedded\n  dialect: freebase\n  files: ["+nt+"]\n"), 0o644))
	run := func(args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		env := &Env{Stdout: &out, Stderr: &errOut, Getenv: func(string) (string, bool) { return "", false }}
		code := Main(context.Background(), args, env)
		return code, out.String(), errOut.String()
	}
	// The rebuilt mediator reads as one fact, as a real Freebase CVT does.
	code, stdout, stderr := run("kg", "neighbors", "--config", cfg, "m.0f8l9c", "location.statistical_region.places_exported_to")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, "out  location.statistical_region.places_exported_to / [m.fb15k_cvt_1] / location.imports_and_exports.exported_to  m.0345h  Germany\n", stdout)

	const prefix = "PREFIX ns: <http://rdf.freebase.com/ns/>\nSELECT DISTINCT ?x\nWHERE {\nFILTER (?x != ns:m.0f8l9c)\n" +
		"FILTER (!isLiteral(?x) OR lang(?x) = '' OR langMatches(lang(?x), 'en'))\n"
	input := map[string]any{"Version": "1.0", "Questions": []any{
		webqspQuestion("exact", prefix+"ns:m.0f8l9c ns:location.country.form_of_government ?x .\n}", "m.01q20", "m.06cx9"),
		webqspQuestion("superset", prefix+"ns:m.0f8l9c ns:location.location.contains ?x .\n}", "m.05qtj"),
		webqspQuestion("partial", prefix+"ns:m.0f8l9c ns:location.statistical_region.places_exported_to ?y .\n"+
			"?y ns:location.imports_and_exports.exported_to ?x .\n}", "m.0345h", "m.0154j"),
		webqspQuestion("none", prefix+"ns:m.0f8l9c ns:location.country.capital ?x .\n}", "m.05qtj"),
		webqspQuestion("failed", "PREFIX ns: <http://rdf.freebase.com/ns/>\nSELECT ?x WHERE { ns:m.0f8l9c ?x", "m.05qtj"),
	}}
	b, err := json.Marshal(input)
	require.NoError(t, err)
	in := filepath.Join(dir, "webqsp.json")
	require.NoError(t, os.WriteFile(in, b, 0o644))
	kept, report := filepath.Join(dir, "kept.json"), filepath.Join(dir, "report.json")

	code, stdout, stderr = run("dataset", "answerable", "--config", cfg, "--format", "webqsp", "--input", in, "--out", kept, "--report", report)
	require.Equal(t, 0, code, stderr)
	assert.Regexp(t, `^5 questions: exact 1, superset 1, partial 1, none 1, failed 1; 2 written to .*kept.json \(superset or better\)\n`+
		`  failed 1: kg: select: .*parse error.*\n$`, stdout)
	var got struct {
		Questions []struct{ QuestionId string }
	}
	b, err = os.ReadFile(kept)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &got))
	assert.Len(t, got.Questions, 2)
	assert.Equal(t, "exact", got.Questions[0].QuestionId)
	assert.Equal(t, "superset", got.Questions[1].QuestionId)

	// What was written reads back as WebQSP, and every question in it is exact or superset.
	code, stdout, stderr = run("dataset", "answerable", "--config", cfg, "--format", "webqsp", "--input", kept, "--out", filepath.Join(dir, "again.json"), "--keep", "exact")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "2 questions: exact 1, superset 1, partial 0, none 0, failed 0; 1 written")
}

func TestAnswerableUsage(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"no command", []string{"dataset"}, "missing command (answerable, harvest or generate)"},
		{"missing flags", []string{"dataset", "answerable", "--format", "webqsp"}, "--format, --input and --out are required"},
		{"demo format", []string{"dataset", "answerable", "--format", "demo", "--input", "a", "--out", "b"}, "--format: want webqsp, cwq, grailqa, webquestions, simplequestions or qald"},
		{"bad keep", []string{"dataset", "answerable", "--format", "cwq", "--input", "a", "--out", "b", "--keep", "none"}, "--keep: want exact, superset or partial"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			env := &Env{Stdout: &out, Stderr: &errOut, Getenv: func(string) (string, bool) { return "", false }}
			assert.Equal(t, 2, Main(context.Background(), c.args, env))
			assert.Contains(t, errOut.String(), c.want)
		})
	}
}

// TestAnswerableWritesTheJudgedParseFirst: WebQSP questions often have a
// first parse the KG cannot answer and a later one it can (Brazil's
// languages_spoken is not in FB15k-237, its official_language is). The
// question is written with the parse that was judged first, so the loader,
// sparql2plan and the oracle read the query that the verdict is about.
func TestAnswerableWritesTheJudgedParseFirst(t *testing.T) {
	dir := t.TempDir()
	archive, names := fb15kArchive(t, dir)
	nt := filepath.Join(dir, "slice.nt.gz")
	env := &Env{Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}, Getenv: func(string) (string, bool) { return "", false }}
	require.Equal(t, 0, Main(context.Background(), []string{"kg", "import", "fb15k237", "--in", archive, "--names", names, "--out", nt}, env))
	cfg := filepath.Join(dir, "kg.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte("kg:\n  backend: embedded\n  dialect: freebase\n  files: ["+nt+"]\n"), 0o644))

	const prefix = "PREFIX ns: <http://rdf.freebase.com/ns/>\nSELECT DISTINCT ?x\nWHERE {\n"
	q := webqspQuestion("two-parses", prefix+"ns:m.0f8l9c ns:location.country.capital ?x .\n}", "m.05qtj")
	q["Parses"] = append(q["Parses"].([]map[string]any), map[string]any{"ParseId": "two-parses.P1", "TopicEntityMid": "m.0f8l9c",
		"Sparql":  prefix + "ns:m.0f8l9c ns:location.country.form_of_government ?x .\n}",
		"Answers": []map[string]string{{"AnswerType": "Entity", "AnswerArgument": "m.01q20"}, {"AnswerType": "Entity", "AnswerArgument": "m.06cx9"}}})
	b, err := json.Marshal(map[string]any{"Questions": []any{q}})
	require.NoError(t, err)
	in, kept := filepath.Join(dir, "in.json"), filepath.Join(dir, "kept.json")
	require.NoError(t, os.WriteFile(in, b, 0o644))
	var out, errOut bytes.Buffer
	env = &Env{Stdout: &out, Stderr: &errOut, Getenv: func(string) (string, bool) { return "", false }}
	code := Main(context.Background(), []string{"dataset", "answerable", "--config", cfg, "--format", "webqsp", "--input", in, "--out", kept, "--keep", "exact"}, env)
	require.Equal(t, 0, code, errOut.String())
	assert.Contains(t, out.String(), "exact 1")

	qs, err := loadQuestions(context.Background(), env, "webqsp", kept)
	require.NoError(t, err)
	require.Len(t, qs, 1)
	assert.Contains(t, qs[0].SPARQL, "form_of_government", "the exact parse comes first")
	assert.Len(t, qs[0].Answers, 3, "the other parse and its answers are kept")
}

// WebQuestions and SimpleQuestions files (ToG's shape) hold answer names
// and no gold query: a question is answerable when every gold name lies
// within reach of its topic entity, one hop for SimpleQuestions, two
// (through a mediator) for WebQuestions.
func TestAnswerableToGFormats(t *testing.T) {
	dir := t.TempDir()
	archive, names := fb15kArchive(t, dir)
	nt := filepath.Join(dir, "slice.nt.gz")
	code, _, stderr := runParog(t, nil, "kg", "import", "fb15k237", "--in", archive, "--names", names, "--out", nt)
	require.Equal(t, 0, code, stderr)
	cfg := filepath.Join(dir, "kg.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte("kg:\n  backend: embedded\n  dialect: freebase\n  files: ["+nt+"]\n"), 0o644))
	france := map[string]string{"m.0f8l9c": "France"}
	cases := []struct {
		format  string
		records []map[string]any
		want    string
	}{
		{"webquestions", []map[string]any{
			{"question": "what cities are in france?", "answers": []string{"Paris", "Lyon"}, "topic_entity": france},
			{"question": "what does france export to?", "answers": []string{"Germany"}, "topic_entity": france}, // through the mediator
			{"question": "what is the capital of germany?", "answers": []string{"Berlin"}, "topic_entity": france},
		}, "3 questions: exact 0, superset 2, partial 0, none 1, failed 0; 2 written"},
		{"simplequestions", []map[string]any{
			{"question": "what government does france have?", "answer": "Republic", "topic_entity": france, "relation": "form of government"},
			{"question": "what does france export to?", "answer": "Germany", "topic_entity": france, "relation": "exported to"}, // two hops away
		}, "2 questions: exact 0, superset 1, partial 0, none 1, failed 0; 1 written"},
	}
	for _, tc := range cases {
		t.Run(tc.format, func(t *testing.T) {
			b, err := json.Marshal(tc.records)
			require.NoError(t, err)
			in := filepath.Join(dir, tc.format+".json")
			require.NoError(t, os.WriteFile(in, b, 0o644))
			code, stdout, stderr := runParog(t, nil, "dataset", "answerable", "--config", cfg, "--format", tc.format, "--input", in, "--out", filepath.Join(dir, tc.format+".kept.json"))
			require.Equal(t, 0, code, stderr)
			assert.Contains(t, stdout, tc.want)
		})
	}
}

// eval runs a WebQuestions file and scores it by the strict rule and by
// ToG's; eval report names the dataset from the ids and lists both rules.
func TestEvalWebQuestions(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithHandler(kgqatest.DemoModel(kgqatest.Believe("mascot", "Lou Seal"))))
	dir := t.TempDir()
	in := filepath.Join(dir, "WebQuestions.json")
	b, err := json.Marshal([]map[string]any{
		{"question": giantsQuestion, "answers": []string{"Lou Seal"}, "topic_entity": map[string]string{"m.0713r": "San Francisco Giants"}},
	})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(in, b, 0o644))
	out := filepath.Join(dir, "r.jsonl")
	code, _, stderr := runParog(t, evalEnv(srv.URL()), "eval", "--config", demoConfig, "--dataset", "webquestions", "--input", in, "--out", out, "--no-progress")
	require.Equal(t, 0, code, stderr)
	rf, err := eval.ReadResults(out)
	require.NoError(t, err)
	rows := rf.Latest()
	require.Len(t, rows, 1)
	assert.Regexp(t, `^webquestions-[0-9a-f]{10}$`, rows[0].ID)
	assert.True(t, rows[0].Hit)
	require.NotNil(t, rows[0].ToGHit)
	assert.True(t, *rows[0].ToGHit)

	md := filepath.Join(dir, "r.md")
	code, _, stderr = runParog(t, nil, "eval", "report", out, "--dataset", "webquestions", "--input", in, "--md", md)
	require.Equal(t, 0, code, stderr)
	text, err := os.ReadFile(md)
	require.NoError(t, err)
	assert.Contains(t, string(text), "Dataset: webquestions")
	assert.Contains(t, string(text), "By scoring rule: strict 100.0% (1/1); tog 100.0% (1/1).")
}

// eval report refuses runs of different datasets unless --allow-mixed, and
// then labels each run with its dataset.
func TestEvalReportRefusesMixedDatasets(t *testing.T) {
	cwq := realdata.Path(t, "pog/PoG_cwq_gpt-3.5-turbo-0125.jsonl")
	grail := realdata.Path(t, "pog/PoG_grailqa_gpt-3.5-turbo-0125.jsonl")
	code, _, stderr := runParog(t, nil, "eval", "report", cwq, grail)
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "PoG_cwq_gpt-3.5-turbo-0125.jsonl (cwq), PoG_grailqa_gpt-3.5-turbo-0125.jsonl (grailqa)")
	assert.Contains(t, stderr, "--allow-mixed")
	code, stdout, stderr := runParog(t, nil, "eval", "report", cwq, grail, "--allow-mixed", "--bootstrap", "50")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "## PoG_cwq_gpt-3.5-turbo-0125.jsonl (pog, cwq)")
	assert.Contains(t, stdout, "## PoG_grailqa_gpt-3.5-turbo-0125.jsonl (pog, grailqa)")
}
