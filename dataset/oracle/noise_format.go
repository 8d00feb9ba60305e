package oracle

import (
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/parog/parog-go/kgqa/prompts"
)

// The format errors the oracle makes on purpose, each one real models are
// seen to make: the reply's form breaks (or names something the prompt
// did not offer), and the engine's parsing and repair turn must cope.
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

// FormatKinds lists the format family, in a fixed order.
var FormatKinds = []string{NoiseFence, NoiseProse, NoiseTrailing, NoiseUnoffered, NoiseCaseDir, NoiseMisspelled,
	NoiseMissingField, NoiseCutOff, NoiseEmpty, NoiseRefusal}

const refusal = "I'm sorry, but I can't help with that request."

func always(*draft) bool { return true }

// stopped wraps a content-only corruption with finish reason "stop".
func stopped(f func(r *rand.Rand, d *draft) string) func(r *rand.Rand, d *draft) (string, string) {
	return func(r *rand.Rand, d *draft) (string, string) { return f(r, d), "stop" }
}

var formatTable = map[string]noiseKind{
	NoiseFence: {always, stopped(func(_ *rand.Rand, d *draft) string { return "```json\n" + d.content + "\n```" })},
	NoiseProse: {always, stopped(func(_ *rand.Rand, d *draft) string {
		return "Sure! Here is my answer:\n" + d.content + "\nI hope this helps."
	})},
	NoiseTrailing: {func(d *draft) bool { return strings.HasPrefix(d.stage, "plan") || d.obj != nil },
		stopped(func(_ *rand.Rand, d *draft) string {
			i := strings.LastIndexByte(d.content, '}')
			return d.content[:i] + ",}" + d.content[i+1:]
		})},
	NoiseUnoffered: {choosesRelations, stopped(func(_ *rand.Rand, d *draft) string {
		out := copyObj(d.obj)
		rs := slices.Clone(out["relations"].([]map[string]string))
		rs[0] = map[string]string{"id": "people.person.favorite_color", "dir": "out"}
		out["relations"] = rs
		return marshal(out)
	})},
	NoiseCaseDir: {choosesRelations, stopped(func(r *rand.Rand, d *draft) string {
		out := copyObj(d.obj)
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
		return marshal(out)
	})},
	NoiseMisspelled: {func(d *draft) bool { return len(names(d.obj)) > 0 }, stopped(func(_ *rand.Rand, d *draft) string {
		out := copyObj(d.obj)
		for _, key := range []string{"entities", "mentions", "final_entities"} {
			if xs, ok := out[key].([]string); ok && len(xs) > 0 {
				xs = slices.Clone(xs)
				xs[0] = misspell(xs[0])
				out[key] = xs
				break
			}
		}
		return marshal(out)
	})},
	NoiseMissingField: {func(d *draft) bool { return d.obj != nil && len(requiredIn(d.stage, d.obj)) > 0 },
		stopped(func(r *rand.Rand, d *draft) string {
			out := copyObj(d.obj)
			req := requiredIn(d.stage, d.obj)
			delete(out, req[r.IntN(len(req))])
			return marshal(out)
		})},
	NoiseCutOff:  {always, func(_ *rand.Rand, d *draft) (string, string) { return d.content[:len(d.content)/2], "length" }},
	NoiseEmpty:   {always, stopped(func(*rand.Rand, *draft) string { return "" })},
	NoiseRefusal: {always, stopped(func(*rand.Rand, *draft) string { return refusal })},
}

// choosesRelations reports whether the reply is a relations choice naming
// at least one relation.
func choosesRelations(d *draft) bool {
	rs, _ := d.obj["relations"].([]map[string]string)
	return d.stage == prompts.Relations && len(rs) > 0
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
