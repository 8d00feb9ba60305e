package llm

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
)

// errShape stands for a decoding failure that has no description in the
// terms of the JSON.
var errShape = errors.New("the JSON does not have the expected shape")

// describeDecodeError restates an encoding/json decoding error of a reply
// decoded into a value of type t in the terms of the JSON the model wrote:
// the field, the JSON type expected there and what was found. The error
// goes back to the model in the repair turn, so it names no Go type or
// package (encoding/json's own text does: "Go struct field
// relationsReply.keep of type []string"), and the prompt does not change
// when a Go type is renamed or moved. The result does not wrap err.
func describeDecodeError(err error, t reflect.Type) error {
	var (
		ute *json.UnmarshalTypeError
		se  *json.SyntaxError
	)
	switch {
	case errors.As(err, &ute):
		return typeMismatch(ute, t)
	case errors.As(err, &se):
		return fmt.Errorf("the JSON is malformed at byte %d: %s", se.Offset, se.Error())
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("the JSON ends early")
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return errors.New("unknown field " + strings.TrimPrefix(err.Error(), "json: unknown field "))
	}
	return errShape
}

// typeMismatch says which field of the JSON holds a value of the wrong
// JSON type: "field "keep" must be an array, not a string". A mismatch
// inside a field's array or object says so ("each element of field
// "keep" must be a string, not a number").
func typeMismatch(ute *json.UnmarshalTypeError, t reflect.Type) error {
	want, found := jsonTypeOf(ute.Type), foundValue(ute.Value)
	where := "the JSON value"
	at := t
	if ute.Field != "" {
		where = fmt.Sprintf("field %q", ute.Field)
		at = fieldType(t, strings.Split(ute.Field, "."))
	}
	if part := partOf(at, ute.Type); part != "" {
		return fmt.Errorf("each %s of %s must be %s, not %s", part, where, want, found)
	}
	return fmt.Errorf("%s must be %s, not %s", where, want, found)
}

// partOf says what part of a value of type at holds a value of type
// inner: "element" for an array's, "value" for an object's; "" when at is
// inner itself or its type is unknown.
func partOf(at, inner reflect.Type) string {
	for at != nil && at.Kind() == reflect.Pointer {
		at = at.Elem()
	}
	if at == nil || at == inner {
		return ""
	}
	switch at.Kind() {
	case reflect.Slice, reflect.Array:
		return "element"
	case reflect.Map:
		return "value"
	}
	return ""
}

// fieldType follows a dotted field path of JSON names (encoding/json's
// UnmarshalTypeError.Field) from t through structs, and the elements of
// arrays and objects on the way, to the type of its last field; nil when
// the path does not resolve.
func fieldType(t reflect.Type, path []string) reflect.Type {
	for _, name := range path {
		t = structIn(t)
		if t == nil {
			return nil
		}
		f, ok := jsonField(t, name)
		if !ok {
			return nil
		}
		t = f.Type
	}
	return t
}

// structIn is the struct type that a value of type t holds, looking
// through pointers and the elements of slices, arrays and maps.
func structIn(t reflect.Type) reflect.Type {
	for {
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
			t = t.Elem()
		case reflect.Struct:
			return t
		default:
			return nil
		}
	}
}

// jsonField finds the field of struct t that encoding/json decodes the
// key name into, looking into embedded structs.
func jsonField(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Tag.Get("json") == "-" || !f.IsExported() && !f.Anonymous {
			continue
		}
		if f.Anonymous && tag == "" {
			if inner := structIn(f.Type); inner != nil {
				if g, ok := jsonField(inner, name); ok {
					return g, true
				}
			}
			continue
		}
		if tag == "" {
			tag = f.Name
		}
		if strings.EqualFold(tag, name) {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// jsonTypeOf names the JSON type that encoding/json decodes into a value
// of type t.
func jsonTypeOf(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return "a base64 string"
		}
		return "an array"
	case reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return "another JSON value"
}

// foundValue restates encoding/json's description of the value it found
// ("string", "number 1.5", "bool", "array", "object").
func foundValue(v string) string {
	kind, literal, _ := strings.Cut(v, " ")
	switch kind {
	case "string":
		if literal != "" {
			return "the string " + literal
		}
		return "a string"
	case "number":
		if literal != "" {
			return "the number " + literal
		}
		return "a number"
	case "bool":
		return "a boolean"
	case "array":
		return "an array"
	case "object":
		return "an object"
	}
	return v
}
