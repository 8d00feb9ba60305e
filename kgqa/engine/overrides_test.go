package engine

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa/config"
)

func TestOverridesApply(t *testing.T) {
	base := config.Default().Engine
	base.Width, base.Deadline, base.FuseSufficiency = 3, 20*time.Second, true
	one, eleven := 1, 11
	no := false
	short, long := 5*time.Second, time.Hour
	for name, tc := range map[string]struct {
		o       Overrides
		check   func(t *testing.T, b config.Engine)
		wantErr string
	}{
		"nothing set keeps the configuration": {Overrides{}, func(t *testing.T, b config.Engine) { assert.Equal(t, base, b) }, ""},
		"a set field replaces only itself": {Overrides{Width: &one, FuseSufficiency: &no}, func(t *testing.T, b config.Engine) {
			assert.Equal(t, 1, b.Width)
			assert.False(t, b.FuseSufficiency)
			assert.Equal(t, base.Depth, b.Depth)
		}, ""},
		"a deadline shortens":           {Overrides{Deadline: &short}, func(t *testing.T, b config.Engine) { assert.Equal(t, short, b.Deadline) }, ""},
		"a deadline never lengthens":    {Overrides{Deadline: &long}, func(t *testing.T, b config.Engine) { assert.Equal(t, base.Deadline, b.Deadline) }, ""},
		"out of bounds names the field": {Overrides{Width: &eleven}, nil, "width must be between 1 and 10, got 11"},
	} {
		t.Run(name, func(t *testing.T) {
			b, err := tc.o.apply(base)
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.True(t, errors.Is(err, ErrBadOverride))
				assert.Contains(t, err.Error(), tc.wantErr)
				return
			}
			require.NoError(t, err)
			tc.check(t, b)
		})
	}
}

// Every override sets the config.Engine field of its name, and only it: a
// field added to Overrides and left out of apply fails here.
func TestOverridesApplyEveryField(t *testing.T) {
	base := config.Default().Engine
	ot := reflect.TypeOf(Overrides{})
	for i := range ot.NumField() {
		name := ot.Field(i).Name
		t.Run(name, func(t *testing.T) {
			var o Overrides
			f := reflect.ValueOf(&o).Elem().Field(i)
			v := reflect.New(f.Type().Elem())
			want := reflect.New(f.Type().Elem()).Elem()
			switch v.Elem().Interface().(type) {
			case int:
				n := int64(1) // a value other than the configured one
				if reflect.ValueOf(base).FieldByName(name).Int() == 1 {
					n = 2
				}
				v.Elem().SetInt(n)
			case bool:
				v.Elem().SetBool(!reflect.ValueOf(base).FieldByName(name).Bool())
			case time.Duration:
				v.Elem().SetInt(int64(time.Millisecond))
			default:
				t.Fatalf("no test value for %s", f.Type())
			}
			want.Set(v.Elem())
			f.Set(v)
			b, err := o.apply(base)
			require.NoError(t, err)
			got := reflect.ValueOf(b).FieldByName(name)
			require.True(t, got.IsValid(), "config.Engine has no field %s", name)
			assert.Equal(t, want.Interface(), got.Interface())
			reflect.ValueOf(&b).Elem().FieldByName(name).Set(reflect.ValueOf(base).FieldByName(name))
			assert.Equal(t, base, b, "only %s changed", name)
		})
	}
}
