package finetune

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/parog/parog-go/kgqa/config"
)

const configDir = "../configs/finetune"

// allowList reads one name per line, skipping comments and blank lines.
func allowList(t *testing.T, path string) map[string]bool {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	out := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		require.False(t, out[l], "%s lists %q twice", path, l)
		out[l] = true
	}
	require.NoError(t, sc.Err())
	require.NotEmpty(t, out)
	return out
}

func loadYAML(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, yaml.Unmarshal(b, &m), path)
	require.NotEmpty(t, m, path)
	return m
}

func unknownKeys(m map[string]any, allowed map[string]bool) []string {
	var bad []string
	for k := range m {
		if !allowed[k] {
			bad = append(bad, k)
		}
	}
	sort.Strings(bad)
	return bad
}

// TestEveryConfigIsChecked makes sure no file in configs/finetune escapes
// the checks below.
func TestEveryConfigIsChecked(t *testing.T) {
	files, err := os.ReadDir(configDir)
	require.NoError(t, err)
	var names []string
	for _, f := range files {
		names = append(names, f.Name())
	}
	assert.ElementsMatch(t, []string{
		"llama3.1-8b-planner-full.yaml", "llama3.1-8b-planner-lora.yaml", "llama3.1-8b-planner-merge.yaml",
		"ds_z3_config.json", "vllm-planner.yaml", "vllm-planner-lora.yaml", "serve-planner.sh",
		"parog-planner-vllm.yaml",
	}, names)
}

func TestLLaMAFactoryConfigs(t *testing.T) {
	allowed := allowList(t, "testdata/llamafactory_args.txt")
	for _, name := range []string{"llama3.1-8b-planner-full.yaml", "llama3.1-8b-planner-lora.yaml"} {
		t.Run(name, func(t *testing.T) {
			m := loadYAML(t, filepath.Join(configDir, name))
			assert.Empty(t, unknownKeys(m, allowed), "keys LLaMA-Factory does not know")
			assert.Equal(t, "meta-llama/Llama-3.1-8B-Instruct", m["model_name_or_path"])
			assert.Equal(t, "sft", m["stage"])
			assert.Equal(t, true, m["do_train"])
			assert.Equal(t, "llama3", m["template"], "Llama-3.1 chat template")
			// The loss must fall on the plan tokens only, and say so.
			require.Contains(t, m, "train_on_prompt")
			assert.Equal(t, false, m["train_on_prompt"])
			// The dataset names are the ones export writes.
			assert.Equal(t, DatasetTrain, m["dataset"])
			assert.Equal(t, DatasetValidation, m["eval_dataset"])
			assert.Equal(t, true, m["bf16"])
			assert.GreaterOrEqual(t, m["cutoff_len"], 1024)
			switch m["finetuning_type"] {
			case "full":
				ds, ok := m["deepspeed"].(string)
				require.True(t, ok, "full SFT of an 8B model needs ZeRO-3")
				checkDeepSpeed(t, filepath.Join("..", ds))
				assert.LessOrEqual(t, m["learning_rate"], 5e-5)
			case "lora":
				assert.Equal(t, "all", m["lora_target"])
				assert.Greater(t, m["learning_rate"], 5e-5)
			default:
				t.Fatalf("finetuning_type %v", m["finetuning_type"])
			}
		})
	}
	t.Run("merge", func(t *testing.T) {
		m := loadYAML(t, filepath.Join(configDir, "llama3.1-8b-planner-merge.yaml"))
		assert.Empty(t, unknownKeys(m, allowed))
		lora := loadYAML(t, filepath.Join(configDir, "llama3.1-8b-planner-lora.yaml"))
		assert.Equal(t, lora["output_dir"], m["adapter_name_or_path"], "merges the adapter the LoRA run writes")
		assert.Equal(t, "llama3", m["template"])
	})
}

func checkDeepSpeed(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var ds struct {
		Zero struct {
			Stage int `json:"stage"`
		} `json:"zero_optimization"`
		BF16 struct {
			Enabled any `json:"enabled"`
		} `json:"bf16"`
	}
	require.NoError(t, json.Unmarshal(b, &ds))
	assert.Equal(t, 3, ds.Zero.Stage)
	assert.Equal(t, "auto", ds.BF16.Enabled)
}

func TestVLLMConfigs(t *testing.T) {
	allowed := allowList(t, "testdata/vllm_serve_args.txt")
	for _, name := range []string{"vllm-planner.yaml", "vllm-planner-lora.yaml"} {
		t.Run(name, func(t *testing.T) {
			m := loadYAML(t, filepath.Join(configDir, name))
			assert.Empty(t, unknownKeys(m, allowed), "keys vllm serve does not know")
			// Guided decoding on, with a backend vLLM v0.10.1 has.
			assert.Contains(t, []any{"auto", "xgrammar", "guidance", "outlines"}, m["guided-decoding-backend"])
			assert.Equal(t, "127.0.0.1", m["host"])
			assert.Equal(t, "bfloat16", m["dtype"])
		})
	}
	lora := loadYAML(t, filepath.Join(configDir, "vllm-planner-lora.yaml"))
	adapter := loadYAML(t, filepath.Join(configDir, "llama3.1-8b-planner-lora.yaml"))
	assert.Equal(t, "parog-planner="+adapter["output_dir"].(string), lora["lora-modules"])
	assert.GreaterOrEqual(t, lora["max-lora-rank"], adapter["lora_rank"])

	script, err := os.ReadFile(filepath.Join(configDir, "serve-planner.sh"))
	require.NoError(t, err)
	assert.Contains(t, string(script), "vllm serve")
	assert.Contains(t, string(script), "vllm-planner.yaml")
	full := loadYAML(t, filepath.Join(configDir, "llama3.1-8b-planner-full.yaml"))
	assert.Contains(t, string(script), full["output_dir"].(string), "serves what the full run writes")
}

// TestParogPlannerConfig loads the example with PARoG's own loader and
// checks that the planner role points at what vllm-planner.yaml serves.
func TestParogPlannerConfig(t *testing.T) {
	getenv := func(string) (string, bool) { return "", false }
	cfg, err := config.Load(filepath.Join(configDir, "parog-planner-vllm.yaml"), getenv, nil)
	require.NoError(t, err)
	vl := loadYAML(t, filepath.Join(configDir, "vllm-planner.yaml"))
	p := cfg.LLM.Planner
	assert.Equal(t, vl["served-model-name"], p.Model)
	u, err := url.Parse(p.BaseURL)
	require.NoError(t, err)
	assert.Equal(t, vl["host"], u.Hostname())
	assert.Equal(t, "8000", u.Port())
	assert.Equal(t, vl["port"], 8000)
	assert.Equal(t, "/v1", u.Path)
	assert.True(t, p.JSONSchema, "the client must send the Plan schema for guided decoding")
	assert.Zero(t, p.Temperature)
	assert.GreaterOrEqual(t, p.MaxTokens, 400)
}

// servedModels returns, per "host:port", the model names the shipped vLLM
// configs serve there: vllm-planner.yaml's served-model-name, and for
// vllm-planner-lora.yaml each adapter in lora-modules plus the base model
// the adapter was trained on (vLLM serves the base under its own name).
func servedModels(t *testing.T) map[string][]string {
	t.Helper()
	served := map[string][]string{}
	addr := func(m map[string]any) string { return fmt.Sprintf("%v:%v", m["host"], m["port"]) }

	full := loadYAML(t, filepath.Join(configDir, "vllm-planner.yaml"))
	name, ok := full["served-model-name"].(string)
	require.True(t, ok, "vllm-planner.yaml names the model it serves")
	served[addr(full)] = append(served[addr(full)], name)

	lora := loadYAML(t, filepath.Join(configDir, "vllm-planner-lora.yaml"))
	adapter := loadYAML(t, filepath.Join(configDir, "llama3.1-8b-planner-lora.yaml"))
	served[addr(lora)] = append(served[addr(lora)], adapter["model_name_or_path"].(string))
	for _, mod := range strings.Fields(lora["lora-modules"].(string)) {
		n, _, ok := strings.Cut(mod, "=")
		require.True(t, ok, "lora-modules entry %q is name=path", mod)
		served[addr(lora)] = append(served[addr(lora)], n)
	}
	return served
}

// TestConfigsNameServedModels checks every shipped PARoG config (any YAML
// under configs/ with a kg or llm section): an LLM role whose base_url is
// the address a shipped vLLM config serves on names a model that config
// serves, so the planner a config asks for is the one serve-planner.sh
// starts.
func TestConfigsNameServedModels(t *testing.T) {
	served := servedModels(t)
	var files []string
	require.NoError(t, filepath.WalkDir("../configs", func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Ext(path) == ".yaml" {
			m := loadYAML(t, path)
			if m["kg"] != nil || m["llm"] != nil {
				files = append(files, path)
			}
		}
		return err
	}))
	getenv := func(string) (string, bool) { return "", false }
	checked := 0
	for _, path := range files {
		cfg, err := config.Load(path, getenv, nil)
		require.NoError(t, err, path)
		for role, ep := range map[string]config.Endpoint{
			"planner": cfg.LLM.Planner, "reasoner": cfg.LLM.Reasoner, "teacher": cfg.LLM.Teacher,
		} {
			if ep.BaseURL == "" {
				continue
			}
			u, err := url.Parse(ep.BaseURL)
			require.NoError(t, err, "%s llm.%s.base_url", path, role)
			host := u.Hostname()
			if host == "localhost" {
				host = "127.0.0.1"
			}
			names, ok := served[host+":"+u.Port()]
			if !ok {
				continue
			}
			checked++
			assert.Contains(t, names, ep.Model, "%s llm.%s.model: %s serves only %v", path, role, u.Host, names)
		}
	}
	// freebase-virtuoso.yaml and finetune/parog-planner-vllm.yaml ask for
	// the planner, wikidata.yaml's reasoner for the base model.
	assert.GreaterOrEqual(t, checked, 3, "configs pointing at a shipped vLLM server, in %v", files)
}
