package main

import (
	"flag"
	"fmt"
	"io"
	"net/http"

	"github.com/parog/parog-go/kgqa/llm"
	"github.com/parog/parog-go/kgqa/llm/llmcache"
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

// open opens the cache the flags name; nil when neither is given. The
// app shares it through Redis (app.shareCalls) when cache.backend is redis.
func (f *llmCacheFlags) open() (*llmcache.Cache, error) {
	switch {
	case f.record != "" && f.replay != "":
		return nil, usageError("give --llm-cache or --llm-replay, not both")
	case f.record != "":
		return llmcache.Open(f.record, llmcache.ModeRecord)
	case f.replay != "":
		return llmcache.Open(f.replay, llmcache.ModeReplay)
	}
	return nil, nil
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
