package lsp

import (
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ternhq/tern/index/grammar"
)

// DefaultWait is how long an edit waits for a server's diagnostics when
// the config names no wait: long enough for gopls or pyright on a warm
// workspace, short enough that a slow server is not felt.
const DefaultWait = 3 * time.Second

// ServerTable is one [lsp.LANGUAGE] table of tern's config files: a
// language server to run, or changes to the built-in one for the
// language.
type ServerTable struct {
	// The program and its arguments, such as `["gopls"]` or
	// `["pyright-langserver", "--stdio"]`; the built-in server's when
	// unset.
	Command []string `toml:"command"`
	// The file extensions it serves, such as `[".go"]`; needed only for
	// a language tern has no grammar of.
	Extensions []string `toml:"extensions"`
	// `false` keeps the server off (default `true`).
	Enabled *bool `toml:"enabled"`
	// Sent in the initialize request (gopls takes its settings here).
	InitOptions map[string]any `toml:"init_options"`
	// Answers the server's workspace/configuration requests, by section:
	// `[lsp.python.settings.python.analysis]`.
	Settings map[string]any `toml:"settings"`
}

// Narrow applies proj, the [lsp] tables of a repository's own
// .tern.toml, over tables, the user's: a repository may switch a server
// off, and nothing else. A command would run a program it chooses, and
// settings can do the same (gopls's env and buildFlags reach the go
// command), so the caller says they are ignored.
func Narrow(tables, proj map[string]ServerTable) map[string]ServerTable {
	out := maps.Clone(tables)
	for lang, pt := range proj {
		if pt.Enabled != nil && !*pt.Enabled {
			if out == nil {
				out = map[string]ServerTable{}
			}
			t := out[lang]
			t.Enabled = pt.Enabled
			out[lang] = t
		}
	}
	return out
}

// Server is one language server as tern runs it: the configured table
// over the built-in default for its language.
type Server struct {
	// Name is the language it is configured under, "go".
	Name string
	// Command is what runs; empty when no program was found (Missing
	// says which were looked for).
	Command []string
	// Extensions are the file extensions it handles.
	Extensions []string
	// Enabled is false when the config switched it off.
	Enabled     bool
	InitOptions map[string]any
	Settings    map[string]any
	// Configured is true when the user's config names the command;
	// false for a server found on PATH by default.
	Configured bool
	// Missing lists the programs looked for on PATH and not found, when
	// Command is empty; Install says how to get one.
	Missing []string
	Install string
}

// Runs reports whether the server can run: enabled, with a program.
func (s Server) Runs() bool { return s.Enabled && len(s.Command) > 0 }

// handles reports whether the server handles the file at path.
func (s Server) handles(path string) bool {
	ext := strings.ToLower(fileExt(path))
	return ext != "" && slices.Contains(s.Extensions, ext)
}

// Default is a built-in server: the languages it serves and the programs
// that serve them, best first.
type Default struct {
	Name string
	// Languages are the grammar names (index/grammar) whose files it
	// handles.
	Languages []string
	// Candidates are the commands to look for on PATH, in order.
	Candidates [][]string
	// Install says how to get the first candidate.
	Install string
	// InitOptions are sent when the user's table has none.
	InitOptions map[string]any
	// Settings answer workspace/configuration when the user's table has
	// none.
	Settings map[string]any
}

// Defaults are the language servers tern runs without being told, when
// their programs are on PATH. Where a server can run code from the
// repository it works on, the defaults switch that off: rust-analyzer's
// build scripts, procedural macros and cargo check.
var Defaults = []Default{
	{Name: "go", Languages: []string{"go"}, Candidates: [][]string{{"gopls"}}, Install: "go install golang.org/x/tools/gopls@latest",
		// gopls type-checks the edited package at once and the packages
		// that import it after diagnosticsDelay (1s by default); an edit
		// waits for both.
		InitOptions: map[string]any{"diagnosticsDelay": "100ms"},
		Settings:    map[string]any{"diagnosticsDelay": "100ms"}},
	{Name: "python", Languages: []string{"python"},
		Candidates: [][]string{{"pyright-langserver", "--stdio"}, {"basedpyright-langserver", "--stdio"}, {"pylsp"}},
		Install:    "npm install -g pyright"},
	{Name: "typescript", Languages: []string{"typescript", "tsx", "javascript"},
		Candidates: [][]string{{"typescript-language-server", "--stdio"}},
		Install:    "npm install -g typescript-language-server typescript"},
	{Name: "rust", Languages: []string{"rust"}, Candidates: [][]string{{"rust-analyzer"}}, Install: "rustup component add rust-analyzer",
		InitOptions: map[string]any{
			"cargo":       map[string]any{"buildScripts": map[string]any{"enable": false}},
			"procMacro":   map[string]any{"enable": false},
			"checkOnSave": false,
		}},
	{Name: "c", Languages: []string{"c", "cpp"}, Candidates: [][]string{{"clangd"}}, Install: "install clangd with your system's packages"},
}

// Resolve makes the [lsp.LANGUAGE] tables into the servers tern may run,
// in name order: the built-in ones (Defaults), with the program lookPath
// finds first or the one a table names, and every other table. enabled
// false switches them all off. A table for a language tern has no
// grammar or default for must name its command and extensions.
func Resolve(tables map[string]ServerTable, enabled bool, lookPath func(string) (string, error)) ([]Server, error) {
	if lookPath == nil {
		lookPath = exec.LookPath
	}
	var out []Server
	seen := map[string]bool{}
	for _, d := range Defaults {
		seen[d.Name] = true
		t, configured := tables[d.Name]
		s := Server{Name: d.Name, Enabled: enabled && (t.Enabled == nil || *t.Enabled),
			InitOptions: d.InitOptions, Settings: d.Settings, Install: d.Install}
		for _, l := range d.Languages {
			if g := grammar.Named(l); g != nil {
				s.Extensions = append(s.Extensions, g.Exts...)
			}
		}
		if len(t.Extensions) > 0 {
			s.Extensions = normalExts(t.Extensions)
		}
		if t.InitOptions != nil {
			s.InitOptions = t.InitOptions
		}
		if t.Settings != nil {
			s.Settings = t.Settings
		}
		if configured && len(t.Command) > 0 && strings.TrimSpace(t.Command[0]) != "" {
			s.Command, s.Configured = found(t.Command, lookPath), true
		} else {
			for _, cand := range d.Candidates {
				if p, err := lookPath(cand[0]); err == nil {
					s.Command = append([]string{p}, cand[1:]...)
					break
				}
				s.Missing = append(s.Missing, cand[0])
			}
		}
		out = append(out, s)
	}
	for _, name := range slices.Sorted(maps.Keys(tables)) {
		if seen[name] {
			continue
		}
		t := tables[name]
		s := Server{Name: name, Command: found(t.Command, lookPath), Extensions: normalExts(t.Extensions), Configured: true,
			Enabled: enabled && (t.Enabled == nil || *t.Enabled), InitOptions: t.InitOptions, Settings: t.Settings}
		if g := grammar.Named(name); g != nil && len(s.Extensions) == 0 {
			s.Extensions = g.Exts
		}
		if s.Enabled && (len(s.Command) == 0 || strings.TrimSpace(s.Command[0]) == "") {
			return nil, fmt.Errorf("[lsp.%s] names no command; write command = [\"program\", \"arg\"]", name)
		}
		if s.Enabled && len(s.Extensions) == 0 {
			return nil, fmt.Errorf("[lsp.%s]: tern does not know the files of %s; write extensions = [\".ext\"]", name, name)
		}
		out = append(out, s)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// found is command with its program as lookPath finds it, when it names
// a program to look for: the servers run from the PATH tern was given.
func found(command []string, lookPath func(string) (string, error)) []string {
	if len(command) == 0 || strings.ContainsRune(command[0], filepath.Separator) {
		return command
	}
	if p, err := lookPath(command[0]); err == nil {
		return append([]string{p}, command[1:]...)
	}
	return command
}

// normalExts writes extensions as tern compares them: lower case, with
// the dot.
func normalExts(exts []string) []string {
	out := make([]string, 0, len(exts))
	for _, e := range exts {
		e = strings.ToLower(strings.TrimSpace(e))
		if e != "" && !strings.HasPrefix(e, ".") {
			e = "." + e
		}
		if e != "" {
			out = append(out, e)
		}
	}
	return out
}

// LookPathIn is exec.LookPath over path, a PATH list given rather than
// read from the process's environment: tern looks for servers on the
// PATH of the environment it was handed.
func LookPathIn(path string) func(string) (string, error) {
	return func(name string) (string, error) {
		if strings.ContainsRune(name, filepath.Separator) {
			return name, executable(name)
		}
		for _, dir := range filepath.SplitList(path) {
			if dir == "" {
				dir = "."
			}
			p := filepath.Join(dir, name)
			if executable(p) == nil {
				return p, nil
			}
		}
		return "", fmt.Errorf("%s: %w", name, exec.ErrNotFound)
	}
}

// executable reports why the file at path cannot be run, if it cannot.
func executable(path string) error {
	info, err := os.Stat(path)
	switch {
	case err != nil:
		return err
	case info.IsDir() || info.Mode()&0o111 == 0:
		return fmt.Errorf("%s: %w", path, fs.ErrPermission)
	}
	return nil
}
