package main

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestConfigLayersKGAndModel is the layering the configs/llm-*.yaml files
// are for: the slice's KG from one file, Ollama from the other, and each
// value's source shown.
func TestConfigLayersKGAndModel(t *testing.T) {
	code, out, errOut := runParog(t, nil, "config", "--config", "../../configs/fb15k237.yaml", "--config", "../../configs/llm-ollama.yaml")
	require.Equal(t, 0, code, errOut)
	row := func(key string) string {
		return regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(key) + `\s.*$`).FindString(out)
	}
	assert.Regexp(t, `\[\.\./\.\./out/fb15k237\.nt\.gz\]\s+\.\./\.\./configs/fb15k237\.yaml`, row("kg.files"))
	assert.Regexp(t, `http://localhost:11434/v1\s+\.\./\.\./configs/llm-ollama\.yaml`, row("llm.reasoner.base_url"))
	assert.Regexp(t, `llama3\.1:8b\s+\.\./\.\./configs/llm-ollama\.yaml`, row("llm.reasoner.model"))
	assert.Regexp(t, `2m0s\s+\.\./\.\./configs/fb15k237\.yaml`, row("engine.deadline"))
	assert.Regexp(t, `\sdefault\s`, row("engine.max_offered_relations"))
}
