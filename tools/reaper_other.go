//go:build !linux

package tools

import (
	"context"
	"io"
	"time"
)

// ReaperFlag, as the first argument of tern's binary, makes it run a
// command as a subreaper. Only Linux has child subreapers; elsewhere
// commands run in a process group of their own.
const ReaperFlag = "--tern-reaper"

// RunReaper is not available on this system.
func RunReaper(args []string) int { return 125 }

// runReaped runs argv in a process group: this system has no child
// subreaper.
func runReaped(ctx context.Context, exe string, argv []string, dir string, timeout time.Duration, out io.Writer) (ending, error) {
	return runGroup(ctx, argv, dir, timeout, out)
}

// becomeSubreaper does nothing: this system has no child subreapers.
func becomeSubreaper() {}
