package oracle

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa/prompts"
)

func TestEachFormatNoiseKind(t *testing.T) {
	rel := chatRequest(t, prompts.Relations, sampleData()[prompts.Relations], true)
	clean := demoModel(t).Answer(rel, "").Content
	for _, kind := range FormatKinds {
		t.Run(kind, func(t *testing.T) {
			stage, req := prompts.Relations, rel
			if kind == NoiseMisspelled {
				stage = prompts.Refine
				req = chatRequest(t, stage, sampleData()[stage], true)
			}
			m := demoModel(t, WithNoise(Noise{Rate: 1, Seed: 7, Kinds: []string{kind}}))
			rep := m.Answer(req, "")
			require.Equal(t, http.StatusOK, rep.Status)
			assert.Equal(t, kind, rep.Noise)
			assert.Equal(t, 1, m.Stats().Noisy[kind])
			var obj map[string]any
			decodes := json.Unmarshal([]byte(rep.Content), &obj) == nil
			switch kind {
			case NoiseFence:
				assert.True(t, strings.HasPrefix(rep.Content, "```json\n") && strings.HasSuffix(rep.Content, "\n```"), rep.Content)
			case NoiseProse:
				assert.Contains(t, rep.Content, clean)
				assert.False(t, decodes)
			case NoiseTrailing:
				assert.Contains(t, rep.Content, ",}")
				assert.False(t, decodes)
			case NoiseUnoffered:
				assert.Contains(t, rep.Content, "people.person.favorite_color")
			case NoiseCaseDir:
				assert.True(t, strings.Contains(rep.Content, "LOCATION.COUNTRY.CAPITAL") || strings.Contains(rep.Content, `"dir":"in"`), rep.Content)
			case NoiseMisspelled:
				require.True(t, decodes)
				assert.NotEqual(t, []any{"m.0156q"}, obj["entities"])
			case NoiseMissingField:
				require.True(t, decodes)
				assert.NotContains(t, obj, "relations", "the one required field is gone")
			case NoiseCutOff:
				assert.Equal(t, "length", rep.FinishReason)
				assert.Equal(t, clean[:len(clean)/2], rep.Content)
			case NoiseEmpty:
				assert.Empty(t, rep.Content)
			case NoiseRefusal:
				assert.Equal(t, refusal, rep.Content)
			}
		})
	}
}

func TestNoiseIsReproducible(t *testing.T) {
	d := sampleData()
	replies := func(seed int64) []string {
		m := demoModel(t, WithNoise(Noise{Rate: 0.5, Seed: seed}))
		var out []string
		for range 3 { // the same requests again: fresh draws, the same ones each run
			for _, stage := range prompts.Names {
				out = append(out, m.Answer(chatRequest(t, stage, d[stage], true), "").Content)
			}
		}
		return out
	}
	a := replies(1)
	assert.Equal(t, a, replies(1), "the same seed gives the same errors")
	assert.NotEqual(t, a, replies(2), "another seed gives other errors")
	clean := demoModel(t)
	n := 0
	for i, stage := range prompts.Names {
		if a[i] != clean.Answer(chatRequest(t, stage, d[stage], true), "").Content {
			n++
		}
	}
	assert.Positive(t, n, "some replies are corrupted at rate 0.5")
	assert.Less(t, n, len(prompts.Names), "not all of them")
}

func TestParseNoiseKinds(t *testing.T) {
	ks, err := ParseNoiseKinds(" fence, empty ")
	require.NoError(t, err)
	assert.Equal(t, []string{NoiseFence, NoiseEmpty}, ks)
	ks, err = ParseNoiseKinds("semantic")
	require.NoError(t, err)
	assert.Equal(t, SemanticKinds, ks)
	ks, err = ParseNoiseKinds("format,wrong_relation,fence")
	require.NoError(t, err)
	assert.Equal(t, append(append([]string{}, FormatKinds...), NoiseWrongRelation), ks, "a kind is listed once")
	ks, err = ParseNoiseKinds("all")
	require.NoError(t, err)
	assert.Len(t, ks, len(FormatKinds)+len(SemanticKinds))
	ks, err = ParseNoiseKinds("")
	require.NoError(t, err)
	assert.Empty(t, ks)
	_, err = ParseNoiseKinds("fence,typo")
	assert.ErrorContains(t, err, `"typo"`)
}

// TestFoldedReplyCanLoseItsSufficiency: a missing field in the folded
// refine reply can be the sufficiency verdict, as it can in a separate
// sufficiency reply; the unfolded refine reply carries none.
func TestFoldedReplyCanLoseItsSufficiency(t *testing.T) {
	for _, fused := range []bool{true, false} {
		d := sampleData()[prompts.Refine].(prompts.RefineData)
		d.Fused = fused
		req := chatRequest(t, prompts.Refine, d, true)
		lost := map[string]int{}
		for seed := range int64(60) {
			m := demoModel(t, WithNoise(Noise{Rate: 1, Seed: seed, Kinds: []string{NoiseMissingField}}))
			var obj map[string]any
			require.NoError(t, json.Unmarshal([]byte(m.Answer(req, "").Content), &obj))
			for _, f := range []string{"aligned", "answer", "entities", "used_facts", "sufficient"} {
				if _, ok := obj[f]; !ok {
					lost[f]++
				}
			}
		}
		if fused {
			assert.Positive(t, lost["sufficient"], "the folded reply loses its sufficiency verdict some of the time: %v", lost)
		} else {
			assert.Equal(t, 60, lost["sufficient"], "the unfolded reply has no sufficiency verdict: %v", lost)
		}
		assert.Positive(t, lost["aligned"], "%v", lost)
	}
}
