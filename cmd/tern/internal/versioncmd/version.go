// Package versioncmd is the `tern version` command, in the cli/cli
// manner: Options (it has no flags), NewCmd (the cobra command, handing
// the Options to the run it is given) and Run; and the version string
// itself (String, Format), which `tern --version` prints too.
//
// versioncmd imports nothing of tern.
package versioncmd

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// String describes this binary from its build info: the module version
// ("(devel)" for a build from a checkout), the commit it was built from
// and whether the tree had changes, the Go version and the platform.
func String() string {
	bi, _ := debug.ReadBuildInfo()
	return Format(bi, runtime.GOOS+"/"+runtime.GOARCH)
}

// Format writes "v1.2.0, commit 0123456789ab of 2026-11-25T10:00:00Z
// with local changes, go1.26.0 linux/amd64" from bi (nil: none).
func Format(bi *debug.BuildInfo, platform string) string {
	v, commit, when, modified, goVersion := "(devel)", "", "", false, runtime.Version()
	if bi != nil {
		goVersion = bi.GoVersion
		if bi.Main.Version != "" {
			v = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
			case "vcs.time":
				when = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	var b strings.Builder
	b.WriteString(v)
	if commit != "" {
		fmt.Fprintf(&b, ", commit %s", commit[:min(len(commit), 12)])
		if when != "" {
			fmt.Fprintf(&b, " of %s", when)
		}
		if modified {
			b.WriteString(" with local changes")
		}
	}
	fmt.Fprintf(&b, ", %s %s", goVersion, platform)
	return b.String()
}

// Options are tern version's flags: it has none.
type Options struct{}

// NewCmd returns the tern version command. It hands its options to run.
func NewCmd(run func(context.Context, *Options) error) *cobra.Command {
	o := &Options{}
	return &cobra.Command{
		Use:   "version",
		Short: "Print tern's version, the commit it was built from and the Go version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return run(cmd.Context(), o)
		},
	}
}

// Run prints "tern " and the version to out.
func Run(out io.Writer) error {
	_, err := fmt.Fprintf(out, "tern %s\n", String())
	return err
}
