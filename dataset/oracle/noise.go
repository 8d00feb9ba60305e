package oracle

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/parog/parog-go/kgqa/prompts"
)

// The kinds of error the oracle makes on purpose, each one real models
// are seen to make.
const (
	NoiseFence        = "fence"          // ```json fences around the JSON
	NoiseProse        = "prose"          // a sentence before and after the JSON
	NoiseTrailing     = "trailing_comma" // a comma before the closing brace
	NoiseUnoffered    = "unoffered"      // a relation that was not offered
	NoiseCaseDir      = "case_or_dir"    // the right relation in upper case or the wrong direction
	NoiseMisspelled   = "misspelled"     // an entity name or id misspelled
	NoiseMissingField = "missing_field"  // a required field left out
	NoiseCutOff       = "cut_off"        // the reply cut off, finish_reason "length"
	NoiseEmpty        = "empty"          // an empty reply
	NoiseRefusal      = "refusal"        // a refusal sentence instead of JSON
)

// NoiseKinds lists every kind, in a fixed order.
var NoiseKinds = []string{NoiseFence, NoiseProse, NoiseTrailing, NoiseUnoffered, NoiseCaseDir, NoiseMisspelled,
	NoiseMissingField, NoiseCutOff, NoiseEmpty, NoiseRefusal}

// Noise corrupts a share Rate of the replies, each with one kind drawn
// uniformly from Kinds (all when empty) among those that apply to the
// reply (relation errors to relation choices, misspellings to replies
// naming entities). The draw depends only on Seed, the request's messages
// and how many times the same request was seen, so a run is reproducible
// whatever the order in which requests arrive, and a retried request can
// come back clean as it would from a sampled model.
type Noise struct {
	// Rate is the share of replies corrupted, in [0, 1].
	Rate float64
	// Seed selects the reproducible sequence of errors.
	Seed int64
	// Kinds are the kinds enabled; empty enables all.
	Kinds []string
}

// ParseNoiseKinds reads a comma-separated list of kinds ("" is all).
func ParseNoiseKinds(s string) ([]string, error) {
	var out []string
	for _, k := range strings.Split(s, ",") {
		k = strings.TrimSpace(k)
		if k == "" {
			continue
		}
		if !slices.Contains(NoiseKinds, k) {
			return nil, fmt.Errorf("oracle: unknown noise kind %q (want some of %s)", k, strings.Join(NoiseKinds, ", "))
		}
		out = append(out, k)
	}
	return out, nil
}

const refusal = "I'm sorry, but I can't help with that request."

// corrupt applies the noise to a reply. It returns the content, the
// finish reason and the kind applied ("" for none).
func (n Noise) corrupt(r *rand.Rand, stage string, obj map[string]any, content string) (string, string, string) {
	if n.Rate <= 0 || r.Float64() >= n.Rate {
		return content, "stop", ""
	}
	var kinds []string
	for _, k := range NoiseKinds {
		if (len(n.Kinds) == 0 || slices.Contains(n.Kinds, k)) && applies(k, stage, obj) {
			kinds = append(kinds, k)
		}
	}
	if len(kinds) == 0 {
		return content, "stop", ""
	}
	k := kinds[r.IntN(len(kinds))]
	switch k {
	case NoiseFence:
		return "```json\n" + content + "\n```", "stop", k
	case NoiseProse:
		return "Sure! Here is my answer:\n" + content + "\nI hope this helps.", "stop", k
	case NoiseTrailing:
		i := strings.LastIndexByte(content, '}')
		return content[:i] + ",}" + content[i+1:], "stop", k
	case NoiseCutOff:
		return content[:len(content)/2], "length", k
	case NoiseEmpty:
		return "", "stop", k
	case NoiseRefusal:
		return refusal, "stop", k
	}
	return marshal(mutate(r, k, stage, obj)), "stop", k
}

// applies reports whether kind k can corrupt this reply.
func applies(k, stage string, obj map[string]any) bool {
	switch k {
	case NoiseUnoffered, NoiseCaseDir:
		rs, _ := obj["relations"].([]map[string]string)
		return stage == prompts.Relations && len(rs) > 0
	case NoiseMisspelled:
		return len(names(obj)) > 0
	case NoiseMissingField:
		return len(requiredIn(stage, obj)) > 0 && obj != nil
	case NoiseTrailing:
		return strings.HasPrefix(stage, "plan") || obj != nil
	}
	return true
}

// names is the list of entity references a reply carries, if any.
func names(obj map[string]any) []string {
	for _, key := range []string{"entities", "mentions", "final_entities"} {
		if xs, ok := obj[key].([]string); ok && len(xs) > 0 {
			return xs
		}
	}
	return nil
}

// required are the fields the stage's reply schema requires.
func required(stage string) []string {
	var s struct {
		Required []string `json:"required"`
	}
	_ = json.Unmarshal(prompts.Schema(stage), &s)
	return s.Required
}

// requiredIn are the fields a reply cannot do without: its schema's
// required fields and, in a refine reply that carries the sufficiency
// verdict (the folded call), "sufficient", which the engine requires
// there. So a folded reply can lose its sufficiency verdict as a separate
// sufficiency reply can, and the two modes meet the same noise.
func requiredIn(stage string, obj map[string]any) []string {
	req := required(stage)
	if _, ok := obj["sufficient"]; ok && stage == prompts.Refine {
		req = append(req, "sufficient")
	}
	return req
}

// mutate returns a corrupted copy of the reply object.
func mutate(r *rand.Rand, k, stage string, obj map[string]any) map[string]any {
	out := make(map[string]any, len(obj))
	for key, v := range obj {
		out[key] = v
	}
	switch k {
	case NoiseUnoffered:
		rs := slices.Clone(out["relations"].([]map[string]string))
		rs[0] = map[string]string{"id": "people.person.favorite_color", "dir": "out"}
		out["relations"] = rs
	case NoiseCaseDir:
		rs := slices.Clone(out["relations"].([]map[string]string))
		first := map[string]string{"id": rs[0]["id"], "dir": rs[0]["dir"]}
		if r.IntN(2) == 0 {
			first["id"] = strings.ToUpper(first["id"])
		} else if first["dir"] == "out" {
			first["dir"] = "in"
		} else {
			first["dir"] = "out"
		}
		rs[0] = first
		out["relations"] = rs
	case NoiseMisspelled:
		for _, key := range []string{"entities", "mentions", "final_entities"} {
			if xs, ok := out[key].([]string); ok && len(xs) > 0 {
				xs = slices.Clone(xs)
				xs[0] = misspell(xs[0])
				out[key] = xs
				break
			}
		}
	case NoiseMissingField:
		req := requiredIn(stage, obj)
		delete(out, req[r.IntN(len(req))])
	}
	return out
}

// misspell swaps two neighbouring letters near the middle of s, or doubles
// its last letter when it is too short to swap.
func misspell(s string) string {
	b := []rune(s)
	if len(b) < 3 {
		return s + s[len(s)-1:]
	}
	i := len(b) / 2
	if b[i] == b[i-1] {
		return string(b) + string(b[len(b)-1])
	}
	b[i], b[i-1] = b[i-1], b[i]
	return string(b)
}
