package bench

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/parog/parog-go/dataset/eval"
	"github.com/parog/parog-go/dataset/eval/score"
	"github.com/parog/parog-go/kgqa"
)

// DefaultHubRelations is the number of relations (out and in) from which
// an entity counts as a hub in the KG cost: on the dense world the tenth
// busiest entity has 2,177 and the busiest 4,514.
const DefaultHubRelations = 1000

// KGCost is the KG work of a run, read from the traces' usage: the SPARQL
// queries by kind, their latency at hubs and at ordinary entities, and the
// cache lookups by primitive.
type KGCost struct {
	// HubRelations is the threshold: an entity whose relation listing in
	// a question of the run returned at least this many rows (its
	// relations queries' rows added up) is a hub. An entity whose listing
	// came from the cache or from a batched listing of several entities,
	// or was never asked, is ordinary.
	HubRelations int `json:"hub_relations"`
	// Hubs is the number of distinct hubs the run's queries touched.
	Hubs int `json:"hubs"`
	// Questions is the number of rows read; Queries the queries they sent
	// (Dropped of them beyond the per-question log).
	Questions int `json:"questions"`
	Queries   int `json:"queries"`
	Dropped   int `json:"dropped,omitempty"`
	// ByKind is the queries and their latency by kind, busiest first.
	ByKind []KGKind `json:"by_kind"`
	// ByType is the queries per question by question type and kind.
	ByType map[string]map[string]float64 `json:"by_type,omitempty"`
	// Cache is the cache lookups by primitive, with "all" first.
	Cache []KGCache `json:"cache"`
	// Wall is the questions' wall time: with the oracle's instant
	// replies, mostly the KG's.
	Wall Latency `json:"wall"`
}

// KGKind is one kind of query.
type KGKind struct {
	Kind string `json:"kind"`
	// Queries is the number sent; PerQuestion its mean per question.
	Queries     int     `json:"queries"`
	PerQuestion float64 `json:"per_question"`
	// All is the latency of every query of the kind; Hub and Ordinary
	// split the queries anchored at an entity by its class (names,
	// searches and raw selects have no anchor).
	All      Latency `json:"all"`
	Hub      Latency `json:"hub"`
	Ordinary Latency `json:"ordinary"`
	// Failed counts the queries that returned an error.
	Failed int `json:"failed,omitempty"`
	// MeanRows is the mean number of result rows.
	MeanRows float64 `json:"mean_rows"`
}

// Latency summarises query latencies in milliseconds.
type Latency struct {
	N   int     `json:"n"`
	P50 float64 `json:"p50_ms"`
	P99 float64 `json:"p99_ms"`
	Max float64 `json:"max_ms"`
	// Sum is the total time spent, which is what a kind costs a run.
	Sum float64 `json:"sum_ms"`
}

// KGCache is the cache lookups of one primitive.
type KGCache struct {
	Primitive string  `json:"primitive"`
	Hits      int64   `json:"hits"`
	Misses    int64   `json:"misses"`
	HitRate   float64 `json:"hit_rate"`
}

// kgUsage reads the KG usage and the wall time (ms) of a results row's
// trace (nil and 0 when it has none).
func kgUsage(trace json.RawMessage) (*kgqa.KGUsage, int64) {
	var t struct {
		Usage struct {
			KG     *kgqa.KGUsage `json:"kg"`
			WallMS int64         `json:"wall_ms"`
		} `json:"usage"`
	}
	if len(trace) == 0 || json.Unmarshal(trace, &t) != nil {
		return nil, 0
	}
	return t.Usage.KG, t.Usage.WallMS
}

// kgCost sums the KG work of the rows; hubRelations is the hub threshold
// (DefaultHubRelations when <= 0).
func kgCost(rs []eval.Result, hubRelations int) KGCost {
	if hubRelations <= 0 {
		hubRelations = DefaultHubRelations
	}
	c := KGCost{HubRelations: hubRelations, Questions: len(rs), ByType: map[string]map[string]float64{}}
	usages := make([]*kgqa.KGUsage, len(rs))
	hub := map[string]bool{}
	var walls []float64
	for i, r := range rs {
		var wall int64
		usages[i], wall = kgUsage(r.Trace)
		if len(r.Trace) > 0 {
			walls = append(walls, float64(wall))
		}
		if usages[i] == nil {
			continue
		}
		// A listing may be several queries (one per direction): their
		// rows add up.
		listed := map[string]int{}
		for _, q := range usages[i].Queries {
			if q.Kind == "relations" {
				listed[q.Entity] += q.Rows
			}
		}
		for e, n := range listed {
			if n >= hubRelations {
				hub[e] = true
			}
		}
	}
	type acc struct {
		all, hub, ord []float64
		failed, rows  int
	}
	kinds := map[string]*acc{}
	cache := map[string]*KGCache{}
	perType := map[string]int{}
	for i, r := range rs {
		perType[r.Type]++
		u := usages[i]
		if u == nil {
			continue
		}
		c.Dropped += u.Dropped
		if c.ByType[r.Type] == nil {
			c.ByType[r.Type] = map[string]float64{}
		}
		for _, q := range u.Queries {
			a := kinds[q.Kind]
			if a == nil {
				a = &acc{}
				kinds[q.Kind] = a
			}
			a.all = append(a.all, q.MS)
			switch {
			case q.Entity == "":
			case hub[q.Entity]:
				a.hub = append(a.hub, q.MS)
			default:
				a.ord = append(a.ord, q.MS)
			}
			if q.Failed {
				a.failed++
			}
			a.rows += q.Rows
			c.ByType[r.Type][q.Kind]++
			c.Queries++
		}
		for p, n := range u.Cache {
			x := cache[p]
			if x == nil {
				x = &KGCache{Primitive: p}
				cache[p] = x
			}
			x.Hits += n.Hits
			x.Misses += n.Misses
		}
	}
	for t, by := range c.ByType {
		for k := range by {
			by[k] /= float64(max(1, perType[t]))
		}
	}
	for k, a := range kinds {
		c.ByKind = append(c.ByKind, KGKind{Kind: k, Queries: len(a.all), PerQuestion: float64(len(a.all)) / float64(max(1, len(rs))),
			All: latency(a.all), Hub: latency(a.hub), Ordinary: latency(a.ord), Failed: a.failed,
			MeanRows: float64(a.rows) / float64(max(1, len(a.all)))})
	}
	sort.Slice(c.ByKind, func(i, j int) bool {
		if c.ByKind[i].Queries != c.ByKind[j].Queries {
			return c.ByKind[i].Queries > c.ByKind[j].Queries
		}
		return c.ByKind[i].Kind < c.ByKind[j].Kind
	})
	c.Hubs = len(hub)
	c.Cache = cacheRates(cache)
	c.Wall = latency(walls)
	return c
}

// cacheRates lists the primitives' lookups, their total first.
func cacheRates(by map[string]*KGCache) []KGCache {
	all := KGCache{Primitive: "all"}
	var out []KGCache
	for _, x := range by {
		all.Hits += x.Hits
		all.Misses += x.Misses
		x.HitRate = ratio64(x.Hits, x.Hits+x.Misses)
		out = append(out, *x)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Primitive < out[j].Primitive })
	all.HitRate = ratio64(all.Hits, all.Hits+all.Misses)
	return append([]KGCache{all}, out...)
}

func ratio64(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// latency summarises ms.
func latency(ms []float64) Latency {
	if len(ms) == 0 {
		return Latency{}
	}
	s := append([]float64(nil), ms...)
	sort.Float64s(s)
	l := Latency{N: len(s), P50: score.Percentile(s, 0.5), P99: score.Percentile(s, 0.99), Max: s[len(s)-1]}
	for _, x := range s {
		l.Sum += x
	}
	return l
}

// markdown renders the KG cost: queries and latency by kind, queries per
// question by type and kind, and the cache.
func (c KGCost) markdown(b *strings.Builder) {
	fmt.Fprintf(b, "## KG cost (perfect oracle)\n\n%d SPARQL queries over %d questions (%.1f per question); %d hubs met (entities listing at least %d relations).\n\n",
		c.Queries, c.Questions, float64(c.Queries)/math.Max(1, float64(c.Questions)), c.Hubs, c.HubRelations)
	fmt.Fprintf(b, "Question wall time p50 %.0f ms, p99 %.0f ms, max %.0f ms.\n\n", c.Wall.P50, c.Wall.P99, c.Wall.Max)
	if c.Dropped > 0 {
		fmt.Fprintf(b, "%d queries were beyond the per-question log and are not broken down.\n\n", c.Dropped)
	}
	b.WriteString("| kind | queries | per question | mean rows | all p50 / p99 ms | hubs n | hubs p50 / p99 ms | ordinary n | ordinary p50 / p99 ms | total s |\n|---|---|---|---|---|---|---|---|---|---|\n")
	for _, k := range c.ByKind {
		fmt.Fprintf(b, "| %s | %d | %.2f | %.0f | %s | %d | %s | %d | %s | %.1f |\n", k.Kind, k.Queries, k.PerQuestion, k.MeanRows,
			lat(k.All), k.Hub.N, lat(k.Hub), k.Ordinary.N, lat(k.Ordinary), k.All.Sum/1000)
	}
	var kinds []string
	for _, k := range c.ByKind {
		kinds = append(kinds, k.Kind)
	}
	var types []string
	for t := range c.ByType {
		types = append(types, t)
	}
	sort.Strings(types)
	b.WriteString("\nQueries per question by type and kind:\n\n| type | " + strings.Join(kinds, " | ") + " |\n|---" + strings.Repeat("|---", len(kinds)) + "|\n")
	for _, t := range types {
		fmt.Fprintf(b, "| %s |", t)
		for _, k := range kinds {
			fmt.Fprintf(b, " %.2f |", c.ByType[t][k])
		}
		b.WriteString("\n")
	}
	b.WriteString("\nKG cache by primitive:\n\n| primitive | hits | misses | hit rate |\n|---|---|---|---|\n")
	for _, x := range c.Cache {
		fmt.Fprintf(b, "| %s | %d | %d | %.1f%% |\n", x.Primitive, x.Hits, x.Misses, 100*x.HitRate)
	}
	b.WriteString("\n")
}

func lat(l Latency) string {
	if l.N == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f / %.1f", l.P50, l.P99)
}
