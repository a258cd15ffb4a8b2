package tools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"
)

// Git failures that callers explain differently from other git errors.
var (
	ErrNoGit   = errors.New("git is not installed (not found in PATH)")
	ErrNotRepo = errors.New("not inside a git repository")
)

// gitTimeout bounds one git command; a commit's hooks may take a while.
const gitTimeout = 60 * time.Second

// gitEnv turns off everything that could make git wait for a person or
// print for a terminal. GIT_LITERAL_PATHSPECS makes every path tern passes
// a plain path: pathspec magic such as ":(top)x", ":/x" or ":!x" in a path
// the model chose cannot reach files outside a workspace that is a
// subdirectory of its repository (tern resolves and checks paths itself).
var gitEnv = []string{
	"GIT_TERMINAL_PROMPT=0", "GIT_PAGER=cat", "PAGER=cat", "GIT_EDITOR=true",
	"GIT_OPTIONAL_LOCKS=0", "LC_ALL=C", "GIT_LITERAL_PATHSPECS=1",
	// Pathspec settings in the user's environment would make git refuse
	// the literal one.
	"GIT_GLOB_PATHSPECS=0", "GIT_NOGLOB_PATHSPECS=0", "GIT_ICASE_PATHSPECS=0",
}

// gitMagicPathspecs lets one call use pathspec magic; only fixed pathspecs
// tern writes itself may go with it.
const gitMagicPathspecs = "GIT_LITERAL_PATHSPECS=0"

// gitRun is one git invocation.
type gitRun struct {
	dir   string
	env   []string // added to gitEnv
	stdin io.Reader
	// hooks lets git run the repository's hooks (git_commit's commit, which
	// the user approves). Otherwise none run: a repository's .git/hooks
	// would run a program of its choosing when tern checkpoints
	// (reference-transaction, post-index-change) or reads its status.
	hooks bool
}

// run runs git with args in g.dir and returns its standard output. The
// error carries git's own message; it wraps ErrNoGit or ErrNotRepo when
// those are the cause.
func (g gitRun) run(ctx context.Context, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	// An fsmonitor hook set in the repository's own config would run a
	// program of its choosing on every status and diff.
	// Names are shown as they are ("café.go", not "caf\303\251.go"):
	// the user and the model read them.
	pre := []string{"-c", "core.fsmonitor=false", "-c", "core.quotePath=false"}
	if !g.hooks {
		pre = append(pre, "-c", "core.hooksPath="+os.DevNull)
	}
	cmd := exec.CommandContext(ctx, "git", append(pre, args...)...)
	cmd.Dir = g.dir
	cmd.Env = append(append(os.Environ(), gitEnv...), g.env...)
	cmd.Stdin = g.stdin
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	inGroup(cmd)
	cmd.Cancel = func() error { return signalGroup(cmd, true) }
	cmd.WaitDelay = 2 * time.Second
	err := cmd.Run()
	switch {
	case errors.Is(err, exec.ErrNotFound):
		return "", ErrNoGit
	case err != nil && ctx.Err() != nil:
		return stdout.String(), fmt.Errorf("git %s: %w", args[0], context.Cause(ctx))
	case err != nil:
		msg := strings.TrimSpace(stderr.String())
		if strings.Contains(strings.ToLower(msg), "not a git repository") {
			return "", ErrNotRepo
		}
		if msg == "" {
			msg = strings.TrimSpace(stdout.String())
		}
		return stdout.String(), fmt.Errorf("git %s: %s (%w)", args[0], firstLines(msg, 6), err)
	}
	return stdout.String(), nil
}

// firstLines returns the first n lines of s.
func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = append(lines[:n], "…")
	}
	return strings.Join(lines, "\n")
}

// gitProblem words a git failure for the model.
func gitProblem(root string, err error) string {
	switch {
	case errors.Is(err, ErrNoGit):
		return "git is not installed on this machine (not found in PATH); the git tools cannot work"
	case errors.Is(err, ErrNotRepo):
		return fmt.Sprintf("the workspace (%s) is not inside a git repository; there is no git history here", root)
	}
	return err.Error()
}
