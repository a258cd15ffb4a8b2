package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ternhq/tern/cmd/tern/internal/backend"
	"github.com/ternhq/tern/cmd/tern/internal/config"
	"github.com/ternhq/tern/cmd/tern/internal/eval"
	"github.com/ternhq/tern/cmd/tern/internal/words"
	"github.com/ternhq/tern/models/ollama"
	"github.com/ternhq/tern/models/openai"
	"github.com/ternhq/tern/session"
	"github.com/ternhq/tern/tui"
)

// completionTimeout bounds what a completion may wait for the model
// server: a shell waits on it at every Tab.
const completionTimeout = 2 * time.Second

// registerCompletions gives the flags whose values tern knows their
// completions: the installed models, this workspace's sessions, the tool
// modes, backends and tiers. cobra's own `tern completion SHELL` writes
// the script that asks for them.
func (a *app) registerCompletions(root *cobra.Command) {
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
	reg(root, "model", a.completeModels)
	reg(root, "tool-mode", fixed(
		"auto\tnative calls when the model supports them",
		"native\tthe server's tool calls",
		"text\ttools in the prompt, calls parsed from the reply",
		"constrained\ttext, replies held to a JSON schema"))
	reg(root, "backend", fixed("auto\task the server", "ollama\tOllama", "openai\tllama-server, LM Studio, vLLM"))
	reg(root, "tier", fixed(tiers...))
	reg(root, "max-tier", fixed(tiers...))
	reg(root, "resume", a.completeSessions)
	for _, c := range root.Commands() {
		switch c.Name() {
		case "ask":
			reg(c, "resume", a.completeSessions)
			c.ValidArgsFunction = a.completeAskArgs
		case "undo", "diff":
			reg(c, "session", a.completeSessions)
		case "eval":
			reg(c, "run", completeTasks)
			reg(c, "modes", fixed("native", "text", "constrained"))
		}
	}
}

// completeModels lists the models the server has, with their size; none
// when it does not answer in time.
func (a *app) completeModels(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	a.stderr = io.Discard // config notices would garble the shell's line
	ctx, cancel := context.WithTimeout(cmd.Context(), completionTimeout)
	defer cancel()
	var out []cobra.Completion
	root, err := a.workspaceRoot()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	cfg, err := a.config(root)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	kind, addr, err := backend.Resolve(ctx, cfg)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	if kind == config.BackendOpenAI {
		c, err := openai.New(addr, cfg.APIKey())
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		list, _ := c.Models(ctx)
		for _, m := range list {
			if strings.HasPrefix(m.ID, toComplete) {
				out = append(out, m.ID)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
	c, err := ollama.New(addr)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	list, _ := c.List(ctx)
	for _, m := range list {
		if strings.HasPrefix(m.Name, toComplete) {
			out = append(out, cobra.CompletionWithDesc(m.Name, strings.TrimSpace(m.Family+" "+m.ParameterSize+" "+words.Bytes(m.SizeBytes))))
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completeSessions lists this workspace's sessions, newest first, with
// their first prompt. It creates nothing: no store, no completions.
func (a *app) completeSessions(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	root, err := a.workspaceRoot()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	if _, err := os.Stat(filepath.Join(root, ".tern", "tern.db")); err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	ctx, cancel := context.WithTimeout(cmd.Context(), completionTimeout)
	defer cancel()
	store, err := session.OpenWorkspace(ctx, root)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	defer store.Close()
	list, _ := store.List(ctx, 50)
	var out []cobra.Completion
	for _, s := range list {
		if strings.HasPrefix(s.ID, toComplete) {
			out = append(out, cobra.CompletionWithDesc(s.ID, s.Started.Local().Format("2006-01-02 15:04")+" "+oneLine(s.Title, 50)))
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveKeepOrder
}

// completeTasks lists the built-in eval tasks with their titles.
func completeTasks(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
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

// completeAskArgs completes a word of tern ask's prompt that starts with
// @ to the repository's paths (a directory at a time), as the TUI does.
func (a *app) completeAskArgs(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	prefix, ok := strings.CutPrefix(toComplete, "@")
	at := "@"
	if !ok && len(args) > 0 && args[len(args)-1] == "@" {
		// bash splits words at @ (COMP_WORDBREAKS): the @ came as a word
		// of its own, and what follows it is to be completed alone.
		prefix, ok, at = toComplete, true, ""
	}
	if !ok {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	root, err := a.workspaceRoot()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	ctx, cancel := context.WithTimeout(cmd.Context(), completionTimeout)
	defer cancel()
	files, _ := repoFiles(ctx, root)
	var out []cobra.Completion
	for _, next := range tui.NextSegments(files, prefix) {
		out = append(out, at+next)
	}
	directive := cobra.ShellCompDirectiveNoFileComp
	if len(out) == 1 && strings.HasSuffix(out[0], "/") {
		directive |= cobra.ShellCompDirectiveNoSpace // go on into the directory
	}
	return out, directive
}
