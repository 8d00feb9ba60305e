package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"

	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/llm"
	"github.com/parog/parog-go/kgqa/llm/llmcache"
	"github.com/parog/parog-go/kgqa/sharedcache"
)

// llmCacheFlags are --llm-cache and --llm-replay, shared by ask, eval and
// serve.
type llmCacheFlags struct {
	record, replay string
}

func addLLMCacheFlags(fs *flag.FlagSet) *llmCacheFlags {
	f := &llmCacheFlags{}
	fs.StringVar(&f.record, "llm-cache", "", "record every LLM request and reply in `DIR` (requests already there are answered from it)")
	fs.StringVar(&f.replay, "llm-replay", "", "answer every LLM request from the recording in `DIR`; no network; an unrecorded request fails naming its key")
	return f
}

// open opens the cache the flags name; nil when neither is given. With
// cache.backend redis the recording is shared through Redis too, so eval
// workers and server replicas reuse each other's model calls.
func (f *llmCacheFlags) open(ctx context.Context, cfg config.Config) (*llmcache.Cache, error) {
	var c *llmcache.Cache
	var err error
	switch {
	case f.record != "" && f.replay != "":
		return nil, usageError("give --llm-cache or --llm-replay, not both")
	case f.record != "":
		c, err = llmcache.Open(f.record, llmcache.ModeRecord)
	case f.replay != "":
		c, err = llmcache.Open(f.replay, llmcache.ModeReplay)
	default:
		return nil, nil
	}
	if err != nil || cfg.Cache.Backend != "redis" {
		return c, err
	}
	r, err := sharedcache.Open(ctx, cfg.Cache, "")
	if err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("llm cache: %w", err)
	}
	c.Share(r.Namespace("llm:"), r.Close)
	return c, nil
}

// cachedHTTP wraps base (a default client when nil) with cache c; with no
// cache it returns base.
func cachedHTTP(c *llmcache.Cache, base *http.Client) *http.Client {
	if c == nil {
		return base
	}
	var next http.RoundTripper
	if base != nil {
		next = base.Transport
	}
	return &http.Client{Transport: c.Transport(next)}
}

// cacheOptions are the llm client options that route calls through c.
func cacheOptions(c *llmcache.Cache) []llm.Option {
	if c == nil {
		return nil
	}
	return []llm.Option{llm.WithHTTPClient(cachedHTTP(c, nil))}
}

// closeCache closes c and reports what it did on w.
func closeCache(c *llmcache.Cache, w io.Writer) error {
	if c == nil {
		return nil
	}
	s := c.Stats()
	fmt.Fprintf(w, "parog: llm cache: %d replies from the cache, %d recorded, %d missing\n", s.Hits, s.Stored, s.Misses)
	return c.Close()
}
