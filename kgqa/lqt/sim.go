package lqt

import (
	"context"
	"fmt"
	"math"
	"strings"
	"unicode"

	"github.com/parog/parog-go/internal/naming"
	"github.com/parog/parog-go/kgqa/llm"
)

// Similarity scores how alike atomic queries are: Sim in the tree cost.
type Similarity interface {
	// Name is "lexical" or "embeddings", recorded in the trace.
	Name() string
	// Matrix returns the similarity of every pair of texts, in [0, 1].
	Matrix(ctx context.Context, texts []string) ([][]float64, error)
}

// Lexical is the cosine of the queries' word counts, stopwords and "#k"
// references left out. It needs no endpoint.
type Lexical struct{}

var _ Similarity = Lexical{}

// Name is "lexical".
func (Lexical) Name() string { return "lexical" }

// Matrix returns the lexical cosine of every pair.
func (Lexical) Matrix(_ context.Context, texts []string) ([][]float64, error) {
	vecs := make([]map[string]float64, len(texts))
	for i, t := range texts {
		vecs[i] = wordCounts(t)
	}
	return matrix(len(texts), func(a, b int) float64 { return sparseCosine(vecs[a], vecs[b]) }), nil
}

// To returns the lexical cosine of a text with question, remembering the
// texts it has scored (the dynamic programme composes the same text more
// than once). Not safe for concurrent use.
func (Lexical) To(question string) func(text string) float64 {
	q := wordCounts(question)
	seen := map[string]float64{}
	return func(text string) float64 {
		if v, ok := seen[text]; ok {
			return v
		}
		v := sparseCosine(wordCounts(text), q)
		seen[text] = v
		return v
	}
}

// wordCounts counts a text's words, stopwords and "#k" references left
// out.
func wordCounts(t string) map[string]float64 {
	out := map[string]float64{}
	for _, w := range strings.FieldsFunc(strings.ToLower(t), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '#' }) {
		if strings.HasPrefix(w, "#") || naming.Stopword(w) {
			continue
		}
		out[w]++
	}
	return out
}

func sparseCosine(a, b map[string]float64) float64 {
	var dot, na, nb float64
	for w, x := range a {
		dot += x * b[w]
		na += x * x
	}
	for _, y := range b {
		nb += y * y
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

func matrix(n int, f func(a, b int) float64) [][]float64 {
	m := make([][]float64, n)
	for i := range m {
		m[i] = make([]float64, n)
	}
	for a := 0; a < n; a++ {
		for b := a + 1; b < n; b++ {
			v := max(0, min(1, f(a, b)))
			m[a][b], m[b][a] = v, v
		}
	}
	return m
}

// Embeddings is the cosine of the queries' vectors from the engine's
// embeddings client (llm.embeddings: an OpenAI-compatible /v1/embeddings
// endpoint, a BGE model served by vLLM or Ollama for instance), negative
// cosines counted as 0.
type Embeddings struct {
	embedder llm.Embedder
}

var _ Similarity = (*Embeddings)(nil)

// NewEmbeddings returns the similarity of the vectors embedder gives.
func NewEmbeddings(embedder llm.Embedder) *Embeddings {
	return &Embeddings{embedder: embedder}
}

// Name is "embeddings".
func (*Embeddings) Name() string { return "embeddings" }

// Matrix embeds the texts and returns their cosines.
func (e *Embeddings) Matrix(ctx context.Context, texts []string) ([][]float64, error) {
	vecs, err := e.embedder.Embed(ctx, texts)
	if err != nil {
		return nil, fmt.Errorf("lqt: embeddings: %w", err)
	}
	if len(vecs) != len(texts) {
		return nil, fmt.Errorf("lqt: embeddings: %d vectors for %d texts", len(vecs), len(texts))
	}
	for i, v := range vecs {
		if len(v) == 0 {
			return nil, fmt.Errorf("lqt: embeddings: no vector for text %d", i)
		}
		if len(v) != len(vecs[0]) {
			return nil, fmt.Errorf("lqt: embeddings: vectors of %d and %d dimensions", len(vecs[0]), len(v))
		}
	}
	return matrix(len(texts), func(a, b int) float64 { return llm.Cosine(vecs[a], vecs[b]) }), nil
}
