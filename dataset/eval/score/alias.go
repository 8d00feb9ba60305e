package score

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"

	"github.com/parog/parog-go/dataset"
	"github.com/parog/parog-go/internal/clip"
	"github.com/parog/parog-go/internal/naming"
)

// Aliases holds extra accepted names read from an alias file. An alias
// file is one JSON object whose keys are question ids, answer entity ids
// or answer names, and whose values are a name or a list of names:
//
//	{"WebQTest-12": ["USA", "United States of America"],
//	 "m.09c7w0": ["America"],
//	 "Jamaican English": ["English"]}
//
// A question-id key adds gold names to that question (any of them is a
// correct answer). An entity-id key adds names to the gold answer with that
// id; a name key adds names to the gold answer with that name (compared
// after naming.Canonical). The zero value and nil hold no aliases.
type Aliases struct {
	byKey map[string][]string
}

// ErrBadAliasFile is wrapped by every error about an alias file's content.
var ErrBadAliasFile = errors.New("dataset: bad alias file")

// LoadAliases reads an alias file. A file that is not a JSON object of
// names or name lists is an error naming the file and the offending key.
func LoadAliases(path string) (*Aliases, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("dataset: alias file: %w", err)
	}
	a, err := ParseAliases(data)
	if err != nil {
		return nil, fmt.Errorf("%w (file %s)", err, path)
	}
	return a, nil
}

// ParseAliases decodes the content of an alias file.
func ParseAliases(data []byte) (*Aliases, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrBadAliasFile, fmt.Sprintf(format, args...))
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, bad("empty, want a JSON object of id or name -> list of aliases")
	}
	if trimmed[0] != '{' {
		return nil, bad("want a JSON object of id or name -> list of aliases")
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &raw); err != nil {
		return nil, bad("not valid JSON: %v", err)
	}
	a := &Aliases{byKey: make(map[string][]string, len(raw))}
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		names, err := aliasNames(raw[k])
		if err != nil {
			return nil, bad("key %q: %v", k, err)
		}
		a.add(k, names)
	}
	return a, nil
}

func aliasNames(v json.RawMessage) ([]string, error) {
	v = bytes.TrimSpace(v)
	if len(v) > 0 && v[0] == '"' {
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return nil, err
		}
		return []string{s}, nil
	}
	if len(v) == 0 || v[0] != '[' {
		return nil, fmt.Errorf("want a name or a list of names, found %s", clip.Text(string(v), 40))
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(v, &raws); err != nil {
		return nil, err
	}
	out := make([]string, 0, len(raws))
	for i, r := range raws {
		var s string
		if err := json.Unmarshal(r, &s); err != nil {
			return nil, fmt.Errorf("item %d: want a string, found %s", i, clip.Text(string(r), 40))
		}
		out = append(out, s)
	}
	return out, nil
}

func (a *Aliases) add(key string, names []string) {
	keys := []string{key}
	if id, ok := dataset.NormalizeMID(key); ok && id != key {
		keys = append(keys, id)
	}
	if n := naming.Canonical(key); n != "" {
		keys = append(keys, "name:"+n)
	}
	for _, k := range keys {
		a.byKey[k] = append(a.byKey[k], names...)
	}
}

// Len is the number of keys read (0 for a nil *Aliases).
func (a *Aliases) Len() int {
	if a == nil {
		return 0
	}
	return len(a.byKey)
}

// ForQuestion returns the names added to question id.
func (a *Aliases) ForQuestion(id string) []string {
	if a == nil || id == "" {
		return nil
	}
	return a.byKey[id]
}

// ForKey returns the names under key exactly as written in the file (a
// question text, for the PoG rule's aliases keyed by question).
func (a *Aliases) ForKey(key string) []string {
	if a == nil || key == "" {
		return nil
	}
	return a.byKey[key]
}

// ForAnswer returns the names added to a gold answer, by its id and by its
// name.
func (a *Aliases) ForAnswer(ans dataset.Answer) []string {
	if a == nil {
		return nil
	}
	var out []string
	if ans.ID != "" {
		out = append(out, a.byKey[ans.ID]...)
	}
	if n := naming.Canonical(ans.Name); n != "" {
		out = append(out, a.byKey["name:"+n]...)
	}
	return out
}
