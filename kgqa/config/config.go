// Package config is the one place that reads PARoG's configuration: a YAML
// file, then PAROG_* environment overrides, then flags, in that order of
// precedence. Every setting carries a description, reused by --help and the
// start-up log; a bad value is an error that names the setting.
package config

import "time"

// Config is the whole configuration of a PARoG process.
type Config struct {
	// KG selects and tunes the knowledge-graph backend.
	KG KG `yaml:"kg"`
	// LLM configures the model endpoints, one per role.
	LLM LLM `yaml:"llm"`
	// Engine holds the reasoning budgets.
	Engine Engine `yaml:"engine"`
	// Server configures `parog serve`.
	Server Server `yaml:"server"`
	// Cache configures the cache shared by processes.
	Cache Cache `yaml:"cache"`
	// Planner selects how a question becomes a plan.
	Planner Planner `yaml:"planner"`
	// Prompts selects the prompt templates.
	Prompts Prompts `yaml:"prompts"`
}

// Prompts selects the prompt templates: the built-in set, or a directory
// of edited templates (start from `parog prompts dump DIR`).
type Prompts struct {
	Dir string `yaml:"dir" desc:"directory of prompt templates (one NAME.tmpl per stage and common.tmpl, as parog prompts dump writes them), validated at start-up; empty uses the built-in set; relative to the config file (--prompts-dir)"`
}

// Planner selects the planning mode. Mode parog asks the planner role (or
// the reasoner's few-shot prompt) for the whole plan in one call; mode lqt
// builds a logical query tree: the model lists atomic queries, one call
// per pair relates them, and a dynamic programme over subsets picks the
// tree (kgqa/lqt).
type Planner struct {
	Mode string `yaml:"mode" desc:"planning mode: parog (one plan call) or lqt (atomic queries, pair relations, tree by dynamic programming over subsets)"`
	LQT  LQT    `yaml:"lqt"`
}

// LQT tunes the logical-query-tree planner (planner.mode lqt).
type LQT struct {
	MaxExact    int     `yaml:"max_exact" desc:"most atomic queries planned by the exact dynamic programme over subsets (exponential); above it a greedy merge builds the tree, and the trace says so"`
	MaxAtoms    int     `yaml:"max_atoms" desc:"most atomic queries accepted from the model"`
	Alpha       float64 `yaml:"alpha" desc:"weight of Sim in the tree cost -(|V| + |E| - Depth - Balance + alpha*Sim); Sim is the lexical cosine of the tree's composed text (each #k replaced by its subtree's text) with the question"`
	CacheSize   int     `yaml:"cache_size" desc:"unrelated query pairs remembered across questions (by normalised text), so they are never asked again (0 disables the cache)"`
	Parallelism int     `yaml:"parallelism" desc:"pair-relation calls in flight at once for one question"`
	// ContextMerge asks the model to confirm each merge of the chosen
	// tree with the partial tree as context (one call per edge).
	ContextMerge bool `yaml:"context_merge" desc:"confirm each merge of the chosen tree by a model judgement with the partial tree as context (one call per edge); a rejected merge makes its pair unrelated and the tree is chosen again"`
}

// Cache configures the cache that server replicas and eval workers share,
// behind each process's own LRU (kg.cache_size).
type Cache struct {
	Backend       string        `yaml:"backend" desc:"shared cache behind the local LRU: none, or redis (KG primitive results and recorded model calls, shared by server replicas and eval workers)"`
	RedisURL      string        `yaml:"redis_url" desc:"Redis URL for backend redis, e.g. redis://127.0.0.1:6379/0 (a password goes in the URL; prefer the environment variable)" secret:"true"`
	TTL           time.Duration `yaml:"ttl" desc:"lifetime of a shared entry (0: until Redis evicts it under its maxmemory policy)"`
	MaxEntryBytes int           `yaml:"max_entry_bytes" desc:"results larger than this are not shared (they stay in the local LRU)"`
	Snapshot      string        `yaml:"snapshot" desc:"KG snapshot tag in every shared key; empty derives it from the KG (the files' names, sizes and times, or the endpoint URL): set it, and change it, when an endpoint's data is reloaded"`
	Timeout       time.Duration `yaml:"timeout" desc:"deadline of one shared-cache operation; a slow or down cache is skipped, never an error"`
	// BreakerFailures and BreakerCooldown make a down cache cost nothing.
	BreakerFailures int           `yaml:"breaker_failures" desc:"failed shared-cache operations in a row after which the cache is skipped without being asked, for breaker_cooldown"`
	BreakerCooldown time.Duration `yaml:"breaker_cooldown" desc:"how long a failing shared cache is skipped before one operation tries it again"`
}

// KG configures knowledge-graph access.
type KG struct {
	Backend          string        `yaml:"backend" desc:"KG backend: embedded (in-process store) or sparql (HTTP endpoint)"`
	Dialect          string        `yaml:"dialect" desc:"KG vocabulary: freebase or wikidata"`
	Endpoint         string        `yaml:"endpoint" desc:"SPARQL endpoint URL (backend sparql)"`
	Files            []string      `yaml:"files" desc:"N-Triples/Turtle files (.nt, .ttl, optionally .gz) to load into the embedded store; builtin:demo-freebase and builtin:demo-wikidata name the shipped demo graphs; relative paths are relative to the config file"`
	Dir              string        `yaml:"dir" desc:"directory of a persistent (Badger) embedded store; empty keeps it in memory"`
	Timeout          time.Duration `yaml:"timeout" desc:"deadline of one SPARQL query"`
	Retries          int           `yaml:"retries" desc:"retries of a SPARQL query after 429, 503 or a connection error (a query error or another 5xx is not retried)"`
	MaxResponseBytes int64         `yaml:"max_response_bytes" desc:"largest SPARQL response body accepted"`
	MaxConns         int           `yaml:"max_conns" desc:"concurrent HTTP connections to the SPARQL endpoint"`
	CacheSize        int           `yaml:"cache_size" desc:"entries in the LRU cache of primitive results (0 disables it)"`
	Language         string        `yaml:"language" desc:"language tag of names and labels"`
	NoiseRelations   []string      `yaml:"noise_relations" desc:"relation prefixes dropped from exploration (empty keeps the dialect's defaults)"`
	NeighborLimit    int           `yaml:"neighbor_limit" desc:"default cap on facts returned by one neighbour query"`
	ScanBudget       int           `yaml:"scan_budget" desc:"triples one raw SELECT (/sparql, parog kg query) may read from the embedded store before it is refused; bounds its memory (0: 100000)"`
	RowBudget        int           `yaml:"row_budget" desc:"intermediate rows one raw SELECT may build in the embedded store (VALUES and BIND products read no triple) before it is refused; bounds its memory (0: 100000)"`
	User             string        `yaml:"user" desc:"user name for HTTP authentication (Basic or Digest) to the SPARQL endpoint, e.g. the read-only user of parog kg virtuoso setup"`
	PasswordEnv      string        `yaml:"password_env" desc:"environment variable holding the SPARQL endpoint password"`
	Password         string        `yaml:"password" desc:"SPARQL endpoint password (prefer password_env); masked in logs" secret:"true"`
	Schema           string        `yaml:"schema" desc:"directory of the Freebase schema (fb_roles, fb_types, as in the GrailQA ontology folder) that types relations' values, so that a tentative answer is grounded to a homonym of the type its subgoal expects; empty types by relation ids alone; relative paths are relative to the config file"`
	FullText         bool          `yaml:"full_text" desc:"search names that miss an exact match with Virtuoso's free-text index (bif:contains) instead of a case-insensitive scan of every name; backend sparql only, and the endpoint's text index must be enabled"`
	RelationIndex    string        `yaml:"relation_index" desc:"auto (or empty) lists an entity's relations from the relation index that parog kg virtuoso setup writes, when the endpoint holds it, else from its facts; off always lists from the facts"`
}

// LLM configures the model endpoints.
type LLM struct {
	// Planner is the (fine-tuned) planner; when its base_url is empty the
	// reasoner plans from a few-shot prompt.
	Planner Endpoint `yaml:"planner"`
	// Reasoner answers, explores, refines and judges sufficiency.
	Reasoner Endpoint `yaml:"reasoner"`
	// Teacher renders subgoals for sparql2plan.
	Teacher Endpoint `yaml:"teacher"`
	// Embeddings, when set, ranks relations by similarity to the subgoal
	// where an exploration round has more than
	// engine.max_offered_relations of them.
	Embeddings Embeddings `yaml:"embeddings"`
}

// Embeddings is an OpenAI-compatible /v1/embeddings endpoint.
type Embeddings struct {
	BaseURL   string        `yaml:"base_url" desc:"OpenAI-compatible base URL of an embeddings model (e.g. BGE served by vLLM or Ollama, http://localhost:8001/v1); used to rank relations when a round has more than engine.max_offered_relations; empty ranks them by word overlap"`
	Model     string        `yaml:"model" desc:"embeddings model name sent to the endpoint"`
	APIKeyEnv string        `yaml:"api_key_env" desc:"name of the environment variable holding the embeddings endpoint's API key"`
	APIKey    string        `yaml:"api_key" desc:"embeddings endpoint API key (prefer api_key_env); masked in logs" secret:"true"`
	Timeout   time.Duration `yaml:"timeout" desc:"deadline of one embeddings call; on failure relations are ranked by word overlap and lqt trees by lexical cosine"`
}

// Endpoint is one OpenAI-compatible chat endpoint.
type Endpoint struct {
	BaseURL     string  `yaml:"base_url" desc:"OpenAI-compatible base URL, e.g. http://localhost:8000/v1; empty leaves the role unconfigured"`
	Model       string  `yaml:"model" desc:"model name sent to the endpoint"`
	APIKeyEnv   string  `yaml:"api_key_env" desc:"name of the environment variable holding the API key"`
	APIKey      string  `yaml:"api_key" desc:"API key (prefer api_key_env); masked in logs" secret:"true"`
	Temperature float64 `yaml:"temperature" desc:"sampling temperature"`
	Seed        *int    `yaml:"seed" desc:"sampling seed sent to the endpoint (unset sends none)"`
	// SeedTemperature makes the seeds of a repeated run (eval --seeds)
	// mean something: at temperature 0 decoding is greedy and every seed
	// gives the same run.
	SeedTemperature float64       `yaml:"seed_temperature" desc:"sampling temperature of calls made under a run seed (eval --seeds); 0 keeps temperature"`
	MaxTokens       int           `yaml:"max_tokens" desc:"largest completion, in tokens"`
	Timeout         time.Duration `yaml:"timeout" desc:"deadline of one chat call, retries included"`
	Concurrency     int           `yaml:"concurrency" desc:"calls in flight at once to this endpoint"`
	Retries         int           `yaml:"retries" desc:"retries after 429, 5xx or a connection error"`
	JSONSchema      bool          `yaml:"json_schema" desc:"send response_format with a JSON schema (vLLM, OpenAI); off extracts JSON from free text"`
}

// Engine holds the budgets of the Plan-Answer-Refine loop.
type Engine struct {
	Width                  int           `yaml:"width" desc:"entities kept per subgoal after pruning"`
	Depth                  int           `yaml:"depth" desc:"hops explored per subgoal"`
	MaxRounds              int           `yaml:"max_rounds" desc:"exploration rounds per subgoal before it is answered as is"`
	MaxEntitiesPerRelation int           `yaml:"max_entities_per_relation" desc:"facts per (entity, relation) pair shown to the LLM as evidence; exact set logic uses every fact up to kg.neighbor_limit"`
	MaxRelationsPerEntity  int           `yaml:"max_relations_per_entity" desc:"relations the LLM may choose per anchor entity"`
	MaxOfferedRelations    int           `yaml:"max_offered_relations" desc:"relations shown to the LLM in one exploration round, grouped by type; above it the most relevant are shown (ranked by llm.embeddings when set, else by word overlap) and the cut is recorded in the trace"`
	Parallelism            int           `yaml:"parallelism" desc:"independent subgoals run at once"`
	Deadline               time.Duration `yaml:"deadline" desc:"overall deadline of one question"`
	FuseSufficiency        bool          `yaml:"fuse_sufficiency" desc:"ask the sufficiency question inside the refine call (saves one call per subgoal)"`
	PlanTentatives         bool          `yaml:"plan_tentatives" desc:"ask the planner for each find subgoal's tentative answer inside the plan reply (saves one call per find subgoal); a subgoal the plan gave none asks for it in a call of its own, as PARoG does"`
	Ordering               string        `yaml:"ordering" desc:"order of a conjunction's branches: cost (the branch the KG's counts estimate smallest runs first, the others check its candidates instead of exploring) or plan (every branch explored in full, in plan order)"`
	Direct                 bool          `yaml:"direct" desc:"answer a greeting, arithmetic or a question about the service itself without planning or the KG (route direct, flagged answered_without_kg)"`
	OutsideKG              string        `yaml:"outside_kg" desc:"what a question outside the KG (route boundary: no entity of it links, or its answer subgoal asks for a property no relation carries) gets: model (the model's own knowledge, flagged answered_without_kg, as PoG; for a missing property the tentative answer) or notice (an answer saying the KG does not cover it)"`
	TracePrompts           bool          `yaml:"trace_prompts" desc:"put every model call's messages and raw reply, and every SPARQL query sent, into the trace (answer.transcript), by subgoal and round; traces grow several-fold (--trace-prompts)"`
	RelationPrior          string        `yaml:"relation_prior" desc:"relation prior file (parog relprior build, from sparql2plan SFT records of train splits): offers are ranked by it with word overlap or embeddings before they are paged or cut; empty ranks without it; relative to the config file"`
	RelationOffer          string        `yaml:"relation_offer" desc:"how an offer of more than engine.short_offer relations is shown: adaptive (when the ranking's top is clear, the short_offer best-ranked relations first, or, when more contend for the top but at most half the offer, those contenders first, and the others only when the model replies that none of those fits; an offer of which more than half contend is offered whole) or full (the whole offer, split into pages only by the prompt budget)"`
	ShortOffer             int           `yaml:"short_offer" desc:"relations on the short first page of an adaptive offer (engine.relation_offer)"`
	ClearTopFacts          bool          `yaml:"clear_top_facts" desc:"when a find's first round has a clear relation ranking whose top is a single relation, fetch its facts and go straight to refinement without the relation-choice call (saves one call); when refinement finds them misaligned, or there is no fact, the model chooses among the whole offer as usual in the next round, which the round budget does not count; a comparison whose plan names its attribute by the exact name of one offered relation likewise reads it without the choice; on by default, off in configs/paper (PARoG's choice in every round)"`
	RelationChoice         string        `yaml:"relation_choice" desc:"how a round with several anchors chooses relations: set (the topic entities a subgoal starts from are each offered their own relations, as with anchor; the members of one set, an earlier subgoal's answer or a round's frontier, share one offer and one choice), anchor (each anchor, or each set of anchors with the same untried relations, is offered its own and chooses its own) or round (one offer of every anchor's relations, the choice shared)"`
	RetrievalRules         []string      `yaml:"retrieval_rules" desc:"overrides of the retrieval plan's rule table, each CATEGORY.PARAM=VALUE; categories count, superlative, comparative, temporal, conjunction, composition; params width, depth, relations, facts_per_pair, facts_per_prompt, truncate_neighbors, tentative, prune (auto, lexical, llm); e.g. count.depth=3"`
}

// Server configures the HTTP API.
type Server struct {
	Addr               string        `yaml:"addr" desc:"listen address HOST:PORT"`
	APIKeys            []string      `yaml:"api_keys" desc:"bearer API keys accepted; required when addr is not loopback" secret:"true"`
	APIKeysEnv         string        `yaml:"api_keys_env" desc:"environment variable holding comma-separated API keys"`
	RateLimit          float64       `yaml:"rate_limit" desc:"requests per second allowed per API key (0 disables)"`
	RateBurst          int           `yaml:"rate_burst" desc:"burst of requests allowed per API key"`
	MaxBodyBytes       int64         `yaml:"max_body_bytes" desc:"largest request body accepted"`
	MaxQuestionLen     int           `yaml:"max_question_len" desc:"longest question accepted, in characters"`
	RequestTimeout     time.Duration `yaml:"request_timeout" desc:"deadline of one request"`
	SPARQLTimeout      time.Duration `yaml:"sparql_timeout" desc:"deadline of one /sparql query"`
	SPARQLMaxRows      int           `yaml:"sparql_max_rows" desc:"rows returned by /sparql at most"`
	SPARQLConcurrency  int           `yaml:"sparql_concurrency" desc:"/sparql queries evaluated at once; more get 503 (0: 2)"`
	SPARQLMaxBytes     int64         `yaml:"sparql_max_bytes" desc:"largest /sparql answer held for a client, in bytes; rows past it are cut (X-Parog-Truncated) (0: 16 MiB)"`
	SPARQLAnswerBudget int64         `yaml:"sparql_answer_budget" desc:"bytes of /sparql answers held at once for their clients, reserved at sparql_max_bytes each while a query runs; a client holds a quarter of it at most (and at least one answer); over it a request gets 503 with Retry-After (0: 128 MiB)"`
	SPARQLWriteTimeout time.Duration `yaml:"sparql_write_timeout" desc:"time a client has to read a whole /sparql answer before its connection is closed (0: 30s)"`
	MaxQuestions       int           `yaml:"max_questions" desc:"questions (ask, chat, plan) answered at once (0: llm.reasoner.concurrency / engine.parallelism)"`
	MaxQuestionsPerKey int           `yaml:"max_questions_per_key" desc:"questions one API key (or client address) may have answered at once (0: three quarters of max_questions)"`
	QuestionQueue      int           `yaml:"question_queue" desc:"questions waiting for a place at most; more get 503 (0: max_questions)"`
	QuestionWait       time.Duration `yaml:"question_wait" desc:"longest wait of a question for a place before 503 (0: 10s)"`
	ReadTimeout        time.Duration `yaml:"read_timeout" desc:"time a client has to send a whole request, body included (0: 30s)"`
	MaxConns           int           `yaml:"max_conns" desc:"client connections served at once; more wait to be accepted (0: 1024)"`
	CORSOrigins        []string      `yaml:"cors_origins" desc:"web origins (scheme://host[:port]) allowed to call the API from a browser (CORS); none by default"`
	ShutdownGrace      time.Duration `yaml:"shutdown_grace" desc:"time given to in-flight requests on shutdown"`
	GCPercent          int           `yaml:"gc_percent" desc:"garbage collection target of parog serve: the heap grows by this percent of the live heap between collections (Go's GOGC, whose default is 100; a GOGC variable in the environment wins). 0 (default): chosen at startup from the live heap once the KG is open, for about 256 MB of growth, between 100 and 400 (a small graph's live heap gets 400: a question allocates about 100 KB, and at 100 the demo server collected every 200-300 questions)"`
}

// Default returns the configuration used where a file says nothing.
func Default() Config {
	ep := func() Endpoint {
		return Endpoint{Temperature: 0, MaxTokens: 1024, Timeout: 60 * time.Second, Concurrency: 8, Retries: 3, JSONSchema: true}
	}
	return Config{
		KG: KG{
			Backend: "embedded", Dialect: "freebase",
			Timeout: 30 * time.Second, Retries: 2, MaxResponseBytes: 64 << 20,
			MaxConns: 32, CacheSize: 100_000, Language: "en", NeighborLimit: 200,
		},
		LLM: LLM{Planner: ep(), Reasoner: ep(), Teacher: ep(), Embeddings: Embeddings{Timeout: 30 * time.Second}},
		Engine: Engine{
			Width: 3, Depth: 2, MaxRounds: 2, MaxEntitiesPerRelation: 20,
			MaxRelationsPerEntity: 3, MaxOfferedRelations: 500, Parallelism: 4, Deadline: 120 * time.Second,
			FuseSufficiency: true, PlanTentatives: true, Direct: true, OutsideKG: "model", Ordering: "cost", RelationChoice: "set",
			RelationOffer: "adaptive", ShortOffer: 30, ClearTopFacts: true,
		},
		Server: Server{
			Addr: "127.0.0.1:8080", RateLimit: 5, RateBurst: 10, MaxBodyBytes: 1 << 20,
			MaxQuestionLen: 2000, RequestTimeout: 120 * time.Second,
			SPARQLTimeout: 10 * time.Second, SPARQLMaxRows: 10_000, ShutdownGrace: 30 * time.Second,
		},
		Cache: Cache{Backend: "none", TTL: 24 * time.Hour, MaxEntryBytes: 1 << 20, Timeout: 200 * time.Millisecond,
			BreakerFailures: 5, BreakerCooldown: 30 * time.Second},
		Planner: Planner{Mode: "parog", LQT: LQT{MaxExact: 12, MaxAtoms: 16, Alpha: 10, CacheSize: 10_000, Parallelism: 8}},
	}
}
