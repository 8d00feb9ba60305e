package llm

import (
	"context"
	"fmt"
	"math"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/config"
	openai "github.com/sashabaranov/go-openai"
)

// Embeddings is the role of calls to the embeddings endpoint in the
// accounting.
const Embeddings kgqa.Role = "embeddings"

// StageEmbed is the stage of an embeddings call in the accounting.
const StageEmbed kgqa.Stage = "embed"

// Embedder turns texts into vectors, one per text in order, for ranking
// by similarity. *EmbeddingsClient implements it.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// maxCachedEmbeddings bounds the vectors an EmbeddingsClient keeps.
const maxCachedEmbeddings = 50_000

// EmbeddingsClient calls an OpenAI-compatible /v1/embeddings endpoint (a
// BGE or similar model served by vLLM, Ollama or llama.cpp). Vectors are
// cached by text, since the same relation names recur across questions;
// each call that reaches the endpoint is recorded in the context's
// ledger under the role Embeddings. It is safe for concurrent use.
type EmbeddingsClient struct {
	api     *openai.Client
	model   string
	timeout time.Duration

	mu    sync.Mutex
	cache map[string][]float32
}

var _ Embedder = (*EmbeddingsClient)(nil)

// NewEmbeddings builds a client for cfg. The options that apply are
// WithGetenv (the API key variable) and WithHTTPClient.
func NewEmbeddings(cfg config.Embeddings, opts ...Option) (*EmbeddingsClient, error) {
	u, err := url.Parse(cfg.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("llm: embeddings: llm.embeddings.base_url %q: want an http(s) URL", cfg.BaseURL)
	}
	if cfg.Model == "" {
		return nil, fmt.Errorf("llm: embeddings: llm.embeddings.model: empty")
	}
	c := &Client{getenv: os.LookupEnv}
	for _, o := range opts {
		o(c)
	}
	key, _ := c.apiKey(config.Endpoint{APIKey: cfg.APIKey, APIKeyEnv: cfg.APIKeyEnv})
	oc := openai.DefaultConfig(key)
	oc.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	if c.http != nil {
		oc.HTTPClient = c.http
	}
	return &EmbeddingsClient{api: openai.NewClientWithConfig(oc), model: cfg.Model, timeout: cfg.Timeout, cache: map[string][]float32{}}, nil
}

// Embed returns one vector per text. Texts seen before are answered from
// the cache; the rest go to the endpoint in one request.
func (e *EmbeddingsClient) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	var missing []string
	var at []int
	e.mu.Lock()
	for i, t := range texts {
		if v, ok := e.cache[t]; ok {
			out[i] = v
		} else {
			missing = append(missing, t)
			at = append(at, i)
		}
	}
	e.mu.Unlock()
	if len(missing) == 0 {
		return out, nil
	}
	if e.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, e.timeout)
		defer cancel()
	}
	start := time.Now()
	resp, err := e.api.CreateEmbeddings(ctx, openai.EmbeddingRequestStrings{Input: missing, Model: openai.EmbeddingModel(e.model)})
	rec := kgqa.Call{Role: Embeddings, Stage: StageEmbed, Model: e.model, Latency: time.Since(start), Start: start}
	if err != nil {
		rec.Err = err.Error()
		kgqa.LedgerFrom(ctx).Add(rec)
		return nil, fmt.Errorf("llm: embeddings: %w: %w", kgqa.ErrModelUnavailable, err)
	}
	rec.PromptTokens, rec.Requests = resp.Usage.PromptTokens, 1
	kgqa.LedgerFrom(ctx).Add(rec)
	if len(resp.Data) != len(missing) {
		return nil, fmt.Errorf("llm: embeddings: %d vectors for %d texts", len(resp.Data), len(missing))
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, d := range resp.Data {
		if d.Index < 0 || d.Index >= len(missing) || len(d.Embedding) == 0 {
			return nil, fmt.Errorf("llm: embeddings: vector index %d out of range or empty", d.Index)
		}
		out[at[d.Index]] = d.Embedding
		if len(e.cache) < maxCachedEmbeddings {
			e.cache[missing[d.Index]] = d.Embedding
		}
	}
	for i, v := range out {
		if v == nil {
			return nil, fmt.Errorf("llm: embeddings: no vector for text %d", i)
		}
	}
	return out, nil
}

// Cosine is the cosine of two vectors: 0 when their lengths differ or
// either is zero.
func Cosine(a, b []float32) float64 {
	if len(a) != len(b) {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		dot += x * y
		na += x * x
		nb += y * y
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}
