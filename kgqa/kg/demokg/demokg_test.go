package demokg

import (
	"bytes"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	rdflibgo "github.com/tggo/goRDFlib"
	"github.com/tggo/goRDFlib/nt"
	"github.com/tggo/goRDFlib/sparql"

	"github.com/parog/parog-go/dataset"
)

const (
	fbNS  = "http://rdf.freebase.com/ns/"
	wdNS  = "http://www.wikidata.org/entity/"
	xsdNS = "http://www.w3.org/2001/XMLSchema#"
)

// demoSet is one embedded graph with its questions and id namespace.
type demoSet struct {
	name      string
	nt        []byte
	questions []dataset.DemoRecord
	ns        string
}

func datasets() []demoSet {
	return []demoSet{
		{"freebase", Freebase(), FreebaseQuestions(), fbNS},
		{"wikidata", Wikidata(), WikidataQuestions(), wdNS},
	}
}

func load(t testing.TB, data []byte) *rdflibgo.Graph {
	t.Helper()
	g := rdflibgo.NewGraph()
	require.NoError(t, nt.Parse(g, bytes.NewReader(data)))
	return g
}

// selectFirst runs q and returns its first projected variable per row,
// as entity ids (namespace stripped) or "lexical^^datatype" for literals.
func selectFirst(t testing.TB, g *rdflibgo.Graph, namespace, q string) []string {
	t.Helper()
	res, err := sparql.Query(g, q)
	require.NoError(t, err, q)
	require.NotEmpty(t, res.Vars, q)
	var out []string
	for _, row := range res.Bindings {
		out = append(out, termKey(row[res.Vars[0]], namespace))
	}
	sort.Strings(out)
	return out
}

func termKey(tm rdflibgo.Term, namespace string) string {
	switch v := tm.(type) {
	case rdflibgo.URIRef:
		return strings.TrimPrefix(v.Value(), namespace)
	case rdflibgo.Literal:
		if v.Language() != "" {
			return v.Lexical()
		}
		return v.Lexical() + "^^" + v.Datatype().Value()
	case nil:
		return "<unbound>"
	default:
		return tm.String()
	}
}

func answerKeys(q dataset.DemoRecord) []string {
	var out []string
	for _, a := range q.Answers {
		if a.IsEntity() {
			out = append(out, a.ID)
		} else {
			out = append(out, a.Name+"^^"+a.Datatype)
		}
	}
	sort.Strings(out)
	return out
}

func TestGoldSPARQLReturnsGoldAnswers(t *testing.T) {
	for _, ds := range datasets() {
		g := load(t, ds.nt)
		for _, q := range ds.questions {
			t.Run(ds.name+"/"+q.ID, func(t *testing.T) {
				require.NotEmpty(t, q.Answers)
				_, err := sparql.Parse(q.SPARQL)
				require.NoError(t, err)
				assert.Equal(t, answerKeys(q), selectFirst(t, g, ds.ns, q.SPARQL))
			})
		}
	}
}

func TestQuestionsAreWellFormed(t *testing.T) {
	kinds := []string{"composition", "conjunction", "comparative", "superlative", "count", "linear"}
	for _, ds := range datasets() {
		t.Run(ds.name, func(t *testing.T) {
			g := load(t, ds.nt)
			names := nameIndex(t, g, ds)
			ids := map[string]bool{}
			for _, q := range ds.questions {
				assert.False(t, ids[q.ID], "duplicate id %s", q.ID)
				ids[q.ID] = true
				assert.Contains(t, kinds, q.Type, q.ID)
				assert.NotEmpty(t, strings.TrimSpace(q.Question), q.ID)
				require.NotEmpty(t, q.TopicEntities, q.ID)
				for _, e := range q.TopicEntities {
					// Linking a topic entity by name must be unambiguous.
					assert.Equal(t, []string{e.ID}, names[e.Name], "%s: topic %q", q.ID, e.Name)
				}
				for _, a := range q.Answers {
					if a.IsEntity() {
						assert.Contains(t, names[a.Name], a.ID, "%s: answer %q", q.ID, a.Name)
						assert.Empty(t, a.Datatype, q.ID)
					} else {
						assert.True(t, strings.HasPrefix(a.Datatype, xsdNS), "%s: datatype %q", q.ID, a.Datatype)
					}
				}
			}
		})
	}
}

// nameIndex maps each English name to the sorted ids that carry it.
func nameIndex(t testing.TB, g *rdflibgo.Graph, ds demoSet) map[string][]string {
	t.Helper()
	pred := "<" + fbNS + "type.object.name>"
	if ds.ns == wdNS {
		pred = "<http://www.w3.org/2000/01/rdf-schema#label>"
	}
	res, err := sparql.Query(g, "SELECT ?e ?n WHERE { ?e "+pred+" ?n . FILTER (LANG(?n) = \"en\") }")
	require.NoError(t, err)
	out := map[string][]string{}
	for _, row := range res.Bindings {
		n := row["n"].(rdflibgo.Literal).Lexical()
		out[n] = append(out[n], termKey(row["e"], ds.ns))
	}
	for _, v := range out {
		sort.Strings(v)
	}
	return out
}

func TestQuestionCoverage(t *testing.T) {
	count := map[string]int{}
	for _, q := range FreebaseQuestions() {
		count[q.Type]++
	}
	assert.GreaterOrEqual(t, len(FreebaseQuestions()), 15)
	for _, k := range []string{"composition", "conjunction", "comparative", "superlative", "count"} {
		assert.GreaterOrEqual(t, count[k], 3, "type %s", k)
	}
	assert.GreaterOrEqual(t, len(WikidataQuestions()), 3)
}

func TestPaperExamplesPresent(t *testing.T) {
	want := map[string]string{
		"What country bordering France contains an airport that serves Nijmegen?":  "Germany",
		"Lou Seal is the mascot for the team that last won the World Series when?": "2014 World Series",
	}
	for _, q := range FreebaseQuestions() {
		if name, ok := want[q.Question]; ok {
			require.Len(t, q.Answers, 1)
			assert.Equal(t, name, q.Answers[0].Name)
			delete(want, q.Question)
		}
	}
	assert.Empty(t, want, "paper examples missing")
}

func TestAccessorsReturnCopies(t *testing.T) {
	qs := FreebaseQuestions()
	qs[0].Answers[0].Name = "changed"
	qs[0].Plan[0] = 'x'
	assert.NotEqual(t, "changed", FreebaseQuestions()[0].Answers[0].Name)
	assert.Equal(t, byte('{'), FreebaseQuestions()[0].Plan[0])
	b := Freebase()
	b[0] = 'x'
	assert.Equal(t, byte('<'), Freebase()[0])
}
