package config

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLoadFilesMergesKeyByKey(t *testing.T) {
	kgDir := t.TempDir()
	kgFile := filepath.Join(kgDir, "kg.yaml")
	require.NoError(t, os.WriteFile(kgFile, []byte("kg:\n  files: [slice.nt.gz]\n  cache_size: 7\nllm:\n  reasoner:\n    base_url: http://kg-file:1/v1\n    model: from-kg\n    timeout: 9s\n"), 0o644))
	modelFile := writeFile(t, "llm:\n  reasoner:\n    base_url: http://localhost:11434/v1\n    model: llama3.1:8b\n")

	cfg, src, err := LoadFiles([]string{kgFile, modelFile}, envOf(map[string]string{"PAROG_ENGINE_WIDTH": "5"}), []string{"engine.depth=3"})
	require.NoError(t, err)
	assert.Equal(t, []string{filepath.Join(kgDir, "slice.nt.gz")}, cfg.KG.Files, "the first file's paths stay relative to it")
	assert.Equal(t, 7, cfg.KG.CacheSize, "a key only the first file sets survives the second")
	assert.Equal(t, "http://localhost:11434/v1", cfg.LLM.Reasoner.BaseURL, "the later file wins")
	assert.Equal(t, "llama3.1:8b", cfg.LLM.Reasoner.Model)
	assert.Equal(t, "9s", cfg.LLM.Reasoner.Timeout.String(), "keys the later file leaves out keep the earlier value")

	assert.Equal(t, kgFile, src.Of("kg.files"))
	assert.Equal(t, kgFile, src.Of("llm.reasoner.timeout"))
	assert.Equal(t, modelFile, src.Of("llm.reasoner.base_url"))
	assert.Equal(t, "PAROG_ENGINE_WIDTH", src.Of("engine.width"))
	assert.Equal(t, "--set", src.Of("engine.depth"))
	assert.Equal(t, "default", src.Of("engine.max_rounds"))
}

func TestLoadFilesWithoutKGIsTheDemoGraph(t *testing.T) {
	models := writeFile(t, "llm:\n  reasoner:\n    base_url: http://localhost:11434/v1\n    model: m\n")
	cfg, src, err := LoadFiles([]string{models}, envOf(nil), nil)
	require.NoError(t, err)
	assert.Equal(t, []string{DemoGraph}, cfg.KG.Files)
	assert.Contains(t, src.Of("kg.files"), "no KG configured")

	store := writeFile(t, "kg:\n  dir: store\n")
	cfg, _, err = LoadFiles([]string{store}, envOf(nil), nil)
	require.NoError(t, err)
	assert.Empty(t, cfg.KG.Files, "a store directory is a KG")
}

func TestCheckKeys(t *testing.T) {
	hosted := func(base, keyEnv string) Config {
		c := Default()
		c.LLM.Reasoner.BaseURL, c.LLM.Reasoner.Model, c.LLM.Reasoner.APIKeyEnv = base, "m", keyEnv
		return c
	}
	cases := []struct {
		name string
		cfg  Config
		env  map[string]string
		err  string
	}{
		{"hosted without its key", hosted("https://api.openai.com/v1", "OPENAI_API_KEY"), nil, "OPENAI_API_KEY is not set"},
		{"hosted with an empty key", hosted("https://api.openai.com/v1", "OPENAI_API_KEY"), map[string]string{"OPENAI_API_KEY": " "}, "OPENAI_API_KEY is not set"},
		{"hosted with its key", hosted("https://api.openai.com/v1", "OPENAI_API_KEY"), map[string]string{"OPENAI_API_KEY": "sk-x"}, ""},
		{"loopback wants no key", hosted("http://127.0.0.1:11434/v1", "OPENAI_API_KEY"), nil, ""},
		{"localhost wants no key", hosted("http://localhost:8000/v1", "VLLM_API_KEY"), nil, ""},
		{"compose service wants no key", hosted("http://vllm-planner:8000/v1", "VLLM_API_KEY"), nil, ""},
		{"private network wants no key", hosted("http://10.1.2.3:8000/v1", "VLLM_API_KEY"), nil, ""},
		{"no key variable named", hosted("https://api.openai.com/v1", ""), nil, ""},
		{"unconfigured role", hosted("", "OPENAI_API_KEY"), nil, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.CheckKeys(envOf(tc.env))
			if tc.err == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.err)
			assert.Contains(t, err.Error(), "llm.reasoner.api_key_env")
		})
	}
}
