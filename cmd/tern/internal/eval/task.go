// Package eval holds tern's evaluation suite: small coding tasks, each a
// prompt run in a throw-away copy of a fixture repository and judged by a
// real check (a command such as go test, file contents, the answer's
// words), and the report of a run (per task: success, turns, tool calls,
// repairs by path, invalid calls, prompt tokens, wall time).
//
// The suite is data: testdata/suite/tasks/NAME/task.toml with a recorded
// transcript (replay.json, an ollamatest script) for runs without a model,
// and fixture repositories in testdata/suite/fixtures. It lives under
// testdata so that the Go tool never builds or tests the fixtures' code,
// and is embedded, so `tern eval` works from any directory.
//
// Run runs a suite: each task in a throw-away copy of its fixture, for a
// replay against the fake server ReplayServer starts, in a session that
// cmd/tern opens (Opener: eval runs no agent itself); it counts the
// session's calls into the Result (Count), judges the outcome with the
// task's Check, and tells a task that fails, is skipped or cannot run
// from a failure that ends the run. It imports no tern package but the
// fake servers replays play against: models/ollamatest (transcripts are
// its scripts) and models/openaitest.
package eval

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/ternhq/tern/models/ollamatest"
)

//go:embed all:testdata/suite
var suiteFS embed.FS

// Suite returns the built-in suite.
func Suite() fs.FS {
	sub, err := fs.Sub(suiteFS, "testdata/suite")
	if err != nil {
		panic(err) // the embedded tree is fixed at build time
	}
	return sub
}

// Task is one task of the suite.
type Task struct {
	// Name is the task's directory name.
	Name  string `toml:"-"`
	Title string `toml:"title"`
	// Prompt is what the user asks.
	Prompt string `toml:"prompt"`
	// Fixture names the repository under fixtures/ the task works in.
	Fixture string `toml:"fixture"`
	// Tier is the tool tier the task starts at: 0 read, 1 edit, 2 commands.
	Tier int `toml:"tier"`
	// Needs lists the tools the task cannot do without; the task is
	// skipped when the build lacks one.
	Needs    []string `toml:"needs"`
	MaxTurns int      `toml:"max_turns"`
	// Shapes names the model failure shapes the transcript exercises
	// ("bare-json", "loop", …), for the list.
	Shapes []string `toml:"shapes"`
	Replay Replay   `toml:"replay"`
	Check  Check    `toml:"check"`

	fsys fs.FS
}

// Replay says how the recorded transcript is played.
type Replay struct {
	// Model is the ollamatest preset that serves it ("qwen3", "tiny", …).
	Model string `toml:"model"`
}

// Load reads the tasks of a suite: every tasks/NAME/task.toml, in name
// order. Unknown keys and missing fields are errors.
func Load(fsys fs.FS) ([]Task, error) {
	dirs, err := fs.ReadDir(fsys, "tasks")
	if err != nil {
		return nil, fmt.Errorf("load tasks: %w", err)
	}
	var tasks []Task
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		t, err := loadTask(fsys, d.Name())
		if err != nil {
			return nil, err
		}
		tasks = append(tasks, t)
	}
	if len(tasks) == 0 {
		return nil, fmt.Errorf("load tasks: no tasks/*/task.toml")
	}
	return tasks, nil
}

func loadTask(fsys fs.FS, name string) (Task, error) {
	file := path.Join("tasks", name, "task.toml")
	data, err := fs.ReadFile(fsys, file)
	if err != nil {
		return Task{}, fmt.Errorf("task %s: %w", name, err)
	}
	t := Task{Name: name, MaxTurns: 10, Replay: Replay{Model: "qwen3"}, fsys: fsys}
	md, err := toml.Decode(string(data), &t)
	if err != nil {
		return Task{}, fmt.Errorf("task %s: %w", name, err)
	}
	if undecoded := md.Undecoded(); len(undecoded) > 0 {
		return Task{}, fmt.Errorf("task %s: unknown key %q", name, undecoded[0].String())
	}
	switch {
	case t.Prompt == "":
		return Task{}, fmt.Errorf("task %s: no prompt", name)
	case t.Fixture == "":
		return Task{}, fmt.Errorf("task %s: no fixture", name)
	case t.Check.empty():
		return Task{}, fmt.Errorf("task %s: no check", name)
	}
	if _, err := fs.Stat(fsys, path.Join("fixtures", t.Fixture)); err != nil {
		return Task{}, fmt.Errorf("task %s: fixture %s: %w", name, t.Fixture, err)
	}
	return t, nil
}

// Transcript returns the recorded replies for a run without a model.
func (t Task) Transcript() ([]ollamatest.Reply, error) {
	data, err := fs.ReadFile(t.fsys, path.Join("tasks", t.Name, "replay.json"))
	if err != nil {
		return nil, fmt.Errorf("task %s: %w", t.Name, err)
	}
	// LoadScript reads files; the suite may be embedded, so go through a
	// temporary copy.
	f, err := os.CreateTemp("", "tern-replay-*.json")
	if err != nil {
		return nil, fmt.Errorf("task %s: %w", t.Name, err)
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(data); err != nil {
		f.Close()
		return nil, fmt.Errorf("task %s: %w", t.Name, err)
	}
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("task %s: %w", t.Name, err)
	}
	replies, err := ollamatest.LoadScript(f.Name())
	if err != nil {
		return nil, fmt.Errorf("task %s: %w", t.Name, err)
	}
	return replies, nil
}

// fixtureSuffix is dropped from file names when a fixture is copied:
// go.mod is stored as go.mod.fixture, or the fixture would be a module of
// its own that go:embed refuses.
const fixtureSuffix = ".fixture"

// Prepare copies the task's fixture into dir, which must not exist yet.
func (t Task) Prepare(dir string) error {
	root := path.Join("fixtures", t.Fixture)
	err := fs.WalkDir(t.fsys, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p, root), "/")
		dst := filepath.Join(dir, filepath.FromSlash(strings.TrimSuffix(rel, fixtureSuffix)))
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := fs.ReadFile(t.fsys, p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
	if err != nil {
		return fmt.Errorf("prepare %s: %w", t.Name, err)
	}
	return nil
}

// Missing returns the tools of Needs that has does not report.
func (t Task) Missing(has func(name string) bool) []string {
	var missing []string
	for _, n := range t.Needs {
		if !has(n) {
			missing = append(missing, n)
		}
	}
	return missing
}

// Filter keeps the tasks whose name contains one of names (all when names
// is empty).
func Filter(tasks []Task, names []string) []Task {
	if len(names) == 0 {
		return tasks
	}
	return slices.DeleteFunc(slices.Clone(tasks), func(t Task) bool {
		return !slices.ContainsFunc(names, func(n string) bool { return strings.Contains(t.Name, n) })
	})
}
