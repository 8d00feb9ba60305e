package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func envOf(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func writeFile(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "c.yaml")
	require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	return p
}

func TestShippedConfigsLoad(t *testing.T) {
	files, err := filepath.Glob("../../configs/*.yaml")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			_, err := Load(f, envOf(nil), nil)
			require.NoError(t, err)
		})
	}
}

func TestPrecedence(t *testing.T) {
	p := writeFile(t, "kg:\n  backend: sparql\n  endpoint: http://file:1/sparql\n  timeout: 5s\n")
	cases := []struct {
		name     string
		env      map[string]string
		sets     []string
		endpoint string
		timeout  time.Duration
	}{
		{"file", nil, nil, "http://file:1/sparql", 5 * time.Second},
		{"env over file", map[string]string{"PAROG_KG_ENDPOINT": "http://env:2/sparql"}, nil, "http://env:2/sparql", 5 * time.Second},
		{"flag over env", map[string]string{"PAROG_KG_ENDPOINT": "http://env:2/sparql", "PAROG_KG_TIMEOUT": "7s"},
			[]string{"kg.endpoint=http://flag:3/sparql"}, "http://flag:3/sparql", 7 * time.Second},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := Load(p, envOf(c.env), c.sets)
			require.NoError(t, err)
			assert.Equal(t, c.endpoint, cfg.KG.Endpoint)
			assert.Equal(t, c.timeout, cfg.KG.Timeout)
			assert.Equal(t, 2, cfg.KG.Retries, "defaults survive for unset keys")
		})
	}
}

func TestBadValuesNameTheSetting(t *testing.T) {
	base := "kg:\n  files: [x.nt]\n"
	cases := []struct {
		name, file string
		env        map[string]string
		sets       []string
		wantKey    string
	}{
		{"bad backend", "kg:\n  backend: neo4j\n", nil, nil, "kg.backend"},
		{"bad dialect", base + "  dialect: dbpedia\n", nil, nil, "kg.dialect"},
		{"sparql needs url", "kg:\n  backend: sparql\n  endpoint: localhost\n", nil, nil, "kg.endpoint"},
		{"env not a duration", base, map[string]string{"PAROG_KG_TIMEOUT": "soon"}, nil, "kg.timeout"},
		{"env not an int", base, map[string]string{"PAROG_ENGINE_WIDTH": "wide"}, nil, "engine.width"},
		{"zero width", base, nil, []string{"engine.width=0"}, "engine.width"},
		{"unknown flag key", base, nil, []string{"engine.wdth=3"}, "engine.wdth"},
		{"model missing", base + "llm:\n  reasoner:\n    base_url: http://x/v1\n", nil, nil, "llm.reasoner.model"},
		{"full text needs sparql", base + "  full_text: true\n", nil, nil, "kg.full_text"},
		{"full text env not a boolean", "kg:\n  backend: sparql\n  endpoint: http://x:1/sparql\n", map[string]string{"PAROG_KG_FULL_TEXT": "maybe"}, nil, "kg.full_text"},
		{"full text flag on embedded", base, nil, []string{"kg.full_text=true"}, "kg.full_text"},
		{"temperature", base + "llm:\n  reasoner:\n    base_url: http://x/v1\n    model: m\n    temperature: 9\n", nil, nil, "llm.reasoner.temperature"},
		{"negative retries", base, nil, []string{"kg.retries=-1"}, "kg.retries"},
		{"negative cache size", base, nil, []string{"kg.cache_size=-1"}, "kg.cache_size"},
		{"language not a tag", base, map[string]string{"PAROG_KG_LANGUAGE": "en\") || true || (\""}, nil, "kg.language"},
		{"language with underscore", base + "  language: fr_FR\n", nil, nil, "kg.language"},
		{"negative burst", base, nil, []string{"server.rate_burst=-1"}, "server.rate_burst"},
		{"negative rate", base, nil, []string{"server.rate_limit=-1"}, "server.rate_limit"},
		{"negative gc percent", base, map[string]string{"PAROG_SERVER_GC_PERCENT": "-1"}, nil, "server.gc_percent"},
		{"zero llm timeout", base + "llm:\n  planner:\n    base_url: http://x/v1\n    model: m\n    timeout: 0s\n", nil, nil, "llm.planner.timeout"},
		{"zero llm concurrency", base, map[string]string{"PAROG_LLM_TEACHER_BASE_URL": "http://x/v1", "PAROG_LLM_TEACHER_MODEL": "m", "PAROG_LLM_TEACHER_CONCURRENCY": "0"}, nil, "llm.teacher.concurrency"},
		{"zero llm max tokens", base, nil, []string{"llm.reasoner.base_url=http://x/v1", "llm.reasoner.model=m", "llm.reasoner.max_tokens=0"}, "llm.reasoner.max_tokens"},
		{"zero offered relations", base, nil, []string{"engine.max_offered_relations=0"}, "engine.max_offered_relations"},
		{"embeddings model missing", base + "llm:\n  embeddings:\n    base_url: http://x/v1\n", nil, nil, "llm.embeddings.model"},
		{"embeddings url", base, map[string]string{"PAROG_LLM_EMBEDDINGS_BASE_URL": "localhost:8001", "PAROG_LLM_EMBEDDINGS_MODEL": "bge"}, nil, "llm.embeddings.base_url"},
		{"ordering not a choice", base, nil, []string{"engine.ordering=fastest"}, "engine.ordering"},
		{"relation offer not a choice", base, nil, []string{"engine.relation_offer=short"}, "engine.relation_offer"},
		{"zero short offer", base + "engine:\n  short_offer: 0\n", nil, nil, "engine.short_offer"},
		{"outside_kg not a choice", base + "engine:\n  outside_kg: guess\n", nil, nil, "engine.outside_kg"},
		{"retrieval rule of no category", base, nil, []string{"engine.retrieval_rules=linear.depth=2"}, "engine.retrieval_rules"},
		{"retrieval rule env bad value", base, map[string]string{"PAROG_ENGINE_RETRIEVAL_RULES": "count.depth=2,count.prune=random"}, nil, "engine.retrieval_rules"},
		{"negative llm retries", base, nil, []string{"llm.reasoner.base_url=http://x/v1", "llm.reasoner.model=m", "llm.reasoner.retries=-2"}, "llm.reasoner.retries"},
		{"unknown planner mode", base, nil, []string{"planner.mode=tree"}, "planner.mode"},
		{"lqt dp unbounded", base + "planner:\n  lqt:\n    max_exact: 30\n", nil, nil, "planner.lqt.max_exact"},
		{"lqt more atoms than a plan holds", base, map[string]string{"PAROG_PLANNER_LQT_MAX_ATOMS": "17"}, nil, "planner.lqt.max_atoms"},
		{"lqt negative alpha", base, nil, []string{"planner.lqt.alpha=-1"}, "planner.lqt.alpha"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Load(writeFile(t, c.file), envOf(c.env), c.sets)
			require.Error(t, err)
			var ce *Error
			require.ErrorAs(t, err, &ce)
			assert.Equal(t, c.wantKey, ce.Key)
			assert.Contains(t, err.Error(), c.wantKey)
		})
	}
}

func TestUnknownFileKeyIsAnError(t *testing.T) {
	_, err := Load(writeFile(t, "kg:\n  backnd: embedded\n"), envOf(nil), nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "backnd")
}

func TestRelativePathsFollowTheFile(t *testing.T) {
	p := writeFile(t, "kg:\n  files: [data/a.nt, builtin:demo-freebase, /abs/b.nt]\n")
	cfg, err := Load(p, envOf(nil), nil)
	require.NoError(t, err)
	assert.Equal(t, []string{filepath.Join(filepath.Dir(p), "data/a.nt"), "builtin:demo-freebase", "/abs/b.nt"}, cfg.KG.Files)
}

func TestSecretsAreMasked(t *testing.T) {
	cfg := Default()
	cfg.LLM.Reasoner.APIKey = "sk-very-secret"
	cfg.LLM.Embeddings.APIKey = "sk-very-secret"
	cfg.Server.APIKeys = []string{"k1"}
	for _, s := range Settings(&cfg) {
		assert.NotContains(t, s.Value, "sk-very-secret", s.Key)
		assert.NotContains(t, s.Value, "k1", s.Key)
		assert.NotEmpty(t, s.Description, "every setting is described: %s", s.Key)
	}
}

func TestEnvSetsPointerAndList(t *testing.T) {
	cfg, err := Load(writeFile(t, "kg:\n  files: [x.nt]\n"), envOf(map[string]string{
		"PAROG_LLM_REASONER_SEED": "42",
		"PAROG_SERVER_API_KEYS":   "a, b",
	}), nil)
	require.NoError(t, err)
	require.NotNil(t, cfg.LLM.Reasoner.Seed)
	assert.Equal(t, 42, *cfg.LLM.Reasoner.Seed)
	assert.Equal(t, []string{"a", "b"}, cfg.Server.APIKeys)
}

func TestFullText(t *testing.T) {
	sparql := "kg:\n  backend: sparql\n  endpoint: http://x:1/sparql\n"
	cases := []struct {
		name string
		file string
		env  map[string]string
		sets []string
		want bool
	}{
		{"off by default", sparql, nil, nil, false},
		{"file", sparql + "  full_text: true\n", nil, nil, true},
		{"env", sparql, map[string]string{"PAROG_KG_FULL_TEXT": "true"}, nil, true},
		{"flag over file", sparql + "  full_text: true\n", nil, []string{"kg.full_text=false"}, false},
		{"shipped Virtuoso config", "../../configs/freebase-virtuoso.yaml", nil, nil, true},
		{"shipped demo config", "../../configs/demo.yaml", nil, nil, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := c.file
			if !strings.HasSuffix(path, ".yaml") {
				path = writeFile(t, c.file)
			}
			cfg, err := Load(path, envOf(c.env), c.sets)
			require.NoError(t, err)
			assert.Equal(t, c.want, cfg.KG.FullText)
		})
	}
}

func TestRelationIndexSwitch(t *testing.T) {
	sparql := "kg:\n  backend: sparql\n  endpoint: http://x:1/sparql\n"
	for _, c := range []struct {
		name, file string
		sets       []string
		want       string
		bad        bool
	}{
		{"auto by default", sparql, nil, "", false},
		{"off", sparql + "  relation_index: off\n", nil, "off", false},
		{"flag over file", sparql + "  relation_index: off\n", []string{"kg.relation_index=auto"}, "auto", false},
		{"unknown", sparql + "  relation_index: always\n", nil, "", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := Load(writeFile(t, c.file), envOf(nil), c.sets)
			if c.bad {
				var e *Error
				require.ErrorAs(t, err, &e)
				assert.Equal(t, "kg.relation_index", e.Key)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.want, cfg.KG.RelationIndex)
		})
	}
}

// PlanRAG's best weight of the similarity term is the default of
// planner.lqt.alpha, and a file or flag still overrides it.
func TestLQTAlphaDefault(t *testing.T) {
	cfg, err := Load("../../configs/demo.yaml", envOf(nil), nil)
	require.NoError(t, err)
	assert.InDelta(t, 10.0, cfg.Planner.LQT.Alpha, 1e-9)
	cfg, err = Load("../../configs/demo.yaml", envOf(nil), []string{"planner.lqt.alpha=1"})
	require.NoError(t, err)
	assert.InDelta(t, 1.0, cfg.Planner.LQT.Alpha, 1e-9)
}
