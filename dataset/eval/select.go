package eval

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"

	"github.com/parog/parog-go/dataset"
)

// Shard selects part of a question list: shard Index of Count (1-based).
// The zero value selects everything.
type Shard struct {
	// Index is 1..Count.
	Index int
	// Count is the number of shards; 0 or 1 means no sharding.
	Count int
}

// ParseShard reads "i/n" with 1 <= i <= n.
func ParseShard(s string) (Shard, error) {
	if s == "" {
		return Shard{}, nil
	}
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return Shard{}, fmt.Errorf("dataset: shard %q: want i/n with 1 <= i <= n, e.g. 1/4", s)
	}
	return Shard{Index: i, Count: n}, nil
}

// ParseShardBase reads "i/n" where i counts from base (0 or 1): "0/4" with
// base 0 is shard 1 of 4, as a 0-based task index (Kubernetes'
// JOB_COMPLETION_INDEX) names it.
func ParseShardBase(s string, base int) (Shard, error) {
	if base != 0 && base != 1 {
		return Shard{}, fmt.Errorf("dataset: shard base %d: want 0 or 1", base)
	}
	if s == "" || base == 1 {
		return ParseShard(s)
	}
	a, b, ok := strings.Cut(s, "/")
	i, err := strconv.Atoi(strings.TrimSpace(a))
	if !ok || err != nil {
		return Shard{}, fmt.Errorf("dataset: shard %q: want i/n with 0 <= i < n, e.g. 0/4", s)
	}
	sh, err := ParseShard(strconv.Itoa(i+1) + "/" + b)
	if err != nil {
		return Shard{}, fmt.Errorf("dataset: shard %q: want i/n with 0 <= i < n, e.g. 0/4", s)
	}
	return sh, nil
}

// Has reports whether question id belongs to the shard. Membership depends
// only on the id (FNV-1a hash modulo Count), so it does not change when the
// input file is reordered or when other questions are added, and the n
// shards of a file are disjoint and cover it.
func (s Shard) Has(id string) bool {
	if s.Count <= 1 {
		return true
	}
	h := fnv.New64a()
	h.Write([]byte(id))
	return int(h.Sum64()%uint64(s.Count)) == s.Index-1
}

// Select applies limit, then shard, to qs: the first limit questions of the
// file (0: all), then those of the shard, in file order. Applying the limit
// first means "--limit 100 --shard i/4" splits the same 100 questions
// across four machines. Questions with duplicate ids after the first are
// dropped and their ids returned, because results are keyed by id.
func Select(qs []dataset.Question, limit int, shard Shard) (selected []dataset.Question, duplicates []string) {
	if limit > 0 && limit < len(qs) {
		qs = qs[:limit]
	}
	seen := make(map[string]bool, len(qs))
	for _, q := range qs {
		if seen[q.ID] {
			duplicates = append(duplicates, q.ID)
			continue
		}
		seen[q.ID] = true
		if shard.Has(q.ID) {
			selected = append(selected, q)
		}
	}
	return selected, duplicates
}

// ParseSeeds reads a comma-separated list of integer seeds ("1,2,3").
// Duplicates are an error: they would share result keys.
func ParseSeeds(s string) ([]int, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []int
	seen := map[int]bool{}
	for _, part := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil {
			return nil, fmt.Errorf("dataset: seeds %q: %q is not an integer", s, part)
		}
		if seen[v] {
			return nil, fmt.Errorf("dataset: seeds %q: %d repeated", s, v)
		}
		seen[v] = true
		out = append(out, v)
	}
	return out, nil
}
