package promptview

import (
	"context"
	"strings"
	"testing"
)

func TestFlags(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		want Options
	}{
		{nil, Options{}},
		{[]string{"--json"}, Options{JSON: true}},
	} {
		var got *Options
		cmd := NewCmd(func(_ context.Context, o *Options) error { got = o; return nil })
		cmd.SetArgs(tt.args)
		if err := cmd.Execute(); err != nil || got == nil || *got != tt.want {
			t.Errorf("%q: %+v, %v; want %+v", tt.args, got, err, tt.want)
		}
	}
	cmd := NewCmd(func(context.Context, *Options) error { t.Error("ran with an argument"); return nil })
	cmd.SetArgs([]string{"extra"})
	cmd.SetOut(&strings.Builder{})
	cmd.SetErr(&strings.Builder{})
	if err := cmd.Execute(); err == nil {
		t.Error("tern prompt took an argument")
	}
}
