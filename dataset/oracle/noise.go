package oracle

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
)

// The families of noise kinds: format errors (noise_format.go) break the
// reply's form; semantic errors (noise_semantic.go, noise_plan.go) keep it
// well formed and valid for the stage's schema but say something wrong.
const (
	FamilyFormat   = "format"
	FamilySemantic = "semantic"
	FamilyAll      = "all"
)

// NoiseKinds lists every kind, format kinds first, in a fixed order.
var NoiseKinds = append(slices.Clone(FormatKinds), SemanticKinds...)

// Noise corrupts a share Rate of the replies, each with one kind drawn
// uniformly from Kinds among those that apply to the reply (relation
// errors to relation choices, misspellings to replies naming entities,
// plan errors to plans). The draw depends only on Seed, the request's
// messages and how many times the same request was seen, so a run is
// reproducible whatever the order in which requests arrive, and a retried
// request can come back clean as it would from a sampled model.
type Noise struct {
	// Rate is the share of replies corrupted, in [0, 1].
	Rate float64
	// Seed selects the reproducible sequence of errors.
	Seed int64
	// Kinds are the kinds enabled; empty enables the format family (the
	// kinds the oracle had before it had semantic ones, so that figures
	// measured then can be measured again).
	Kinds []string
}

// ParseNoiseKinds reads a comma-separated list of kinds and family names
// (format, semantic, all); "" is the format family's kinds. Families
// expand to their kinds; each kind is listed once.
func ParseNoiseKinds(s string) ([]string, error) {
	var out []string
	add := func(ks ...string) {
		for _, k := range ks {
			if !slices.Contains(out, k) {
				out = append(out, k)
			}
		}
	}
	for _, k := range strings.Split(s, ",") {
		switch k = strings.TrimSpace(k); {
		case k == "":
		case k == FamilyFormat:
			add(FormatKinds...)
		case k == FamilySemantic:
			add(SemanticKinds...)
		case k == FamilyAll:
			add(NoiseKinds...)
		case slices.Contains(NoiseKinds, k):
			add(k)
		default:
			return nil, fmt.Errorf("oracle: unknown noise kind %q (want a family: format, semantic, all; or some of %s)", k, strings.Join(NoiseKinds, ", "))
		}
	}
	return out, nil
}

// draft is a reply before the noise: what a noise kind reads and changes.
type draft struct {
	stage string
	// obj is the reply object (nil for a plan, whose text is content).
	obj     map[string]any
	content string
	// t is the turn that computed the reply: the prompt and the gold.
	t *turn
}

// noiseKind is how one kind of error applies to replies.
type noiseKind struct {
	// applies reports whether the kind can corrupt this reply.
	applies func(d *draft) bool
	// apply returns the corrupted content and the finish reason.
	apply func(r *rand.Rand, d *draft) (content, finish string)
}

// noiseTable holds every kind, by name.
var noiseTable = joinTables(formatTable, semanticTable, planTable)

func joinTables(ts ...map[string]noiseKind) map[string]noiseKind {
	out := map[string]noiseKind{}
	for _, t := range ts {
		for k, v := range t {
			out[k] = v
		}
	}
	return out
}

// corrupt applies the noise to a reply. It returns the content, the
// finish reason and the kind applied ("" for none).
func (n Noise) corrupt(r *rand.Rand, d *draft) (string, string, string) {
	if n.Rate <= 0 || r.Float64() >= n.Rate {
		return d.content, "stop", ""
	}
	enabled := n.Kinds
	if len(enabled) == 0 {
		enabled = FormatKinds
	}
	var kinds []string
	for _, k := range NoiseKinds {
		if slices.Contains(enabled, k) && noiseTable[k].applies(d) {
			kinds = append(kinds, k)
		}
	}
	if len(kinds) == 0 {
		return d.content, "stop", ""
	}
	k := kinds[r.IntN(len(kinds))]
	content, finish := noiseTable[k].apply(r, d)
	return content, finish, k
}

// copyObj is a shallow copy of a reply object, to corrupt.
func copyObj(obj map[string]any) map[string]any {
	out := make(map[string]any, len(obj))
	for key, v := range obj {
		out[key] = v
	}
	return out
}
