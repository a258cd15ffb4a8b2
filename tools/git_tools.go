package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
)

var (
	//go:embed git_status.md
	gitStatusDoc string
	//go:embed git_diff.md
	gitDiffDoc string
	//go:embed git_commit.md
	gitCommitDoc string
)

type gitStatus struct {
	Decl
	ws *Workspace
}

// NewGitStatus returns the git_status tool: the branch and the changed
// files of the workspace, as git status --short shows them.
func NewGitStatus(ws *Workspace) Tool {
	return &gitStatus{ws: ws, Decl: Declare[struct{}]("git_status", gitStatusDoc)}
}

func (t *gitStatus) Effect() Effect { return ReadOnly }

func (t *gitStatus) Run(ctx context.Context, in Input) Result {
	out, err := gitRun{dir: t.ws.root}.run(ctx, "status", "--short", "--branch", "--", ".")
	if err != nil {
		return fail("git status: failed", "%s", gitProblem(t.ws.root, err))
	}
	branch, changes, _ := strings.Cut(strings.TrimSuffix(out, "\n"), "\n")
	branch = strings.TrimPrefix(branch, "## ")
	if changes == "" {
		return Result{Output: "On branch " + branch + "; no changes.", Summary: "git status: clean"}
	}
	n := strings.Count(changes, "\n") + 1
	return Result{Output: t.ws.Fit("git_status", "On branch "+branch+"\n"+changes, in.Limit),
		Summary: "git status: " + plural(n, "changed file", "changed files")}
}

type gitDiff struct {
	Decl
	ws *Workspace
}

// NewGitDiff returns the git_diff tool: the unstaged (or staged) changes,
// optionally of one path.
func NewGitDiff(ws *Workspace) Tool {
	return &gitDiff{ws: ws, Decl: Declare[diffArgs]("git_diff", gitDiffDoc)}
}

type diffArgs struct {
	Staged boolArg `json:"staged"`
	Path   string  `json:"path" tool:"subject"`
}

func (t *gitDiff) Effect() Effect { return ReadOnly }

func (t *gitDiff) Run(ctx context.Context, in Input) Result {
	var args diffArgs
	if err := decodeArgs(in.Args, &args); err != nil {
		return fail("git diff: bad arguments", "%v", err)
	}
	rel := "."
	if strings.TrimSpace(args.Path) != "" {
		abs, r, err := t.ws.Resolve(args.Path, Read)
		if err != nil {
			return fail("git diff "+args.Path+": refused", "%v", err)
		}
		if !Within(t.ws.root, abs) {
			return fail("git diff "+args.Path+": refused", "%s is outside the workspace's repository", args.Path)
		}
		rel = r
	}
	cmd := []string{"diff", "--no-color", "--no-ext-diff", "--no-textconv"}
	which, other := "unstaged", "staged"
	if args.Staged {
		cmd = append(cmd, "--cached")
		which, other = "staged", "unstaged"
	}
	g := gitRun{dir: t.ws.root}
	out, err := g.run(ctx, append(cmd, "--", filepath.FromSlash(rel))...)
	if err != nil {
		return fail("git diff: failed", "%s", gitProblem(t.ws.root, err))
	}
	summary := "git diff " + which
	if rel != "." {
		summary += " " + rel
	}
	if strings.TrimSpace(out) == "" {
		msg := "No " + which + " changes"
		if rel != "." {
			msg += " in " + rel
		}
		// Say where the changes are, if they are on the other side.
		flip := []string{"diff", "--quiet"}
		if !args.Staged {
			flip = append(flip, "--cached")
		}
		if _, err := g.run(ctx, append(flip, "--", filepath.FromSlash(rel))...); err != nil {
			msg += fmt.Sprintf("; there are %s changes (set staged to %v)", other, !bool(args.Staged))
		}
		return Result{Output: msg + ".", Summary: summary + ": none"}
	}
	return Result{Output: t.ws.Fit("git_diff", strings.TrimSuffix(out, "\n"), in.Limit), Summary: summary}
}

type gitCommit struct {
	Decl
	ws *Workspace
}

// NewGitCommit returns the git_commit tool: stage the named files (or all
// changes in the workspace) and commit them. The user approves every
// commit; an earlier "allow for the session" does not cover it.
func NewGitCommit(ws *Workspace) Tool {
	return &gitCommit{ws: ws, Decl: Declare[commitArgs]("git_commit", gitCommitDoc)}
}

type commitArgs struct {
	Message string   `json:"message" tool:"required"`
	Files   []string `json:"files"`
}

func (t *gitCommit) Effect() Effect { return Executes }

type commitPlan struct {
	message string
	files   []string // relative to the root; empty for all changes
	changes string   // git status --short of what would be committed
}

// plan checks the call: a message, files inside the workspace, something
// to commit.
func (t *gitCommit) plan(ctx context.Context, raw json.RawMessage) (commitPlan, *Result) {
	var args commitArgs
	refuse := func(what, format string, a ...any) (commitPlan, *Result) {
		r := fail("git commit: "+what, format, a...)
		return commitPlan{}, &r
	}
	if err := decodeArgs(raw, &args); err != nil {
		return refuse("bad arguments", "%v", err)
	}
	p := commitPlan{message: strings.TrimSpace(args.Message)}
	if p.message == "" {
		return refuse("no message", `message is required, e.g. {"message":"Fix the retry loop"}`)
	}
	for _, f := range args.Files {
		_, rel, err := t.ws.Resolve(f, Write)
		if err != nil {
			return refuse("refused", "%v", err)
		}
		p.files = append(p.files, rel)
	}
	scope := []string{"."}
	if len(p.files) > 0 {
		scope = p.files
	}
	out, err := gitRun{dir: t.ws.root}.run(ctx, append([]string{"status", "--short", "--"}, scope...)...)
	if err != nil {
		return refuse("failed", "%s", gitProblem(t.ws.root, err))
	}
	if p.changes = strings.TrimSuffix(out, "\n"); p.changes == "" {
		staged, _ := gitRun{dir: t.ws.root}.run(ctx, append([]string{"diff", "--cached", "--name-only", "--"}, scope...)...)
		if strings.TrimSpace(staged) == "" {
			return refuse("nothing to commit", "There is nothing to commit: no changes in %s", strings.Join(scope, ", "))
		}
	}
	return p, nil
}

// Review shows the message and the files the commit would take.
func (t *gitCommit) Review(ctx context.Context, raw json.RawMessage) Review {
	p, refused := t.plan(ctx, raw)
	if refused != nil {
		return Review{Refused: refused}
	}
	return Review{Preview: fmt.Sprintf("git commit -m %q\n%s", p.message, p.changes), Once: true}
}

func (t *gitCommit) Run(ctx context.Context, in Input) Result {
	p, refused := t.plan(ctx, in.Args)
	if refused != nil {
		return *refused
	}
	g := gitRun{dir: t.ws.root, hooks: true}
	add := []string{"add", "-A", "--", "."}
	if len(p.files) > 0 {
		add = append([]string{"add", "-A", "--"}, p.files...)
	}
	if _, err := g.run(ctx, add...); err != nil {
		return fail("git commit: add failed", "%s", gitProblem(t.ws.root, err))
	}
	// Only the workspace's files: in a workspace that is a subdirectory of
	// its repository, changes staged elsewhere stay staged.
	scope := []string{"."}
	if len(p.files) > 0 {
		scope = p.files
	}
	if _, err := g.run(ctx, append([]string{"commit", "-q", "-m", p.message, "--"}, scope...)...); err != nil {
		msg := gitProblem(t.ws.root, err)
		if strings.Contains(msg, "tell me who you are") || strings.Contains(msg, "user.email") {
			msg = "git does not know who the author is (user.name and user.email are not set); ask the user to set them with git config"
		}
		return fail("git commit: failed", "The commit failed: %s", msg)
	}
	out, err := g.run(ctx, "show", "--stat", "--format=%h %s", "HEAD")
	if err != nil {
		return Result{Output: "Committed.", Summary: "git commit"}
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	head := lines[0]
	stat := strings.TrimSpace(lines[len(lines)-1])
	return Result{Output: "Committed " + head + "\n" + stat, Summary: "git commit " + strings.Fields(head)[0] + ": " + stat}
}
