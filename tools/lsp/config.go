package lsp

import (
	"errors"
	"fmt"
	"maps"
	"os/exec"
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

// Config is the [lsp] section of tern's config files: whether language
// servers run at all, how long an edit waits for one, and one
// [lsp.LANGUAGE] table per server. Without tables, tern runs the common
// servers it finds on PATH (Defaults).
type Config struct {
	// Enabled is true when unset; false runs no server (the syntax check
	// stays).
	Enabled *bool
	// Wait bounds how long an edit waits for diagnostics; DefaultWait
	// when zero.
	Wait time.Duration
	// Servers are the [lsp.LANGUAGE] tables, by language.
	Servers map[string]ServerTable
	// set names the keys the file gave, "wait" or "go.command", so that a
	// project's file can be merged key by key (Narrow).
	set map[string]bool
}

// ServerTable is one [lsp.LANGUAGE] table as written.
type ServerTable struct {
	// Command is the program and its arguments, ["gopls"] or
	// ["pyright-langserver", "--stdio"].
	Command []string
	// Extensions are the file extensions the server handles, ".go";
	// needed only for a language tern has no grammar for.
	Extensions []string
	// Enabled is true when unset.
	Enabled *bool
	// InitOptions are sent in the initialize request; Settings answer the
	// server's workspace/configuration requests.
	InitOptions map[string]any
	Settings    map[string]any
}

// serverKeys are the keys of an [lsp.LANGUAGE] table.
var serverKeys = []string{"command", "extensions", "enabled", "init_options", "settings"}

// On reports whether servers run at all.
func (c Config) On() bool { return c.Enabled == nil || *c.Enabled }

// WaitOrDefault is the wait to use.
func (c Config) WaitOrDefault() time.Duration {
	if c.Wait > 0 {
		return c.Wait
	}
	return DefaultWait
}

// UnmarshalTOML reads the [lsp] table: the keys enabled and wait, and a
// table for each language. An unknown key is an error that names it.
func (c *Config) UnmarshalTOML(data any) error {
	table, ok := data.(map[string]any)
	if !ok {
		return errors.New("lsp must be a table: [lsp]")
	}
	c.set = map[string]bool{}
	for _, key := range slices.Sorted(maps.Keys(table)) {
		v := table[key]
		c.set[key] = true
		switch key {
		case "enabled":
			b, ok := v.(bool)
			if !ok {
				return fmt.Errorf("lsp.enabled must be true or false, not %v", v)
			}
			c.Enabled = &b
			continue
		case "wait":
			s, _ := v.(string)
			d, err := time.ParseDuration(s)
			if err != nil || d < 100*time.Millisecond || d > 2*time.Minute {
				return fmt.Errorf("lsp.wait must be a duration between 100ms and 2m, such as \"3s\", not %v", v)
			}
			c.Wait = d
			continue
		}
		t, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("lsp.%s must be a table ([lsp.%s] with command = [...]); the keys of [lsp] itself are enabled and wait", key, key)
		}
		st, err := serverTable(key, t)
		if err != nil {
			return err
		}
		for k := range t {
			c.set[key+"."+k] = true
		}
		if c.Servers == nil {
			c.Servers = map[string]ServerTable{}
		}
		c.Servers[key] = st
	}
	return nil
}

// serverTable reads one [lsp.LANGUAGE] table.
func serverTable(lang string, t map[string]any) (ServerTable, error) {
	var st ServerTable
	where := "lsp." + lang
	for _, key := range slices.Sorted(maps.Keys(t)) {
		v := t[key]
		var err error
		switch key {
		case "command":
			st.Command, err = stringList(v)
			if err == nil && (len(st.Command) == 0 || strings.TrimSpace(st.Command[0]) == "") {
				err = errors.New("names no program")
			}
		case "extensions":
			st.Extensions, err = stringList(v)
			for i, e := range st.Extensions {
				e = strings.ToLower(strings.TrimSpace(e))
				if !strings.HasPrefix(e, ".") {
					e = "." + e
				}
				st.Extensions[i] = e
			}
		case "enabled":
			b, ok := v.(bool)
			if !ok {
				err = errors.New("must be true or false")
			}
			st.Enabled = &b
		case "init_options", "settings":
			m, ok := v.(map[string]any)
			if !ok {
				err = errors.New("must be a table")
			}
			if key == "settings" {
				st.Settings = m
			} else {
				st.InitOptions = m
			}
		default:
			return st, fmt.Errorf("%s.%s is not a key tern knows; a server's table takes %s", where, key, strings.Join(serverKeys, ", "))
		}
		if err != nil {
			return st, fmt.Errorf("%s.%s %v", where, key, err)
		}
	}
	return st, nil
}

// stringList reads a TOML array of strings.
func stringList(v any) ([]string, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, errors.New(`must be an array of strings, such as ["gopls"]`)
	}
	out := make([]string, len(list))
	for i, x := range list {
		s, ok := x.(string)
		if !ok {
			return nil, errors.New(`must be an array of strings, such as ["gopls"]`)
		}
		out[i] = s
	}
	return out, nil
}

// Narrow applies proj, the [lsp] of a repository's own .tern.toml, over c,
// the user's: a repository may switch servers off, all of them or one
// language's, and nothing else. Its commands would run programs it
// chooses, and its settings and waits could do the same or stall every
// edit (gopls's env and buildFlags reach the go command), so they are
// ignored; notices say so.
func (c Config) Narrow(proj Config, path string) (Config, []string) {
	var notices []string
	out := c
	out.Servers = maps.Clone(c.Servers)
	if proj.Enabled != nil && !*proj.Enabled {
		out.Enabled = proj.Enabled
	}
	if proj.set["wait"] {
		notices = append(notices, fmt.Sprintf("%s: lsp.wait ignored: a repository cannot change how long edits wait for language servers; set it in your own config file", path))
	}
	for _, lang := range slices.Sorted(maps.Keys(proj.Servers)) {
		pt := proj.Servers[lang]
		var ignored []string
		for _, k := range serverKeys {
			if k != "enabled" && proj.set[lang+"."+k] {
				ignored = append(ignored, k)
			}
		}
		if len(ignored) > 0 {
			notices = append(notices, fmt.Sprintf("%s: lsp.%s %s ignored: a repository can switch a language server off (enabled = false), not choose what runs; set it in your own config file",
				path, lang, strings.Join(ignored, ", ")))
		}
		if pt.Enabled != nil && !*pt.Enabled {
			if out.Servers == nil {
				out.Servers = map[string]ServerTable{}
			}
			t := out.Servers[lang]
			t.Enabled = pt.Enabled
			out.Servers[lang] = t
		}
	}
	return out, notices
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
	// Command is empty.
	Missing []string
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
	{Name: "go", Languages: []string{"go"}, Candidates: [][]string{{"gopls"}},
		// gopls type-checks the edited package at once and the packages
		// that import it after diagnosticsDelay (1s by default); an edit
		// waits for both.
		InitOptions: map[string]any{"diagnosticsDelay": "100ms"},
		Settings:    map[string]any{"diagnosticsDelay": "100ms"}},
	{Name: "python", Languages: []string{"python"},
		Candidates: [][]string{{"pyright-langserver", "--stdio"}, {"basedpyright-langserver", "--stdio"}, {"pylsp"}}},
	{Name: "typescript", Languages: []string{"typescript", "tsx", "javascript"},
		Candidates: [][]string{{"typescript-language-server", "--stdio"}}},
	{Name: "rust", Languages: []string{"rust"}, Candidates: [][]string{{"rust-analyzer"}},
		InitOptions: map[string]any{
			"cargo":       map[string]any{"buildScripts": map[string]any{"enable": false}},
			"procMacro":   map[string]any{"enable": false},
			"checkOnSave": false,
		}},
	{Name: "c", Languages: []string{"c", "cpp"}, Candidates: [][]string{{"clangd"}}},
}

// Resolve resolves c into the servers tern may run, in name order: the
// defaults whose program lookPath finds (or that the config names), and
// every configured table. A table for a language tern has no grammar or
// default for must name its command and extensions.
func (c Config) Resolve(lookPath func(string) (string, error)) ([]Server, error) {
	if lookPath == nil {
		lookPath = exec.LookPath
	}
	var out []Server
	seen := map[string]bool{}
	for _, d := range Defaults {
		seen[d.Name] = true
		t, configured := c.Servers[d.Name]
		s := Server{Name: d.Name, Enabled: c.On() && (t.Enabled == nil || *t.Enabled),
			InitOptions: d.InitOptions, Settings: d.Settings}
		for _, l := range d.Languages {
			if g := grammar.Named(l); g != nil {
				s.Extensions = append(s.Extensions, g.Exts...)
			}
		}
		if len(t.Extensions) > 0 {
			s.Extensions = t.Extensions
		}
		if t.InitOptions != nil {
			s.InitOptions = t.InitOptions
		}
		if t.Settings != nil {
			s.Settings = t.Settings
		}
		if configured && len(t.Command) > 0 {
			s.Command, s.Configured = t.Command, true
		} else {
			for _, cand := range d.Candidates {
				if _, err := lookPath(cand[0]); err == nil {
					s.Command = cand
					break
				}
				s.Missing = append(s.Missing, cand[0])
			}
		}
		out = append(out, s)
	}
	for _, name := range slices.Sorted(maps.Keys(c.Servers)) {
		if seen[name] {
			continue
		}
		t := c.Servers[name]
		s := Server{Name: name, Command: t.Command, Extensions: t.Extensions, Configured: true,
			Enabled: c.On() && (t.Enabled == nil || *t.Enabled), InitOptions: t.InitOptions, Settings: t.Settings}
		if g := grammar.Named(name); g != nil && len(s.Extensions) == 0 {
			s.Extensions = g.Exts
		}
		if s.Enabled && len(s.Command) == 0 {
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
