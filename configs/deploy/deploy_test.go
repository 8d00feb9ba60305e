// Package deploy holds no code: its tests check the deployment files beside
// them (the Dockerfile at the root, the compose stack, the parog config it
// mounts) with the parsers the real tools use, since no container engine
// runs here.
package deploy

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/compose-spec/compose-go/v2/loader"
	"github.com/compose-spec/compose-go/v2/types"
	"github.com/moby/buildkit/frontend/dockerfile/instructions"
	"github.com/moby/buildkit/frontend/dockerfile/linter"
	"github.com/moby/buildkit/frontend/dockerfile/parser"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/parog/parog-go/kgqa/config"
)

// TestDockerfile parses the Dockerfile with BuildKit's own parser and runs
// its lint rules (the checks of `docker build --check`), then checks what
// the image promises: a multi-stage build, a static binary, a final stage
// with nothing but it, run as a non-root user.
func TestDockerfile(t *testing.T) {
	f, err := os.Open("../../Dockerfile")
	require.NoError(t, err)
	defer f.Close()
	res, err := parser.Parse(f)
	require.NoError(t, err)
	for _, w := range res.Warnings {
		t.Errorf("parser warning: %s", w.Short)
	}
	var lints []string
	lint := linter.New(&linter.Config{ExperimentalAll: true, Warn: func(rule, desc, url, msg string, loc []parser.Range) {
		lints = append(lints, rule+": "+msg)
	}})
	stages, _, err := instructions.Parse(res.AST, lint)
	require.NoError(t, err)
	assert.Empty(t, lints, "BuildKit lint rules")

	require.GreaterOrEqual(t, len(stages), 2, "multi-stage")
	build, final := stages[0], stages[len(stages)-1]
	assert.Contains(t, build.SourceCode, "golang:")
	assert.Equal(t, "scratch", final.BaseName, "the final image holds only what is copied into it")
	var user string
	var staticBuild bool
	for _, c := range build.Commands {
		if r, ok := c.(*instructions.RunCommand); ok && strings.Contains(strings.Join(r.CmdLine, " "), "CGO_ENABLED=0 go build") {
			staticBuild = true
		}
	}
	for _, c := range final.Commands {
		if u, ok := c.(*instructions.UserCommand); ok {
			user = u.User
		}
	}
	assert.True(t, staticBuild, "the binary is built with CGO_ENABLED=0")
	require.NotEmpty(t, user, "the final stage sets USER")
	assert.NotRegexp(t, `^(0|root)(:|$)`, user, "non-root")
}

// TestComposeStack loads the compose file with compose-go, the loader of
// `docker compose` itself (schema validation, interpolation, references),
// and checks the wiring between the services and parog's config.
func TestComposeStack(t *testing.T) {
	dir, err := filepath.Abs(".")
	require.NoError(t, err)
	data, err := os.ReadFile("compose.yaml")
	require.NoError(t, err)
	details := types.ConfigDetails{
		WorkingDir:  dir,
		ConfigFiles: []types.ConfigFile{{Filename: filepath.Join(dir, "compose.yaml"), Content: data}},
		Environment: types.Mapping{"PAROG_API_KEYS": "k1", "VIRTUOSO_DBA_PASSWORD": "pw"},
	}
	p, err := loader.LoadWithContext(context.Background(), details, func(o *loader.Options) { o.SetProjectName("parog", true) })
	require.NoError(t, err)
	names := p.ServiceNames()
	for _, s := range []string{"parog", "virtuoso", "redis", "prometheus", "vllm-planner"} {
		assert.Contains(t, names, s)
	}
	parog := p.Services["parog"]
	require.NotNil(t, parog.Deploy)
	require.NotNil(t, parog.Deploy.Replicas)
	assert.GreaterOrEqual(t, *parog.Deploy.Replicas, 2, "replicas share the Redis cache")
	gpu := p.Services["vllm-planner"].Deploy
	require.NotNil(t, gpu)
	require.NotNil(t, gpu.Resources.Reservations)
	require.Len(t, gpu.Resources.Reservations.Devices, 1, "the planner states its GPU")
	assert.Contains(t, gpu.Resources.Reservations.Devices[0].Capabilities, "gpu")

	// A missing secret is an error, not an empty key.
	details.Environment = types.Mapping{"VIRTUOSO_DBA_PASSWORD": "pw"}
	_, err = loader.LoadWithContext(context.Background(), details, func(o *loader.Options) { o.SetProjectName("parog", true) })
	assert.ErrorContains(t, err, "PAROG_API_KEYS")

	// parog's config names the services and the model vLLM serves.
	cfg, err := config.Load("parog.yaml", func(string) (string, bool) { return "", false }, nil)
	require.NoError(t, err)
	assert.Equal(t, "http://virtuoso:8890/sparql", cfg.KG.Endpoint)
	assert.Equal(t, "redis", cfg.Cache.Backend)
	assert.Equal(t, "redis://redis:6379/0", cfg.Cache.RedisURL)
	assert.Equal(t, "http://vllm-planner:8000/v1", cfg.LLM.Planner.BaseURL)
	vllm, err := os.ReadFile("../finetune/vllm-planner.yaml")
	require.NoError(t, err)
	var serve struct {
		Name string `yaml:"served-model-name"`
	}
	require.NoError(t, yaml.Unmarshal(vllm, &serve))
	assert.Equal(t, serve.Name, cfg.LLM.Planner.Model)
	assert.Contains(t, parog.Command, "/etc/parog/deploy/parog.yaml", "the image carries configs/ at /etc/parog")
}
