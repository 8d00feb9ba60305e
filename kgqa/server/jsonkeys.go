package server

import (
	"bytes"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"sync"

	"github.com/parog/parog-go/internal/jsonscan"
)

// checkKeys refuses what encoding/json lets through silently: a key
// spelled in another case than its field ("QUESTION" for "question") and
// a key given twice in one object (the last one would win). Malformed JSON
// is left to the decoder, which says where.
func checkKeys(data []byte, v any) error {
	names := fieldNames(reflect.TypeOf(v))
	if done, err := scanKeys(data, names); done {
		return err
	}
	return tokenKeys(data, names)
}

// scanKeys is checkKeys in one pass of a scanner, for the bodies it reads
// whole: one JSON value whose keys are plain ASCII (the usual request). It
// reports done false for anything else (a key with an escape or a non-ASCII
// letter, malformed JSON, more than one value), which tokenKeys then
// reads: that keeps the verdict, and where malformed JSON stops it, the
// token walk's.
func scanKeys(data []byte, names map[string]string) (done bool, err error) {
	s := jsonscan.New(data)
	var value func() bool
	value = func() bool {
		switch s.Peek() {
		case '{':
			seen := map[string]bool{}
			return s.Object(func(key []byte) bool {
				if err = checkKey(seen, string(key), names); err != nil {
					return false
				}
				return value()
			})
		case '[':
			return s.Array(func(int) bool { return value() })
		}
		return s.Skip()
	}
	if value() && s.End() {
		return true, nil
	}
	return err != nil, err
}

// tokenKeys is checkKeys over the decoder's tokens.
func tokenKeys(data []byte, names map[string]string) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	// One frame per open object or array; keys are tracked for objects.
	type frame struct {
		seen    map[string]bool
		wantKey bool
	}
	var stack []*frame
	valueDone := func() {
		if n := len(stack); n > 0 && stack[n-1].seen != nil {
			stack[n-1].wantKey = true
		}
	}
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil
		}
		if d, ok := tok.(json.Delim); ok {
			switch d {
			case '{':
				stack = append(stack, &frame{seen: map[string]bool{}, wantKey: true})
			case '[':
				stack = append(stack, &frame{})
			default:
				stack = stack[:len(stack)-1]
				valueDone()
			}
			continue
		}
		top := (*frame)(nil)
		if n := len(stack); n > 0 {
			top = stack[n-1]
		}
		if top == nil || top.seen == nil || !top.wantKey {
			valueDone()
			continue
		}
		key, _ := tok.(string)
		top.wantKey = false
		if err := checkKey(top.seen, key, names); err != nil {
			return err
		}
	}
}

// checkKey refuses key if seen holds it already (the object gave it
// before) or if it names a field of names in another case; it adds key
// to seen.
func checkKey(seen map[string]bool, key string, names map[string]string) error {
	if seen[key] {
		return errorf(http.StatusBadRequest, "key %q appears twice in one object", truncate(key, 64))
	}
	seen[key] = true
	if want, ok := names[strings.ToLower(key)]; ok && want != key {
		return errorf(http.StatusBadRequest, "unknown field %q (keys are case-sensitive: %q)", truncate(key, 64), want)
	}
	return nil
}

var fieldNamesCache sync.Map // reflect.Type -> map[string]string

// fieldNames maps the lower-case form of every JSON field name reachable
// from t to its spelling.
func fieldNames(t reflect.Type) map[string]string {
	if m, ok := fieldNamesCache.Load(t); ok {
		return m.(map[string]string)
	}
	m := map[string]string{}
	collectNames(t, m, map[reflect.Type]bool{})
	fieldNamesCache.Store(t, m)
	return m
}

func collectNames(t reflect.Type, into map[string]string, seen map[reflect.Type]bool) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || seen[t] {
		return
	}
	seen[t] = true
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if f.Anonymous && name == "" {
			collectNames(f.Type, into, seen)
			continue
		}
		if name == "" {
			name = f.Name
		}
		into[strings.ToLower(name)] = name
		collectNames(f.Type, into, seen)
	}
}
