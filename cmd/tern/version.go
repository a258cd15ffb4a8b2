package main

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// version describes this binary from its build info: the module version
// ("(devel)" for a build from a checkout), the commit it was built from
// and whether the tree had changes, the Go version and the platform.
func version() string {
	bi, _ := debug.ReadBuildInfo()
	return formatVersion(bi, runtime.GOOS+"/"+runtime.GOARCH)
}

// formatVersion writes "v1.2.0, commit 0123456789ab of 2026-11-25T10:00:00Z
// with local changes, go1.26.0 linux/amd64" from bi (nil: none).
func formatVersion(bi *debug.BuildInfo, platform string) string {
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

// versionOptions are tern version's flags: it has none.
type versionOptions struct{}

func (a *app) versionCommand() *cobra.Command {
	o := &versionOptions{}
	return &cobra.Command{
		Use:   "version",
		Short: "Print tern's version, the commit it was built from and the Go version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCommand(cmd.Context(), a, o, a.printVersion)
		},
	}
}

func (a *app) printVersion(context.Context, *versionOptions) error {
	_, err := fmt.Fprintf(a.stdout, "tern %s\n", version())
	return err
}
