package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/parog/parog-go/kgqa/llm/llmcache"
	"github.com/parog/parog-go/kgqa/prompts"
)

// cacheLine is one line of `parog llm-cache dump`.
type cacheLine struct {
	Key     string          `json:"key"`
	Request json.RawMessage `json:"request"`
	// Reply is the model's reply text; Body the whole reply when it is not
	// a chat completion.
	Reply  string `json:"reply"`
	Body   string `json:"body,omitempty"`
	Status int    `json:"status"`
}

func runLLMCache(ctx context.Context, env *Env, args []string) error {
	fs := newFlags(env, "llm-cache", "dump DIR")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 || pos[0] != "dump" {
		return usageError("want: parog llm-cache dump DIR")
	}
	if _, err := os.Stat(pos[1]); err != nil {
		return fmt.Errorf("llm-cache dump: %w", err)
	}
	c, err := llmcache.Open(pos[1], llmcache.ModeReplay)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(env.Stdout)
	err = c.Each(ctx, func(e llmcache.Entry) error {
		line := cacheLine{Key: e.Key, Request: e.Request, Status: e.Status}
		if reply, ok := e.Reply(); ok {
			line.Reply = reply
		} else {
			line.Body = e.Body
		}
		return enc.Encode(line)
	})
	return errors.Join(err, c.Close())
}

func runPrompts(_ context.Context, env *Env, args []string) error {
	fs := newFlags(env, "prompts", "dump DIR")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 || pos[0] != "dump" {
		return usageError("want: parog prompts dump DIR")
	}
	dir := pos[1]
	if err := checkOut("prompts dump", dir, true, false); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("prompts dump: %w", err)
	}
	err = prompts.DumpTo(func(name string, data []byte) error {
		return writeOutBytes("prompts dump", filepath.Join(dir, name), false, data)
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "wrote the built-in prompt templates to %s; edit them and pass --prompts-dir %s (or set prompts.dir)\n", pos[1], pos[1])
	return nil
}
