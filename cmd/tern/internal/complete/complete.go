// Package complete gives tern's flags and arguments their shell
// completions: the installed models, this workspace's sessions, the tool
// modes, backends and tiers, the eval tasks, and the repository's paths
// after an @ in tern ask's prompt. cobra's own `tern completion SHELL`
// writes the script that asks for them.
//
// What to list comes from Sources, which package main fills from the
// model server, the session store and the repository; complete filters,
// describes and orders. It imports eval (the task suite) and words,
// nothing else of tern.
package complete

import (
	"context"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ternhq/tern/cmd/tern/internal/eval"
	"github.com/ternhq/tern/cmd/tern/internal/words"
)

// Timeout bounds what a completion may wait for a source: a shell waits
// on it at every Tab.
const Timeout = 2 * time.Second

// Model is a model a server offers.
type Model struct {
	Name string
	// Family, ParameterSize and Size (bytes) describe it when the server
	// says; OpenAI-compatible servers leave them empty.
	Family, ParameterSize string
	Size                  int64
}

// Session is a session of the workspace.
type Session struct {
	ID      string
	Started time.Time
	// Title is its first prompt.
	Title string
}

// Sources look up what completions list, only when a shell asks. Each
// gets a context bounded by Timeout and returns what it found: nothing
// when the server does not answer or the workspace has no store. A nil
// source lists nothing.
type Sources struct {
	// Models lists the server's models.
	Models func(ctx context.Context) []Model
	// Sessions lists the workspace's sessions, newest first.
	Sessions func(ctx context.Context) []Session
	// Paths lists the repository paths that go on from prefix, a
	// directory at a time ("cmd/" for "c").
	Paths func(ctx context.Context, prefix string) []string
}

// Register gives root's flags and sub-commands their completions. It
// panics when a flag it completes is missing: one renamed without its
// completion.
func Register(root *cobra.Command, src Sources) {
	fixed := func(values ...string) cobra.CompletionFunc {
		return cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp)
	}
	tiers := []string{
		"0\tread", "1\tedit", "2\tcommands", "3\texternal",
	}
	reg := func(cmd *cobra.Command, flag string, fn cobra.CompletionFunc) {
		if err := cmd.RegisterFlagCompletionFunc(flag, fn); err != nil {
			panic(err) // a flag renamed without its completion
		}
	}
	reg(root, "model", src.models)
	reg(root, "tool-mode", fixed(
		"auto\tnative calls when the model supports them",
		"native\tthe server's tool calls",
		"text\ttools in the prompt, calls parsed from the reply",
		"constrained\ttext, replies held to a JSON schema"))
	reg(root, "backend", fixed("auto\task the server", "ollama\tOllama", "openai\tllama-server, LM Studio, vLLM"))
	reg(root, "tier", fixed(tiers...))
	reg(root, "max-tier", fixed(tiers...))
	reg(root, "resume", src.sessions)
	for _, c := range root.Commands() {
		switch c.Name() {
		case "ask":
			reg(c, "resume", src.sessions)
			c.ValidArgsFunction = src.askArgs
		case "undo", "diff":
			reg(c, "session", src.sessions)
		case "eval":
			reg(c, "run", tasks)
			reg(c, "modes", fixed("native", "text", "constrained"))
		}
		// A command's arguments are no file names: by default the shell
		// offered the directory's files after tern sessions, doctor, search…
		switch {
		case c.ValidArgsFunction != nil:
		case c.Name() == "index":
			c.ValidArgsFunction = directory
		default:
			c.ValidArgsFunction = cobra.NoFileCompletions
		}
	}
}

// directory completes tern index's one argument, a directory.
func directory(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return nil, cobra.ShellCompDirectiveFilterDirs
}

// models lists the models whose name starts with toComplete, with their
// family, size and bytes when the server gave them.
func (src Sources) models(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if src.Models == nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	ctx, cancel := context.WithTimeout(cmd.Context(), Timeout)
	defer cancel()
	var out []cobra.Completion
	for _, m := range src.Models(ctx) {
		if !strings.HasPrefix(m.Name, toComplete) {
			continue
		}
		if m.Family == "" && m.ParameterSize == "" && m.Size == 0 {
			out = append(out, m.Name)
			continue
		}
		out = append(out, cobra.CompletionWithDesc(m.Name, strings.TrimSpace(m.Family+" "+m.ParameterSize+" "+words.Bytes(m.Size))))
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// sessions lists the sessions whose ID starts with toComplete, in the
// order given, with when they started and their first prompt.
func (src Sources) sessions(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if src.Sessions == nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	ctx, cancel := context.WithTimeout(cmd.Context(), Timeout)
	defer cancel()
	var out []cobra.Completion
	for _, s := range src.Sessions(ctx) {
		if strings.HasPrefix(s.ID, toComplete) {
			out = append(out, cobra.CompletionWithDesc(s.ID, s.Started.Local().Format("2006-01-02 15:04")+" "+words.OneLine(s.Title, 50)))
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveKeepOrder
}

// tasks lists the built-in eval tasks with their titles.
func tasks(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	tasks, err := eval.Load(eval.Suite())
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []cobra.Completion
	for _, t := range tasks {
		if strings.HasPrefix(t.Name, toComplete) {
			out = append(out, cobra.CompletionWithDesc(t.Name, t.Title))
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// askArgs completes a word of tern ask's prompt that starts with @ to the
// repository's paths (a directory at a time), as the TUI does.
func (src Sources) askArgs(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	prefix, ok := strings.CutPrefix(toComplete, "@")
	at := "@"
	if !ok && len(args) > 0 && args[len(args)-1] == "@" {
		// bash splits words at @ (COMP_WORDBREAKS): the @ came as a word
		// of its own, and what follows it is to be completed alone.
		prefix, ok, at = toComplete, true, ""
	}
	if !ok || src.Paths == nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	ctx, cancel := context.WithTimeout(cmd.Context(), Timeout)
	defer cancel()
	var out []cobra.Completion
	for _, next := range src.Paths(ctx, prefix) {
		out = append(out, at+next)
	}
	directive := cobra.ShellCompDirectiveNoFileComp
	if len(out) == 1 && strings.HasSuffix(out[0], "/") {
		directive |= cobra.ShellCompDirectiveNoSpace // go on into the directory
	}
	return out, directive
}
