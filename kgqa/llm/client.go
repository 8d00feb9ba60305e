package llm

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/parog/parog-go/internal/backoff"
	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
)

// StageHeader is the request header that names the stage of a call. Real
// servers ignore it; the scripted test server routes on it.
const StageHeader = "X-Parog-Stage"

// Client is the OpenAI-compatible chat client of all roles. It is safe for
// concurrent use.
type Client struct {
	roles    map[kgqa.Role]*endpoint
	observer func(kgqa.Call)
	getenv   func(string) (string, bool)
	http     *http.Client
	ownHTTP  bool
	policy   backoff.Policy // the waits between attempts
	maxReply int64          // cap on a response body
	log      *slog.Logger
	now      func() time.Time // the clock of Call.Start, Wait and Latency
}

var _ kgqa.Chatter = (*Client)(nil)

type endpoint struct {
	role kgqa.Role
	cfg  config.Endpoint
	api  *openai.Client
	sem  chan struct{} // nil: no limit
	caps *caps
	key  string // API key; empty sends none
	// keyUnset records that api_key_env names a variable that is not set.
	keyUnset bool
}

// apiKey is ep's API key: api_key, else the value of the api_key_env
// variable. A key is needed only where the endpoint wants one, so an unset
// variable gives no key (unset reports it, for New to say so once).
func (c *Client) apiKey(ep config.Endpoint) (key string, unset bool) {
	if ep.APIKey != "" || ep.APIKeyEnv == "" {
		return ep.APIKey, false
	}
	v, ok := c.getenv(ep.APIKeyEnv)
	return v, !ok || v == ""
}

// Option configures a Client.
type Option func(*Client)

// WithGetenv sets how environment variables (API keys) are read; the
// default is os.LookupEnv.
func WithGetenv(getenv func(string) (string, bool)) Option {
	return func(c *Client) { c.getenv = getenv }
}

// WithObserver calls fn after every call (for metrics). fn runs on the
// calling goroutine and must be safe for concurrent use.
func WithObserver(fn func(kgqa.Call)) Option { return func(c *Client) { c.observer = fn } }

// WithHTTPClient sends requests with hc instead of a client of our own; its
// Timeout should be zero (deadlines come from the role's timeout).
func WithHTTPClient(hc *http.Client) Option {
	return func(c *Client) { c.http, c.ownHTTP = hc, false }
}

// WithBackoff sets the first retry wait and the largest one (defaults 500ms
// and 20s). A Retry-After header from the server takes precedence.
func WithBackoff(first, largest time.Duration) Option {
	return func(c *Client) { c.policy.First, c.policy.Max = first, largest }
}

// WithMaxReplyBytes caps the size of a response body (default
// DefaultMaxReplyBytes); n <= 0 keeps the default. A larger reply fails at
// once, without retries, with an error that matches both ErrReplyTooLarge
// and ErrUnavailable.
func WithMaxReplyBytes(n int64) Option {
	return func(c *Client) {
		if n > 0 {
			c.maxReply = n
		}
	}
}

// WithLogger sets the logger that reports, once per endpoint, a request
// parameter the endpoint rejected, and once per variable an unset API key
// variable (default: slog.Default()).
func WithLogger(l *slog.Logger) Option { return func(c *Client) { c.log = l } }

// idleConns is the idle connections the client's own transport keeps per
// host: the calls its roles may have in flight at once, 64 at least (a
// role without a limit counts 64).
func idleConns(cfg config.LLM) int {
	n := 0
	for _, ep := range []config.Endpoint{cfg.Planner, cfg.Reasoner, cfg.Teacher} {
		switch {
		case ep.BaseURL == "":
		case ep.Concurrency > 0:
			n += ep.Concurrency
		default:
			n += 64
		}
	}
	return max(n, 64)
}

// New builds a client for the roles of cfg; a role with an empty base_url
// stays unconfigured (calls to it fail with ErrNotConfigured).
func New(cfg config.LLM, opts ...Option) (*Client, error) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	// Every call that may be in flight keeps its connection when it ends:
	// with fewer idle connections than calls at once, a busy server closed
	// and dialled a connection for one call in seven.
	tr.MaxIdleConns, tr.MaxIdleConnsPerHost = 0, idleConns(cfg)
	c := &Client{
		roles:    map[kgqa.Role]*endpoint{},
		getenv:   os.LookupEnv,
		http:     &http.Client{Transport: tr},
		ownHTTP:  true,
		policy:   backoff.Policy{First: 500 * time.Millisecond, Max: 20 * time.Second},
		maxReply: DefaultMaxReplyBytes,
		log:      slog.Default(),
		now:      time.Now,
	}
	for _, o := range opts {
		o(c)
	}
	if c.log == nil {
		c.log = slog.Default()
	}
	doer := &stageDoer{hc: c.http, maxBody: c.maxReply}
	noted := map[string]bool{}
	for _, role := range []kgqa.Role{kgqa.Planner, kgqa.Reasoner, kgqa.Teacher} {
		ep := map[kgqa.Role]config.Endpoint{kgqa.Planner: cfg.Planner, kgqa.Reasoner: cfg.Reasoner, kgqa.Teacher: cfg.Teacher}[role]
		if ep.BaseURL == "" {
			continue
		}
		e, err := c.endpoint(role, ep, doer)
		if err != nil {
			return nil, fmt.Errorf("llm: new: %w", err)
		}
		if e.keyUnset && !noted[ep.APIKeyEnv] {
			noted[ep.APIKeyEnv] = true
			c.log.Info("llm: API key variable not set; sending no API key (fine for endpoints that want none, such as Ollama, vLLM or llama.cpp)",
				"setting", "llm."+string(role)+".api_key_env", "variable", ep.APIKeyEnv)
		}
		c.roles[role] = e
	}
	return c, nil
}

func (c *Client) endpoint(role kgqa.Role, ep config.Endpoint, doer openai.HTTPDoer) (*endpoint, error) {
	u, err := url.Parse(ep.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("llm.%s.base_url %q: want an http(s) URL", role, ep.BaseURL)
	}
	switch {
	case ep.Model == "":
		return nil, fmt.Errorf("llm.%s.model: empty", role)
	case ep.Concurrency < 0:
		return nil, fmt.Errorf("llm.%s.concurrency: %d is negative", role, ep.Concurrency)
	case ep.Retries < 0:
		return nil, fmt.Errorf("llm.%s.retries: %d is negative", role, ep.Retries)
	case ep.Timeout < 0:
		return nil, fmt.Errorf("llm.%s.timeout: %s is negative", role, ep.Timeout)
	case ep.MaxTokens < 0:
		return nil, fmt.Errorf("llm.%s.max_tokens: %d is negative", role, ep.MaxTokens)
	}
	key, keyUnset := c.apiKey(ep)
	oc := openai.DefaultConfig(key)
	oc.BaseURL = strings.TrimRight(ep.BaseURL, "/")
	oc.HTTPClient = doer
	first := Capabilities{Format: FormatPrompt, Seed: true, CompletionTokens: isReasoningModel(ep.Model)}
	if ep.JSONSchema {
		first.Format = FormatJSONSchema
	}
	e := &endpoint{role: role, cfg: ep, api: openai.NewClientWithConfig(oc), caps: &caps{c: first}, key: key, keyUnset: keyUnset}
	if ep.Concurrency > 0 {
		e.sem = make(chan struct{}, ep.Concurrency)
	}
	return e, nil
}

// Capabilities reports what the endpoint of role has been found to accept,
// and false when the role is not configured.
func (c *Client) Capabilities(role kgqa.Role) (Capabilities, bool) {
	e := c.roles[role]
	if e == nil {
		return Capabilities{}, false
	}
	return e.caps.get(), true
}

// Has reports whether role has a configured endpoint.
func (c *Client) Has(role kgqa.Role) bool { return c.roles[role] != nil }

// Close releases idle connections of the client's own HTTP transport.
func (c *Client) Close() error {
	if c.ownHTTP {
		c.http.CloseIdleConnections()
	}
	return nil
}

// Chat sends req and returns the reply text. The call is recorded in the
// context's Ledger and passed to the observer.
func (c *Client) Chat(ctx context.Context, req kgqa.ChatRequest) (kgqa.ChatResponse, error) {
	e, err := c.lookup(req)
	if err != nil {
		return kgqa.ChatResponse{}, err
	}
	content, call, err := c.call(ctx, e, req, req.Messages, false)
	return kgqa.ChatResponse{Content: content, Usage: call}, err
}

func (c *Client) lookup(req kgqa.ChatRequest) (*endpoint, error) {
	e := c.roles[req.Role]
	if e == nil {
		return nil, fmt.Errorf("llm: %s/%s: %w", req.Role, req.Stage, kgqa.ErrModelNotConfigured)
	}
	return e, nil
}

// call makes one accounted chat completion, retries included. The time
// spent waiting for a concurrency slot is kept apart from the call's
// latency (Call.Wait), so that a queue in front of a fast endpoint does
// not read as a slow endpoint. A call that never got a slot (cancelled
// while waiting) is not recorded in the ledger; the observer still sees
// it, with no requests, so that metrics can count it apart from calls made.
func (c *Client) call(ctx context.Context, e *endpoint, req kgqa.ChatRequest, msgs []kgqa.Message, schema bool) (string, kgqa.Call, error) {
	queued := c.now()
	rec := kgqa.Call{Role: e.role, Stage: req.Stage, Model: e.cfg.Model}
	unsent := func(err error) (string, kgqa.Call, error) {
		rec.Wait = c.now().Sub(queued)
		err = fmt.Errorf("llm: %s/%s: not sent: %w", e.role, req.Stage, err)
		rec.Err = err.Error()
		if c.observer != nil {
			c.observer(rec)
		}
		return "", rec, err
	}
	if e.sem != nil {
		select {
		case e.sem <- struct{}{}:
			defer func() { <-e.sem }()
		case <-ctx.Done():
			return unsent(ctx.Err())
		}
	}
	if err := ctx.Err(); err != nil {
		// Cancelled before it could start (select may take a free slot
		// although the context is done): nothing is sent.
		return unsent(err)
	}
	start := c.now()
	rec.Start, rec.Wait = start, start.Sub(queued)
	callCtx, cancel := ctx, context.CancelFunc(func() {})
	if e.cfg.Timeout > 0 {
		callCtx, cancel = context.WithTimeout(ctx, e.cfg.Timeout)
	}
	defer cancel()
	resp, attempts, err := c.send(ctx, callCtx, e, req, msgs, schema, &rec)
	rec.Latency = c.now().Sub(start)
	rec.Retries = max(attempts-1, 0)
	var content string
	if err == nil {
		content = resp.Choices[0].Message.Content
		rec.PromptTokens, rec.CompletionTokens = resp.Usage.PromptTokens, resp.Usage.CompletionTokens
		if rec.PromptTokens == 0 && rec.CompletionTokens == 0 {
			rec.PromptTokens, rec.CompletionTokens, rec.Estimated = estimate(msgs), tokens(content), true
		}
	} else {
		rec.Err = err.Error()
	}
	c.record(ctx, rec)
	kgqa.RecorderFrom(ctx).AddCall(ctx, kgqa.Exchange{Role: e.role, Stage: req.Stage, Messages: msgs, Reply: content, Error: rec.Err})
	return content, rec, err
}

// maxFallbacks bounds the resends after rejected parameters: three formats
// and two more parameters.
const maxFallbacks = 4

// send makes the attempts of one call. When the endpoint rejects a request
// parameter, the endpoint's capabilities narrow (logged once) and the call
// is sent again without it, counted in rec.Fallbacks.
func (c *Client) send(ctx, callCtx context.Context, e *endpoint, req kgqa.ChatRequest, msgs []kgqa.Message, schema bool, rec *kgqa.Call) (openai.ChatCompletionResponse, int, error) {
	total := 0
	for {
		capa := e.caps.get()
		oreq := e.request(req, msgs, schema, capa)
		if t := e.cfg.SeedTemperature; t > 0 && runSeed(ctx) && !isReasoningModel(e.cfg.Model) {
			oreq.Temperature = float32(t)
		}
		if capa.Seed {
			oreq.Seed = seedFrom(ctx, oreq.Seed)
		}
		resp, attempts, err := c.attempts(callCtx, e, req.Stage, oreq, &rec.Requests)
		total += attempts
		if err == nil {
			return resp, total, nil
		}
		if rec.Fallbacks < maxFallbacks && ctx.Err() == nil {
			if what := e.caps.learn(err, oreq); what != "" {
				if what != "again" {
					c.log.Warn("llm: endpoint rejected a request parameter; using a fallback for the life of the process",
						"role", e.role, "model", e.cfg.Model, "change", what, "error", err)
				}
				rec.Fallbacks++
				total -= attempts // the rejected request is not a retry
				continue
			}
		}
		return resp, total, c.finalError(ctx, callCtx, e, req.Stage, err)
	}
}

func (c *Client) record(ctx context.Context, rec kgqa.Call) {
	kgqa.LedgerFrom(ctx).Add(rec)
	if c.observer != nil {
		c.observer(rec)
	}
}

// finalError maps the last attempt's error onto the typed errors: the
// caller's own cancellation is returned as is; the role's timeout,
// exhausted retries and a reply over the cap (ErrReplyTooLarge as well)
// are ErrUnavailable; other 4xx are ErrRejected.
func (c *Client) finalError(parent, callCtx context.Context, e *endpoint, stage kgqa.Stage, err error) error {
	op := fmt.Sprintf("llm: %s/%s", e.role, stage)
	if perr := parent.Err(); perr != nil {
		return fmt.Errorf("%s: %w", op, perr)
	}
	if callCtx.Err() != nil {
		return fmt.Errorf("%s: %w: no reply within %s: %w", op, kgqa.ErrModelUnavailable, e.cfg.Timeout, context.DeadlineExceeded)
	}
	if errors.Is(err, kgqa.ErrReplyTooLarge) {
		return fmt.Errorf("%s: %w: %w", op, kgqa.ErrModelUnavailable, err)
	}
	var f *failure
	if errors.As(err, &f) && !f.retryable {
		return fmt.Errorf("%s: %w: %w", op, kgqa.ErrModelRejected, err)
	}
	return fmt.Errorf("%s: %w: %w", op, kgqa.ErrModelUnavailable, err)
}

// request builds the wire request of one call.
func (e *endpoint) request(req kgqa.ChatRequest, msgs []kgqa.Message, schema bool, capa Capabilities) openai.ChatCompletionRequest {
	o := openai.ChatCompletionRequest{Model: e.cfg.Model, Seed: e.cfg.Seed}
	if !capa.Seed {
		o.Seed = nil
	}
	if schema && capa.Format != FormatJSONSchema && !strings.Contains(lastUser(msgs), string(req.Schema)) {
		msgs = schemaInPrompt(msgs, req.Schema)
	}
	for _, m := range msgs {
		o.Messages = append(o.Messages, openai.ChatCompletionMessage{Role: m.Role, Content: m.Content})
	}
	reasoning := isReasoningModel(e.cfg.Model)
	if !reasoning {
		// go-openai omits a zero temperature, and servers default to 1;
		// the smallest positive float is sent instead, which servers treat
		// as greedy decoding.
		o.Temperature = float32(e.cfg.Temperature)
		if o.Temperature == 0 {
			o.Temperature = math.SmallestNonzeroFloat32
		}
	}
	maxTok := e.cfg.MaxTokens
	if req.MaxTokens > 0 {
		maxTok = req.MaxTokens
	}
	if capa.CompletionTokens {
		o.MaxCompletionTokens = maxTok
	} else {
		//lint:ignore SA1019 max_tokens is what vLLM, Ollama and llama.cpp read.
		o.MaxTokens = maxTok
	}
	switch {
	case schema && capa.Format == FormatJSONObject:
		o.ResponseFormat = &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONObject}
	case schema && capa.Format == FormatJSONSchema:
		// The strict form: every property required (optional ones
		// nullable), so that a server enforcing strict mode takes it.
		strict := Strictify(req.Schema)
		o.ResponseFormat = &openai.ChatCompletionResponseFormat{
			Type: openai.ChatCompletionResponseFormatTypeJSONSchema,
			JSONSchema: &openai.ChatCompletionResponseFormatJSONSchema{
				Name: schemaName(req.SchemaName), Schema: strict, Strict: StrictCompatible(strict),
			},
		}
	}
	return o
}

func lastUser(msgs []kgqa.Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "user" {
			return msgs[i].Content
		}
	}
	return ""
}

// isReasoningModel reports OpenAI models that refuse max_tokens and a
// temperature other than 1 (go-openai validates this before sending).
func isReasoningModel(model string) bool {
	for _, p := range []string{"o1", "o3", "o4", "gpt-5"} {
		if strings.HasPrefix(model, p) {
			return true
		}
	}
	return false
}

// schemaName makes name fit response_format's ^[a-zA-Z0-9_-]{1,64}$.
func schemaName(name string) string {
	var b strings.Builder
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
		if b.Len() == 64 {
			break
		}
	}
	if b.Len() == 0 {
		return "reply"
	}
	return b.String()
}

// estimate approximates the prompt tokens of msgs (about four characters a
// token, plus a few per message for the chat template).
func estimate(msgs []kgqa.Message) int {
	n := 0
	for _, m := range msgs {
		n += tokens(m.Content) + 4
	}
	return n
}

func tokens(s string) int { return (len(s) + 3) / 4 }
