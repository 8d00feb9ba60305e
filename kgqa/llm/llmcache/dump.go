package llmcache

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/dgraph-io/badger/v4"
)

// Each calls fn with every stored entry, in key order, until fn returns an
// error or ctx is done.
func (c *Cache) Each(ctx context.Context, fn func(Entry) error) error {
	return c.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{PrefetchValues: true, PrefetchSize: 16, Prefix: []byte(keyPrefix)})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			if err := ctx.Err(); err != nil {
				return err
			}
			var e Entry
			if err := it.Item().Value(func(v []byte) error { return json.Unmarshal(v, &e) }); err != nil {
				return fmt.Errorf("llmcache: entry %s: %w", it.Item().Key(), err)
			}
			if err := fn(e); err != nil {
				return err
			}
		}
		return nil
	})
}

// Reply returns the text of the first choice of a chat completion reply
// body, and false when the body is not one (an embeddings reply, say).
func (e Entry) Reply() (string, bool) {
	var body struct {
		Choices []struct {
			Message struct {
				Content string `json:"content"`
			} `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal([]byte(e.Body), &body); err != nil || len(body.Choices) == 0 {
		return "", false
	}
	return body.Choices[0].Message.Content, true
}
