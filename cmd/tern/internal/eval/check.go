package eval

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"
)

// Check is how a task's success is decided. Every part that is set must
// hold.
type Check struct {
	// Answer lists words the final answer must all contain (any case).
	Answer []string `toml:"answer"`
	// AnswerAny lists words of which the answer must contain one.
	AnswerAny []string `toml:"answer_any"`
	// Command runs in the workspace copy and must exit 0; its combined
	// output must contain every word of Output.
	Command []string `toml:"command"`
	Output  []string `toml:"output"`
	// Files maps a path to texts the file must contain.
	Files map[string][]string `toml:"files"`
	// Absent maps a glob ("**/*.go") to texts no matching file may contain.
	Absent map[string][]string `toml:"absent"`
}

func (c Check) empty() bool {
	return len(c.Answer) == 0 && len(c.AnswerAny) == 0 && len(c.Command) == 0 && len(c.Files) == 0 && len(c.Absent) == 0
}

// commandTimeout bounds a check command (a go test of a small fixture).
const commandTimeout = 3 * time.Minute

// Run judges the outcome of a task: the workspace copy in dir after the
// run, and the model's final answer. why says what failed.
func (c Check) Run(ctx context.Context, dir, answer string) (ok bool, why string) {
	lower := strings.ToLower(answer)
	for _, w := range c.Answer {
		if !strings.Contains(lower, strings.ToLower(w)) {
			return false, fmt.Sprintf("the answer does not mention %q", w)
		}
	}
	if len(c.AnswerAny) > 0 && !anyIn(lower, c.AnswerAny) {
		return false, fmt.Sprintf("the answer mentions none of %q", c.AnswerAny)
	}
	for file, texts := range c.Files {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(file)))
		if err != nil {
			return false, fmt.Sprintf("%s: %v", file, err)
		}
		for _, t := range texts {
			if !bytes.Contains(data, []byte(t)) {
				return false, fmt.Sprintf("%s does not contain %q", file, t)
			}
		}
	}
	for glob, texts := range c.Absent {
		if why := absent(dir, glob, texts); why != "" {
			return false, why
		}
	}
	if len(c.Command) > 0 {
		if why := c.runCommand(ctx, dir); why != "" {
			return false, why
		}
	}
	return true, ""
}

func anyIn(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, strings.ToLower(w)) {
			return true
		}
	}
	return false
}

// absent reports a file matching glob that contains one of texts.
func absent(dir, glob string, texts []string) string {
	matches, err := doublestar.Glob(os.DirFS(dir), glob)
	if err != nil {
		return fmt.Sprintf("glob %s: %v", glob, err)
	}
	for _, m := range matches {
		data, err := fs.ReadFile(os.DirFS(dir), m)
		if err != nil {
			continue // a directory
		}
		for _, t := range texts {
			if bytes.Contains(data, []byte(t)) {
				return fmt.Sprintf("%s still contains %q", m, t)
			}
		}
	}
	return ""
}

// runCommand runs the check command in dir. The Go toolchain is kept
// local and outside any workspace file, so a fixture's go.mod never
// triggers a download.
func (c Check) runCommand(ctx context.Context, dir string) string {
	ctx, cancel := context.WithTimeout(ctx, commandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.Command[0], c.Command[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local", "GOWORK=off", "GOFLAGS=-mod=mod")
	out, err := cmd.CombinedOutput()
	line := strings.Join(c.Command, " ")
	if err != nil {
		return fmt.Sprintf("`%s` failed: %v\n%s", line, err, tail(string(out), 600))
	}
	for _, w := range c.Output {
		if !strings.Contains(string(out), w) {
			return fmt.Sprintf("`%s` printed no %q:\n%s", line, w, tail(string(out), 600))
		}
	}
	return ""
}

// tail keeps the end of s, where a failing command says why.
func tail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}
