package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"reflect"
	"strings"
	"sync"

	"github.com/gin-gonic/gin"
)

// decode reads the JSON body into v strictly: an empty body, malformed
// JSON, a wrong type, an unknown field (when strict), a key in the wrong
// case or given twice, or trailing data is a 400; a body over the limit is
// a 413.
func decode(c *gin.Context, v any, strict bool) error {
	if ct := c.GetHeader("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
			return errorf(http.StatusUnsupportedMediaType, "Content-Type must be application/json, not %q", ct)
		}
	}
	data, err := io.ReadAll(c.Request.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return err
		}
		return &httpError{status: http.StatusBadRequest, msg: "unreadable body", cause: err}
	}
	data = literalBackslashes(data)
	if err := checkKeys(data, v); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if strict {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(v); err != nil {
		return decodeError(err)
	}
	if err := dec.Decode(&struct{}{}); !errors.Is(err, io.EOF) {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return err
		}
		return errorf(http.StatusBadRequest, "request body must hold one JSON object, found more after it")
	}
	return nil
}

func decodeError(err error) error {
	var (
		mbe  *http.MaxBytesError
		se   *json.SyntaxError
		ute  *json.UnmarshalTypeError
		what string
	)
	switch {
	case errors.Is(err, io.EOF):
		return errorf(http.StatusBadRequest, "missing request body")
	case errors.As(err, &mbe):
		return err
	case errors.As(err, &se):
		what = fmt.Sprintf("malformed JSON at byte %d: %v", se.Offset, se)
	case errors.Is(err, io.ErrUnexpectedEOF):
		what = "malformed JSON: unexpected end of body"
	case errors.As(err, &ute):
		field := ute.Field
		if field == "" {
			field = "body"
		}
		what = fmt.Sprintf("%s must be %s, not %s", field, jsonKind(ute.Type.Kind().String()), ute.Value)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		what = "unknown field " + strings.TrimPrefix(err.Error(), "json: unknown field ")
	default:
		what = "invalid JSON: " + err.Error()
	}
	return &httpError{status: http.StatusBadRequest, msg: what, cause: err}
}

func jsonKind(k string) string {
	switch k {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "slice", "array":
		return "an array"
	case "struct", "map", "ptr":
		return "an object"
	}
	return "a number"
}

// checkKeys refuses what encoding/json lets through silently: a key
// spelled in another case than its field ("QUESTION" for "question") and
// a key given twice in one object (the last one would win). It walks the
// decoder's tokens once; malformed JSON is left to the decoder, which
// says where.
func checkKeys(data []byte, v any) error {
	names := fieldNames(reflect.TypeOf(v))
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

// literalBackslashes turns each backslash in a JSON string that does not
// start an escape JSON knows (\" \\ \/ \b \f \n \r \t \uXXXX) into an
// escaped backslash, so that a question typed with a TeX command or a
// Windows path ("what does \usepackage do") reads as the text it is rather
// than being refused as malformed JSON. Valid JSON comes back unchanged
// (the same slice); outside strings nothing is touched.
func literalBackslashes(data []byte) []byte {
	var out []byte // nil until the first change
	inString := false
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case !inString:
			inString = c == '"'
		case c == '"':
			inString = false
		case c == '\\':
			if i+1 < len(data) && knownEscape(data[i+1:]) {
				if out != nil {
					out = append(out, c, data[i+1])
				}
				i++
				continue
			}
			if out == nil {
				out = append(make([]byte, 0, len(data)+8), data[:i]...)
			}
			out = append(out, '\\', '\\')
			continue
		}
		if out != nil {
			out = append(out, c)
		}
	}
	if out == nil {
		return data
	}
	return out
}

// knownEscape reports whether rest, the bytes after a backslash, start a
// JSON escape.
func knownEscape(rest []byte) bool {
	switch rest[0] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return true
	case 'u':
		if len(rest) < 5 {
			return false
		}
		for _, h := range rest[1:5] {
			if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
				return false
			}
		}
		return true
	}
	return false
}
