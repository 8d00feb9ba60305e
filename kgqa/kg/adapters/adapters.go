// Package adapters opens the backend a configuration selects: the embedded
// goRDFlib store or a SPARQL endpoint. It is the one place that knows every
// shipped backend; pass Open to kg.Open.
package adapters

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/kg/backend"
	"github.com/parog/parog-go/kgqa/kg/embedded"
	"github.com/parog/parog-go/kgqa/kg/endpoint"
)

// Open opens the backend cfg.Backend names ("embedded", the default, or
// "sparql"). Relative paths in cfg (files, dir) are resolved against
// baseDir, normally the directory of the config file.
func Open(ctx context.Context, cfg config.KG, baseDir string) (backend.Backend, error) {
	switch strings.ToLower(cfg.Backend) {
	case "embedded", "":
		if len(cfg.Files) == 0 && cfg.Dir == "" {
			return nil, fmt.Errorf("kg: open: kg.files: the embedded backend needs files to load (or kg.dir holding a store)")
		}
		dir := cfg.Dir
		if dir != "" && !filepath.IsAbs(dir) && baseDir != "" {
			dir = filepath.Join(baseDir, dir)
		}
		return embedded.Open(ctx, dir, cfg.Files, baseDir, cfg.Timeout)
	case "sparql":
		password := cfg.Password
		if password == "" && cfg.PasswordEnv != "" {
			password = os.Getenv(cfg.PasswordEnv)
		}
		return endpoint.New(cfg.Endpoint, endpoint.Options{
			Timeout: cfg.Timeout, Retries: cfg.Retries, MaxBytes: cfg.MaxResponseBytes, MaxConns: cfg.MaxConns,
			User: cfg.User, Password: password,
		})
	}
	return nil, fmt.Errorf("kg: open: kg.backend: unknown backend %q (want embedded or sparql)", cfg.Backend)
}
