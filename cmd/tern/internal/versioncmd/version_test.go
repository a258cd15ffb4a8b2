package versioncmd

import (
	"runtime/debug"
	"strings"
	"testing"

	"github.com/ternhq/tern/cmd/tern/internal/cmdtest"
)

func TestFormat(t *testing.T) {
	t.Parallel()
	bi := &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v0.4.0"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "34a3565553b1c597200bb87088aedfb2c61bafaf"},
		{Key: "vcs.time", Value: "2026-11-25T10:00:00Z"},
		{Key: "vcs.modified", Value: "true"},
	}}
	if got, want := Format(bi, "linux/amd64"), "v0.4.0, commit 34a3565553b1 of 2026-11-25T10:00:00Z with local changes, go1.26.0 linux/amd64"; got != want {
		t.Errorf("Format = %q, want %q", got, want)
	}
	if got := Format(&debug.BuildInfo{GoVersion: "go1.26.0"}, "linux/amd64"); got != "(devel), go1.26.0 linux/amd64" {
		t.Errorf("Format without a version = %q", got)
	}
	if got := Format(nil, "linux/amd64"); !strings.HasPrefix(got, "(devel), go1.") {
		t.Errorf("Format without build info = %q", got)
	}
}

// TestNewCmd: tern version takes no arguments; Run prints the version.
func TestNewCmd(t *testing.T) {
	t.Parallel()
	cmdtest.CheckParse(t, NewCmd, []cmdtest.Case[Options]{
		{Args: nil},
		{Args: []string{"now"}, Err: `unknown command "now" for "version"`},
	})
	var out strings.Builder
	if err := Run(&out); err != nil || out.String() != "tern "+String()+"\n" {
		t.Errorf("Run: %v, %q", err, out.String())
	}
}
