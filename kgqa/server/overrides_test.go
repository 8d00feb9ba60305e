package server

import (
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa/api"
	"github.com/parog/parog-go/kgqa/engine"
)

// Every field of the API's options reaches the engine's field of the same
// name (deadline_ms its Deadline), and every field of the engine's
// overrides is reached: a field added to one type and not mapped fails
// here rather than being ignored on the wire.
func TestOverridesOfMapsEveryField(t *testing.T) {
	var o api.Options
	ov := reflect.ValueOf(&o).Elem()
	for i := range ov.NumField() {
		f := ov.Field(i)
		require.Equal(t, reflect.Pointer, f.Kind(), "api.Options.%s is a pointer: nil keeps the configured value", ov.Type().Field(i).Name)
		v := reflect.New(f.Type().Elem())
		switch v.Elem().Kind() {
		case reflect.Int, reflect.Int64:
			v.Elem().SetInt(int64(i + 1))
		case reflect.Bool:
			v.Elem().SetBool(true)
		default:
			t.Fatalf("api.Options.%s: no test value for %s", ov.Type().Field(i).Name, f.Type())
		}
		f.Set(v)
	}
	got, err := overridesOf(&o, time.Hour)
	require.NoError(t, err)
	ev := reflect.ValueOf(got)
	reached := map[string]bool{}
	for i := range ov.NumField() {
		name := ov.Type().Field(i).Name
		want := ov.Field(i).Elem().Interface()
		if name == "DeadlineMS" {
			name, want = "Deadline", time.Duration(*o.DeadlineMS)*time.Millisecond
		}
		f := ev.FieldByName(name)
		if !assert.True(t, f.IsValid(), "api.Options.%s has no engine.Overrides field", name) {
			continue
		}
		reached[name] = true
		if assert.False(t, f.IsNil(), "api.Options.%s is not mapped", name) {
			assert.EqualValues(t, want, f.Elem().Interface(), "engine.Overrides.%s", name)
		}
	}
	for i := range ev.NumField() {
		assert.True(t, reached[ev.Type().Field(i).Name], "engine.Overrides.%s has no api.Options field", ev.Type().Field(i).Name)
	}
	none, err := overridesOf(nil, time.Hour)
	require.NoError(t, err)
	assert.Equal(t, engine.Overrides{Deadline: &[]time.Duration{time.Hour}[0]}, none, "no options: the request timeout alone")
}
