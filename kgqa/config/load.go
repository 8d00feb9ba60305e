package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/parog/parog-go/kgqa/retrieval"
	"go.yaml.in/yaml/v3"
)

// EnvPrefix starts the name of every environment override.
const EnvPrefix = "PAROG_"

// Setting describes one leaf setting: its dotted key, its environment
// variable, its description and its current value (secrets masked).
type Setting struct {
	// Key is the dotted YAML path, e.g. "kg.endpoint".
	Key string
	// Env is the environment variable that overrides it.
	Env string
	// Description says what the setting is for.
	Description string
	// Value is the current value as text; secrets are masked.
	Value string
	// Secret marks values that are never logged.
	Secret bool

	field reflect.Value
}

// Error reports a bad configuration value, naming the setting.
type Error struct {
	// Key is the dotted setting key.
	Key string
	// Source says where the value came from (file, env var, flag).
	Source string
	// Reason says what is wrong.
	Reason string
}

func (e *Error) Error() string {
	if e.Source != "" {
		return fmt.Sprintf("config: %s (from %s): %s", e.Key, e.Source, e.Reason)
	}
	return fmt.Sprintf("config: %s: %s", e.Key, e.Reason)
}

// Load builds the configuration: defaults, then the YAML file at path (if
// not empty), then PAROG_* variables read through getenv (nil reads the
// process environment), then sets, each "key=value" with a dotted key. Paths
// in kg.files, kg.dir and kg.schema are made relative to the file's directory. The
// result is validated.
func Load(path string, getenv func(string) (string, bool), sets []string) (Config, error) {
	cfg := Default()
	if getenv == nil {
		getenv = os.LookupEnv
	}
	if path != "" {
		data, err := os.ReadFile(path)
		if err != nil {
			return cfg, fmt.Errorf("config: read %s: %w", path, err)
		}
		dec := yaml.NewDecoder(bytes.NewReader(data))
		dec.KnownFields(true)
		if err := dec.Decode(&cfg); err != nil && !errors.Is(err, io.EOF) { // an empty file is all defaults
			return cfg, fmt.Errorf("config: %s: %w", path, err)
		}
		resolvePaths(&cfg.KG, filepath.Dir(path))
		if d := cfg.Engine.RelationPrior; d != "" && !filepath.IsAbs(d) {
			cfg.Engine.RelationPrior = filepath.Join(filepath.Dir(path), d)
		}
		if d := cfg.Prompts.Dir; d != "" && !filepath.IsAbs(d) {
			cfg.Prompts.Dir = filepath.Join(filepath.Dir(path), d)
		}
	}
	for _, s := range Settings(&cfg) {
		if v, ok := getenv(s.Env); ok {
			if err := setValue(s.field, v); err != nil {
				return cfg, &Error{Key: s.Key, Source: s.Env, Reason: err.Error()}
			}
		}
	}
	if err := Apply(&cfg, sets); err != nil {
		return cfg, err
	}
	return cfg, cfg.Validate()
}

// Apply sets "key=value" pairs (dotted keys, as in Settings) on cfg.
func Apply(cfg *Config, sets []string) error {
	if len(sets) == 0 {
		return nil
	}
	byKey := map[string]Setting{}
	for _, s := range Settings(cfg) {
		byKey[s.Key] = s
	}
	for _, kv := range sets {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return &Error{Key: kv, Source: "flag", Reason: "want key=value"}
		}
		s, found := byKey[strings.TrimSpace(k)]
		if !found {
			return &Error{Key: k, Source: "flag", Reason: "unknown setting"}
		}
		if err := setValue(s.field, v); err != nil {
			return &Error{Key: s.Key, Source: "flag", Reason: err.Error()}
		}
	}
	return nil
}

func resolvePaths(k *KG, dir string) {
	for i, f := range k.Files {
		if !strings.HasPrefix(f, "builtin:") && f != "" && !filepath.IsAbs(f) {
			k.Files[i] = filepath.Join(dir, f)
		}
	}
	if k.Dir != "" && !filepath.IsAbs(k.Dir) {
		k.Dir = filepath.Join(dir, k.Dir)
	}
	if k.Schema != "" && !filepath.IsAbs(k.Schema) {
		k.Schema = filepath.Join(dir, k.Schema)
	}
}

// Settings lists every leaf setting of cfg, in declaration order.
func Settings(cfg *Config) []Setting {
	var out []Setting
	walk(reflect.ValueOf(cfg).Elem(), "", false, &out)
	return out
}

func walk(v reflect.Value, prefix string, secret bool, out *[]Setting) {
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name := strings.Split(f.Tag.Get("yaml"), ",")[0]
		if name == "" || name == "-" {
			continue
		}
		key := name
		if prefix != "" {
			key = prefix + "." + name
		}
		fv := v.Field(i)
		isSecret := secret || f.Tag.Get("secret") == "true"
		if f.Type.Kind() == reflect.Struct && f.Type != reflect.TypeOf(time.Duration(0)) {
			walk(fv, key, isSecret, out)
			continue
		}
		s := Setting{
			Key:         key,
			Env:         EnvPrefix + strings.ToUpper(strings.ReplaceAll(key, ".", "_")),
			Description: f.Tag.Get("desc"),
			Secret:      isSecret,
			field:       fv,
		}
		s.Value = format(fv)
		if isSecret && s.Value != "" && s.Value != "[]" {
			s.Value = "****"
		}
		*out = append(*out, s)
	}
}

func format(v reflect.Value) string {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return ""
		}
		return format(v.Elem())
	case reflect.Slice:
		parts := make([]string, v.Len())
		for i := range parts {
			parts[i] = format(v.Index(i))
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	if d, ok := v.Interface().(time.Duration); ok {
		return d.String()
	}
	return fmt.Sprint(v.Interface())
}

func setValue(v reflect.Value, s string) error {
	s = strings.TrimSpace(s)
	if v.Type() == reflect.TypeOf(time.Duration(0)) {
		d, err := time.ParseDuration(s)
		if err != nil {
			return fmt.Errorf("%q is not a duration (e.g. 30s, 2m)", s)
		}
		v.SetInt(int64(d))
		return nil
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(s)
	case reflect.Bool:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return fmt.Errorf("%q is not a boolean", s)
		}
		v.SetBool(b)
	case reflect.Int, reflect.Int64:
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return fmt.Errorf("%q is not an integer", s)
		}
		v.SetInt(n)
	case reflect.Float64:
		x, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return fmt.Errorf("%q is not a number", s)
		}
		v.SetFloat(x)
	case reflect.Pointer:
		if s == "" {
			v.SetZero()
			return nil
		}
		p := reflect.New(v.Type().Elem())
		if err := setValue(p.Elem(), s); err != nil {
			return err
		}
		v.Set(p)
	case reflect.Slice:
		var items []string
		for _, it := range strings.Split(s, ",") {
			if it = strings.TrimSpace(it); it != "" {
				items = append(items, it)
			}
		}
		v.Set(reflect.ValueOf(items))
	default:
		return fmt.Errorf("unsupported setting type %s", v.Type())
	}
	return nil
}

// Validate checks every value and names the first bad setting.
func (c *Config) Validate() error {
	bad := func(key, reason string) error { return &Error{Key: key, Reason: reason} }
	switch c.KG.Backend {
	case "embedded":
		if len(c.KG.Files) == 0 && c.KG.Dir == "" {
			return bad("kg.files", "the embedded backend needs files to load or a store directory")
		}
	case "sparql":
		if err := checkURL(c.KG.Endpoint); err != nil {
			return bad("kg.endpoint", err.Error())
		}
	default:
		return bad("kg.backend", fmt.Sprintf("%q is not embedded or sparql", c.KG.Backend))
	}
	if c.KG.FullText && c.KG.Backend != "sparql" {
		return bad("kg.full_text", "only meaningful with backend sparql (a Virtuoso endpoint with its text index); the "+c.KG.Backend+" backend has no text index")
	}
	if c.KG.Dialect != "freebase" && c.KG.Dialect != "wikidata" {
		return bad("kg.dialect", fmt.Sprintf("%q is not freebase or wikidata", c.KG.Dialect))
	}
	positive := map[string]int64{
		"kg.timeout": int64(c.KG.Timeout), "kg.max_response_bytes": c.KG.MaxResponseBytes,
		"kg.max_conns": int64(c.KG.MaxConns), "kg.neighbor_limit": int64(c.KG.NeighborLimit),
		"engine.width": int64(c.Engine.Width), "engine.depth": int64(c.Engine.Depth),
		"engine.max_rounds": int64(c.Engine.MaxRounds), "engine.max_entities_per_relation": int64(c.Engine.MaxEntitiesPerRelation),
		"engine.max_relations_per_entity": int64(c.Engine.MaxRelationsPerEntity),
		"engine.max_offered_relations":    int64(c.Engine.MaxOfferedRelations), "engine.parallelism": int64(c.Engine.Parallelism),
		"engine.deadline": int64(c.Engine.Deadline), "server.max_body_bytes": c.Server.MaxBodyBytes,
		"server.max_question_len": int64(c.Server.MaxQuestionLen), "server.request_timeout": int64(c.Server.RequestTimeout),
		"server.sparql_timeout": int64(c.Server.SPARQLTimeout), "server.sparql_max_rows": int64(c.Server.SPARQLMaxRows),
	}
	for _, s := range Settings(c) {
		if n, ok := positive[s.Key]; ok && n <= 0 {
			return bad(s.Key, "must be positive")
		}
	}
	notNegative := []struct {
		key string
		n   float64
	}{
		{"kg.retries", float64(c.KG.Retries)}, {"kg.cache_size", float64(c.KG.CacheSize)},
		{"server.rate_limit", c.Server.RateLimit}, {"server.rate_burst", float64(c.Server.RateBurst)},
		{"server.gc_percent", float64(c.Server.GCPercent)},
	}
	for _, s := range notNegative {
		if s.n < 0 {
			return bad(s.key, "must not be negative")
		}
	}
	switch c.Engine.Ordering {
	case "", "cost", "plan":
	default:
		return bad("engine.ordering", fmt.Sprintf("%q is not cost or plan", c.Engine.Ordering))
	}
	switch c.Engine.RelationChoice {
	case "", "anchor", "round":
	default:
		return bad("engine.relation_choice", fmt.Sprintf("%q is not anchor or round", c.Engine.RelationChoice))
	}
	switch c.Engine.OutsideKG {
	case "", "model", "notice":
	default:
		return bad("engine.outside_kg", fmt.Sprintf("%q is not model or notice", c.Engine.OutsideKG))
	}
	if _, err := retrieval.Parse(c.Engine.RetrievalRules); err != nil {
		return bad("engine.retrieval_rules", err.Error())
	}
	if err := validateCache(c.Cache); err != nil {
		return err
	}
	if err := validatePlanner(c.Planner); err != nil {
		return err
	}
	if c.KG.Language != "" && !langTagRE.MatchString(c.KG.Language) {
		return bad("kg.language", fmt.Sprintf("%q is not a language tag such as en or pt-BR", c.KG.Language))
	}
	for _, r := range []struct {
		name string
		ep   Endpoint
	}{{"planner", c.LLM.Planner}, {"reasoner", c.LLM.Reasoner}, {"teacher", c.LLM.Teacher}} {
		if err := validateEndpoint("llm."+r.name, r.ep); err != nil {
			return err
		}
	}
	if e := c.LLM.Embeddings; e.BaseURL != "" {
		if err := checkURL(e.BaseURL); err != nil {
			return bad("llm.embeddings.base_url", err.Error())
		}
		switch {
		case e.Model == "":
			return bad("llm.embeddings.model", "required when base_url is set")
		case e.Timeout <= 0:
			return bad("llm.embeddings.timeout", "must be positive")
		}
	}
	return nil
}

func validateCache(c Cache) error {
	bad := func(key, reason string) error { return &Error{Key: "cache." + key, Reason: reason} }
	switch c.Backend {
	case "", "none":
	case "redis":
		u, err := url.Parse(c.RedisURL)
		if err != nil || (u.Scheme != "redis" && u.Scheme != "rediss" && u.Scheme != "unix") {
			return bad("redis_url", "backend redis needs a redis://, rediss:// or unix:// URL")
		}
	default:
		return bad("backend", fmt.Sprintf("%q is not none or redis", c.Backend))
	}
	switch {
	case c.TTL < 0:
		return bad("ttl", "must not be negative")
	case c.MaxEntryBytes <= 0:
		return bad("max_entry_bytes", "must be positive")
	case c.Timeout <= 0:
		return bad("timeout", "must be positive")
	}
	return nil
}

func validatePlanner(p Planner) error {
	bad := func(key, reason string) error { return &Error{Key: "planner." + key, Reason: reason} }
	switch p.Mode {
	case "parog", "lqt":
	default:
		return bad("mode", fmt.Sprintf("%q is not parog or lqt", p.Mode))
	}
	l := p.LQT
	switch {
	case l.MaxExact < 1 || l.MaxExact > 16:
		return bad("lqt.max_exact", "must be between 1 and 16 (the dynamic programme is exponential in it)")
	case l.MaxAtoms < 1 || l.MaxAtoms > 16:
		return bad("lqt.max_atoms", "must be between 1 and 16 (a plan holds at most 16 subgoals)")
	case l.Alpha < 0:
		return bad("lqt.alpha", "must not be negative")
	case l.CacheSize < 0:
		return bad("lqt.cache_size", "must not be negative")
	case l.Parallelism < 1:
		return bad("lqt.parallelism", "must be positive")
	}
	return nil
}

// langTagRE is the shape of a BCP 47 language tag, as the KG dialects
// accept it in a query's language filter.
var langTagRE = regexp.MustCompile(`^[a-zA-Z]{1,8}(-[a-zA-Z0-9]{1,8})*$`)

// validateEndpoint checks one model role; a role without base_url is
// unconfigured and not checked.
func validateEndpoint(key string, ep Endpoint) error {
	if ep.BaseURL == "" {
		return nil
	}
	bad := func(setting, reason string) error { return &Error{Key: key + "." + setting, Reason: reason} }
	switch {
	case checkURL(ep.BaseURL) != nil:
		return bad("base_url", checkURL(ep.BaseURL).Error())
	case ep.Model == "":
		return bad("model", "required when base_url is set")
	case ep.Temperature < 0 || ep.Temperature > 2:
		return bad("temperature", "must be between 0 and 2")
	case ep.SeedTemperature < 0 || ep.SeedTemperature > 2:
		return bad("seed_temperature", "must be between 0 and 2")
	case ep.Timeout <= 0:
		return bad("timeout", "must be positive")
	case ep.Concurrency <= 0:
		return bad("concurrency", "must be positive")
	case ep.MaxTokens <= 0:
		return bad("max_tokens", "must be positive")
	case ep.Retries < 0:
		return bad("retries", "must not be negative")
	}
	return nil
}

func checkURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q is not an http(s) URL", s)
	}
	return nil
}
