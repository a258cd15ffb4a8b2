package doctor

import (
	"context"
	"strings"
	"testing"
)

// TestNewCmd: tern doctor takes no arguments; it runs with its (empty)
// options.
func TestNewCmd(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		err  string
	}{
		{args: nil},
		{args: []string{"now"}, err: `unknown command "now" for "doctor"`},
	} {
		var got *Options
		cmd := NewCmd(func(_ context.Context, o *Options) error { got = o; return nil })
		cmd.SetArgs(tt.args)
		cmd.SetOut(&strings.Builder{})
		cmd.SetErr(&strings.Builder{})
		err := cmd.Execute()
		switch {
		case tt.err != "":
			if err == nil || !strings.Contains(err.Error(), tt.err) || got != nil {
				t.Errorf("%q: %v, ran %v; want %q", tt.args, err, got, tt.err)
			}
		case err != nil || got == nil:
			t.Errorf("%q: %v, ran %v", tt.args, err, got)
		}
	}
}
