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

// Load builds the configuration from one file (or none, when path is
// empty): LoadFiles with that file alone.
func Load(path string, getenv func(string) (string, bool), sets []string) (Config, error) {
	var paths []string
	if path != "" {
		paths = []string{path}
	}
	cfg, _, err := LoadFiles(paths, getenv, sets)
	return cfg, err
}

// Sources says where each setting's value came from, by dotted key: a
// file's path, an environment variable's name, "--set", or "default" for
// a key nobody set.
type Sources map[string]string

// Of is the source of key ("default" when nothing set it).
func (s Sources) Of(key string) string {
	if src, ok := s[key]; ok {
		return src
	}
	return "default"
}

// DemoGraph is what kg.files holds when no layer names a KG: the shipped
// Freebase-style demo graph, so that a file holding only model settings
// (configs/llm-*.yaml) runs on its own.
const DemoGraph = "builtin:demo-freebase"

// LoadFiles builds the configuration in layers: defaults, then each YAML
// file of paths in order (a later file wins key by key; a list such as
// kg.files is replaced whole), then PAROG_* variables read through getenv
// (nil reads the process environment), then sets, each "key=value" with a
// dotted key. The paths a file sets (kg.files, kg.dir, kg.schema,
// engine.relation_prior, prompts.dir) are made relative to that file's
// directory. An embedded KG that no layer gives files or a directory is the
// demo graph (DemoGraph). The result is validated; Sources says which layer
// set each key.
func LoadFiles(paths []string, getenv func(string) (string, bool), sets []string) (Config, Sources, error) {
	cfg := Default()
	src := Sources{}
	if getenv == nil {
		getenv = os.LookupEnv
	}
	for _, path := range paths {
		if err := loadLayer(&cfg, src, path); err != nil {
			return cfg, src, err
		}
	}
	for _, s := range Settings(&cfg) {
		if v, ok := getenv(s.Env); ok {
			if err := setValue(s.field, v); err != nil {
				return cfg, src, &Error{Key: s.Key, Source: s.Env, Reason: err.Error()}
			}
			src[s.Key] = s.Env
		}
	}
	if err := Apply(&cfg, sets); err != nil {
		return cfg, src, err
	}
	for _, kv := range sets {
		k, _, _ := strings.Cut(kv, "=")
		src[strings.TrimSpace(k)] = "--set"
	}
	if cfg.KG.Backend == "embedded" && len(cfg.KG.Files) == 0 && cfg.KG.Dir == "" {
		cfg.KG.Files = []string{DemoGraph}
		src["kg.files"] = "default (no KG configured)"
	}
	return cfg, src, cfg.Validate()
}

// loadLayer decodes the YAML file at path over cfg, records the keys it
// sets in src and resolves the paths it sets against its directory.
func loadLayer(cfg *Config, src Sources, path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("config: read %s: %w", path, err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("config: %s: %w", path, err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(cfg); err != nil && !errors.Is(err, io.EOF) { // an empty file is all defaults
		return fmt.Errorf("config: %s: %w", path, err)
	}
	set := map[string]bool{}
	if len(doc.Content) == 1 {
		leafKeys(doc.Content[0], "", set)
	}
	for k := range set {
		src[k] = path
	}
	dir := filepath.Dir(path)
	rel := func(p string) string {
		if p == "" || filepath.IsAbs(p) || strings.HasPrefix(p, "builtin:") {
			return p
		}
		return filepath.Join(dir, p)
	}
	if set["kg.files"] {
		for i, f := range cfg.KG.Files {
			cfg.KG.Files[i] = rel(f)
		}
	}
	for key, p := range map[string]*string{"kg.dir": &cfg.KG.Dir, "kg.schema": &cfg.KG.Schema,
		"engine.relation_prior": &cfg.Engine.RelationPrior, "prompts.dir": &cfg.Prompts.Dir} {
		if set[key] {
			*p = rel(*p)
		}
	}
	return nil
}

// leafKeys adds the dotted keys of n's leaves (a sequence is one leaf) to
// set.
func leafKeys(n *yaml.Node, prefix string, set map[string]bool) {
	if n.Kind != yaml.MappingNode {
		if prefix != "" {
			set[prefix] = true
		}
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key := n.Content[i].Value
		if prefix != "" {
			key = prefix + "." + key
		}
		leafKeys(n.Content[i+1], key, set)
	}
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
	if err := validateKG(c.KG); err != nil {
		return err
	}
	positive := map[string]int64{
		"kg.timeout": int64(c.KG.Timeout), "kg.max_response_bytes": c.KG.MaxResponseBytes,
		"kg.max_conns": int64(c.KG.MaxConns), "kg.neighbor_limit": int64(c.KG.NeighborLimit),
		"engine.width": int64(c.Engine.Width), "engine.depth": int64(c.Engine.Depth),
		"engine.max_rounds": int64(c.Engine.MaxRounds), "engine.max_entities_per_relation": int64(c.Engine.MaxEntitiesPerRelation),
		"engine.max_relations_per_entity": int64(c.Engine.MaxRelationsPerEntity),
		"engine.max_offered_relations":    int64(c.Engine.MaxOfferedRelations), "engine.parallelism": int64(c.Engine.Parallelism),
		"engine.short_offer": int64(c.Engine.ShortOffer),
		"engine.deadline":    int64(c.Engine.Deadline), "server.max_body_bytes": c.Server.MaxBodyBytes,
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
	case "", "set", "anchor", "round":
	default:
		return bad("engine.relation_choice", fmt.Sprintf("%q is not set, anchor or round", c.Engine.RelationChoice))
	}
	switch c.Engine.RelationOffer {
	case "", "adaptive", "full":
	default:
		return bad("engine.relation_offer", fmt.Sprintf("%q is not adaptive or full", c.Engine.RelationOffer))
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
	return validateLLM(c.LLM)
}

// validateKG checks the KG's backend and how it is reached: the
// backend's own settings, the results format and the dialect.
func validateKG(k KG) error {
	bad := func(key, reason string) error { return &Error{Key: key, Reason: reason} }
	switch k.Backend {
	case "embedded":
		if len(k.Files) == 0 && k.Dir == "" {
			return bad("kg.files", "the embedded backend needs files to load or a store directory")
		}
	case "sparql":
		if err := checkURL(k.Endpoint); err != nil {
			return bad("kg.endpoint", err.Error())
		}
	default:
		return bad("kg.backend", fmt.Sprintf("%q is not embedded or sparql", k.Backend))
	}
	if k.FullText && k.Backend != "sparql" {
		return bad("kg.full_text", "only meaningful with backend sparql (a Virtuoso endpoint with its text index); the "+k.Backend+" backend has no text index")
	}
	if k.RelationIndex != "" && k.RelationIndex != "auto" && k.RelationIndex != "off" {
		return bad("kg.relation_index", fmt.Sprintf("%q is not auto or off", k.RelationIndex))
	}
	if k.Dialect != "freebase" && k.Dialect != "wikidata" {
		return bad("kg.dialect", fmt.Sprintf("%q is not freebase or wikidata", k.Dialect))
	}
	return nil
}

// validateLLM checks the model endpoints of every role, and the
// embeddings endpoint when one is set.
func validateLLM(l LLM) error {
	bad := func(key, reason string) error { return &Error{Key: key, Reason: reason} }
	for _, r := range []struct {
		name string
		ep   Endpoint
	}{{"planner", l.Planner}, {"reasoner", l.Reasoner}, {"teacher", l.Teacher}} {
		if err := validateEndpoint("llm."+r.name, r.ep); err != nil {
			return err
		}
	}
	if e := l.Embeddings; e.BaseURL != "" {
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
