package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/dataset"
	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
)

// boundGraph is a small Freebase-style graph for WebQTrn-273's query:
// Lincoln's presidency (1861-03-04 to 1865-04-15) and three conflicts the
// USA fought, of which only the Battle of Gettysburg lies within it (the
// Civil War itself ends after it, the others are decades away).
func boundGraph() string {
	var b strings.Builder
	t := func(s, p, o string) {
		fmt.Fprintf(&b, "<http://rdf.freebase.com/ns/%s> <http://rdf.freebase.com/ns/%s> %s .\n", s, p, o)
	}
	ent := func(id string) string { return "<http://rdf.freebase.com/ns/" + id + ">" }
	date := func(d string) string { return `"` + d + `"^^<http://www.w3.org/2001/XMLSchema#date>` }
	name := func(id, n string) { t(id, "type.object.name", `"`+n+`"@en`) }
	name("m.0gzh", "Abraham Lincoln")
	name("m.060c4", "President")
	name("m.09c7w0", "United States of America")
	t("m.0gzh", "government.politician.government_positions_held", ent("m.pos1"))
	t("m.pos1", "government.government_position_held.basic_title", ent("m.060c4"))
	t("m.pos1", "government.government_position_held.from", date("1861-03-04"))
	t("m.pos1", "government.government_position_held.to", date("1865-04-15"))
	for i, w := range []struct{ id, name, from, to string }{
		{"m.war1", "War of 1812", "1812-06-18", "1815-02-18"},
		{"m.war2", "Battle of Gettysburg", "1863-07-01", "1863-07-03"},
		{"m.war3", "American Civil War", "1861-04-12", "1865-05-09"},
		{"m.war4", "Spanish-American War", "1898-04-21", "1898-08-13"},
	} {
		name(w.id, w.name)
		t(w.id, "common.topic.notable_types", ent("m.02h76fz"))
		t(w.id, "time.event.start_date", date(w.from))
		t(w.id, "time.event.end_date", date(w.to))
		cg := fmt.Sprintf("m.cg%d", i)
		t(w.id, "military.military_conflict.combatants", ent(cg))
		t(cg, "military.military_combatant_group.combatants", ent("m.09c7w0"))
	}
	return b.String()
}

// TestOracleAnswersACompareBoundToAnotherSubgoal: the oracle runs the plan
// of a query comparing the answer's dates with a presidency's (a compare
// whose value is "#k") and follows the gold path to the presidency's
// dates. The gold conflict among the USA's four conflicts does not
// determine the answer, so the strict judge lets the run go on to the
// bound compares, which pick it.
func TestOracleAnswersACompareBoundToAnotherSubgoal(t *testing.T) {
	dir := t.TempDir()
	nt := filepath.Join(dir, "bound.nt")
	require.NoError(t, os.WriteFile(nt, []byte(boundGraph()), 0o600))
	cfg, err := config.Load("../../../configs/demo.yaml", func(string) (string, bool) { return "", false }, nil)
	require.NoError(t, err)
	cfg.KG.Files = []string{nt}
	q := dataset.Question{ID: "bound-1", Source: dataset.WebQSP, Text: "during what war did abraham lincoln serve as president?",
		TopicEntities: []dataset.Entity{{ID: "m.0gzh", Name: "Abraham Lincoln"}, {ID: "m.09c7w0", Name: "United States of America"}},
		Answers:       []dataset.Answer{{ID: "m.war2", Name: "Battle of Gettysburg"}},
		SPARQL: `PREFIX ns: <http://rdf.freebase.com/ns/>
SELECT DISTINCT ?x WHERE {
  { SELECT ?pfrom ?pto WHERE {
      ns:m.0gzh ns:government.politician.government_positions_held ?y0 .
      ?y0 ns:government.government_position_held.basic_title ns:m.060c4 ;
          ns:government.government_position_held.from ?pfrom ;
          ns:government.government_position_held.to ?pto . } }
  { SELECT ?from ?to ?x WHERE {
      ?x ns:common.topic.notable_types ns:m.02h76fz .
      ?x ns:time.event.start_date ?from .
      ?x ns:time.event.end_date ?to .
      ?x ns:military.military_conflict.combatants ?y .
      ?y ns:military.military_combatant_group.combatants ns:m.09c7w0 . } }
  FILTER (?to <= ?pto && ?from >= ?pfrom)
}`}
	g, build := benchEngine(t, cfg)
	rep, err := Bench(context.Background(), BenchOptions{Name: "bound", Config: cfg, Graph: g, Engine: build, Questions: []dataset.Question{q},
		Noise: []float64{0}, Seeds: []int{1}, Concurrency: 1, Dir: dir})
	require.NoError(t, err)
	assert.Equal(t, 1, rep.Ceiling.Total)
	assert.Equal(t, 1, rep.Ceiling.Hits, "misses: %+v", rep.Ceiling.Misses)
	assert.Equal(t, 1, rep.Evidence.Hits, "misses: %+v", rep.Evidence.Misses)

	data, err := os.ReadFile(filepath.Join(dir, "evidence.jsonl"))
	require.NoError(t, err)
	var row struct {
		Trace struct {
			Plan struct {
				Subgoals []struct {
					ID    string   `json:"id"`
					Needs []string `json:"needs"`
					Args  *struct {
						Value string `json:"value"`
					} `json:"args"`
				} `json:"subgoals"`
			} `json:"plan"`
			Subgoals []struct {
				ID     string `json:"id"`
				Rounds []struct {
					Chosen []struct {
						ID string `json:"id"`
					} `json:"chosen"`
					Facts []struct {
						Tail struct {
							Name string `json:"name"`
						} `json:"tail"`
					} `json:"facts"`
				} `json:"rounds"`
			} `json:"subgoals"`
		} `json:"trace"`
	}
	require.NoError(t, json.Unmarshal([]byte(strings.SplitN(string(data), "\n", 2)[0]), &row))
	var bound []string
	for _, s := range row.Trace.Plan.Subgoals {
		if s.Args != nil && strings.HasPrefix(s.Args.Value, "#") {
			bound = append(bound, s.ID+" "+s.Args.Value+" "+strings.Join(s.Needs, ","))
		}
	}
	assert.Equal(t, []string{"s4 #1 s3,s1", "s5 #2 s4,s2"}, bound, "the gold plan's compares are bound to the presidency's dates")
	var s1 []string
	for _, s := range row.Trace.Subgoals {
		if s.ID != "s1" {
			continue
		}
		for _, r := range s.Rounds {
			for _, c := range r.Chosen {
				s1 = append(s1, c.ID)
			}
			for _, f := range r.Facts {
				s1 = append(s1, f.Tail.Name)
			}
		}
	}
	assert.Contains(t, s1, "government.politician.government_positions_held", "s1 explores the gold path")
	assert.Contains(t, s1, "1861-03-04", "the presidency's start is among s1's facts")
	ans := readRows(t, filepath.Join(dir, "evidence.jsonl"))["bound-1"]
	require.NotNil(t, ans)
	assert.NotEqual(t, kgqa.StopSufficient, ans.Stop, "not stopped with the gold among other conflicts")
	for _, s := range ans.Subgoals {
		if s.ID == "s4" || s.ID == "s5" {
			assert.Equal(t, "done", s.Status, "the bound compare %s ran", s.ID)
		}
	}
}
