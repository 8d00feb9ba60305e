package engine

import (
	"errors"
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
