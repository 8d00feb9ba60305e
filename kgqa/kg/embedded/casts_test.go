package embedded_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/internal/realdata"
	"github.com/parog/parog-go/kgqa/kg/backend"
	"github.com/parog/parog-go/kgqa/kg/embedded"
	"github.com/parog/parog-go/kgqa/kg/endpoint"
	"github.com/parog/parog-go/kgqa/kgdata/virtuosotest"
	"github.com/parog/parog-go/sparql2plan"
)

const (
	ns  = "http://rdf.freebase.com/ns/"
	xsd = "http://www.w3.org/2001/XMLSchema#"
)

// sortValues are the four values each superlative's sort variable takes,
// one per candidate answer, in the forms Freebase writes, with their rank
// by value (0 the latest or largest). They are written in neither value
// nor lexical order, so that no accident of storage orders them.
var sortValues = map[string][]struct {
	lit  string
	rank int
}{
	"datetime": {
		{`"2001-07"^^<` + xsd + `gYearMonth>`, 2},           // 2001-07-01
		{`"1999-05-01"^^<` + xsd + `date>`, 3},              // 1999-05-01
		{`"2003"^^<` + xsd + `gYear>`, 0},                   // 2003-01-01
		{`"2002-01-01T10:00:00"^^<` + xsd + `dateTime>`, 1}, // 2002-01-01 10:00
	},
	"number": {
		{`"33.25"^^<` + xsd + `double>`, 2},
		{`"1000"^^<` + xsd + `integer>`, 0},
		{`"7.5"^^<` + xsd + `float>`, 3},
		{`"120"^^<` + xsd + `int>`, 1},
	},
}

var (
	orderRE  = regexp.MustCompile(`ORDER BY (DESC|ASC)?\(?xsd:(datetime|dateTime|float|integer)\((\?\w+)\)\)?`)
	tripleRE = regexp.MustCompile(`^(\?\w+|ns:\S+) (ns:\S+) (\?\w+|ns:\S+) \.$`)
)

// superlative is a real CWQ superlative and the graph built for it.
type superlative struct {
	id, query string
	desc      bool
	// want are the answers, best first.
	want  []string
	graph []string
}

// instantiate builds four candidate answers for a real CWQ superlative:
// the variables tied to a constant (the topic) are shared, every other
// variable gets one node per candidate, and the sort variable the
// candidate's value. It returns false for queries it cannot read (other
// filters, literals in the pattern).
func instantiate(id, q string) (superlative, bool) {
	m := orderRE.FindStringSubmatch(q)
	if m == nil || strings.Contains(q, "EXISTS") {
		return superlative{}, false
	}
	kind := "number"
	if strings.EqualFold(m[2], "datetime") {
		kind = "datetime"
	}
	body := q[strings.Index(q, "{")+1 : strings.LastIndex(q, "}")]
	var triples [][3]string
	anchored := map[string]bool{}
	for _, line := range strings.Split(body, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "FILTER") {
			continue
		}
		t := tripleRE.FindStringSubmatch(line)
		if t == nil {
			return superlative{}, false
		}
		triples = append(triples, [3]string{t[1], t[2], t[3]})
		if !strings.HasPrefix(t[1], "?") || !strings.HasPrefix(t[3], "?") {
			anchored[t[1]], anchored[t[3]] = true, true
		}
	}
	if anchored["?x"] || anchored[m[3]] {
		return superlative{}, false
	}
	node := func(v string, k int) string {
		if !strings.HasPrefix(v, "?") {
			return "<" + ns + strings.TrimPrefix(v, "ns:") + ">"
		}
		if anchored[v] {
			return fmt.Sprintf("<%sm.t_%s>", ns, v[1:])
		}
		return fmt.Sprintf("<%sm.t_%s_%d>", ns, v[1:], k)
	}
	s := superlative{id: id, query: q, desc: m[1] == "DESC"}
	seen := map[string]bool{}
	s.want = make([]string, len(sortValues[kind]))
	for k, val := range sortValues[kind] {
		for _, t := range triples {
			o := node(t[2], k)
			if t[2] == m[3] {
				o = val.lit
			}
			line := node(t[0], k) + " <" + ns + strings.TrimPrefix(t[1], "ns:") + "> " + o + " ."
			if !seen[line] {
				seen[line] = true
				s.graph = append(s.graph, line)
			}
		}
		s.want[val.rank] = strings.Trim(node("?x", k), "<>")
	}
	if !s.desc {
		for i, j := 0, len(s.want)-1; i < j; i, j = i+1, j-1 {
			s.want[i], s.want[j] = s.want[j], s.want[i]
		}
	}
	return s, true
}

// realSuperlatives reads the superlatives that sort by a cast from a CWQ
// file.
func realSuperlatives(t *testing.T, path string) []superlative {
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var qs []struct{ ID, Sparql string }
	require.NoError(t, json.Unmarshal(b, &qs))
	// Every numeric one, and date ones up to 24 in all: each costs a
	// load into Virtuoso.
	var nums, dates []superlative
	for _, q := range qs {
		s, ok := instantiate(q.ID, q.Sparql)
		switch {
		case !ok:
		case strings.Contains(strings.ToLower(s.query), "xsd:datetime("):
			dates = append(dates, s)
		default:
			nums = append(nums, s)
		}
	}
	return append(nums, dates[:min(len(dates), max(24-len(nums), 0))]...)
}

// withoutLimit lists every candidate in order instead of the best one.
var limitRE = regexp.MustCompile(`(?i)\bLIMIT\s+\d+`)

func column(rows []map[string]backend.Node) []string {
	var out []string
	for _, r := range rows {
		out = append(out, r["x"].Value)
	}
	return out
}

// TestCastsOrderAsOnVirtuoso runs real CWQ superlatives, ORDER BY
// DESC(xsd:datetime(?sk0)) and the numeric casts, over candidates whose
// values mix xsd:date, xsd:gYear, xsd:gYearMonth and xsd:dateTime (or
// integer, int, double and float), on the embedded store and on a real
// Virtuoso, and wants both to order them by value.
// It runs on the CWQ sample's excerpt in testdata, which a fresh clone
// has, and on the whole sample when the real data is present.
func TestCastsOrderAsOnVirtuoso(t *testing.T) {
	t.Run("excerpt", func(t *testing.T) {
		castsOrderAsOnVirtuoso(t, realSuperlatives(t, realdata.Excerpt(t, "cwq_sample.json")), 3)
	})
	t.Run("whole", func(t *testing.T) {
		castsOrderAsOnVirtuoso(t, realSuperlatives(t, realdata.Path(t, "cwq_sample.json")), 10)
	})
}

func castsOrderAsOnVirtuoso(t *testing.T, sups []superlative, least int) {
	require.GreaterOrEqual(t, len(sups), least, "the CWQ file should hold superlatives over a cast")
	dir := t.TempDir()
	var graphFiles []string
	for i, s := range sups {
		f := filepath.Join(dir, fmt.Sprintf("q%03d.nt", i))
		require.NoError(t, os.WriteFile(f, []byte(strings.Join(s.graph, "\n")+"\n"), 0o644))
		graphFiles = append(graphFiles, f)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	v := virtuosotest.New(t)
	for i, s := range sups {
		g := fmt.Sprintf("urn:parog:cast:%d", i)
		require.NoError(t, v.Load(ctx, g, graphFiles[i]))
		store, err := embedded.Open(ctx, "", []string{graphFiles[i]}, "", 0)
		require.NoError(t, err)
		t.Run(s.id, func(t *testing.T) {
			defer func() { _ = store.Close() }()
			q := limitRE.ReplaceAllString(s.query, "")
			std, _ := sparql2plan.Normalize(q)
			et, err := store.Query(ctx, std)
			require.NoError(t, err)
			ep, err := endpoint.New(v.GraphURL(g), endpoint.Options{Timeout: time.Minute})
			require.NoError(t, err)
			vt, err := ep.Query(ctx, q)
			require.NoError(t, err)
			assert.Equal(t, s.want, column(et.Rows), "embedded store")
			assert.Equal(t, s.want, column(vt.Rows), "Virtuoso")
		})
	}
}
