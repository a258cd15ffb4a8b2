package tools

import (
	"context"
	"errors"

	"github.com/ternhq/tern/tools/lsp"
)

// The tiers the built-in tools come in. disclosure shows the model one
// more tier at a time, as the task needs it; its Tier type names these
// numbers.
const (
	TierRead     = iota // reading and searching the workspace
	TierEdit            // changing files
	TierCommands        // running programs and git
	TierExternal        // reaching outside the machine
	NumTiers
)

// builtins is the one table of tern's own tools: which tier each is in,
// whether explore's subagents may call it, and, within a tier, the order
// the model sees them in. The order is part of the prompt prefix, so a
// new tool goes at the end of its tier. A tool's name, parameters and
// description are in its own file; cmd/tern builds a session's tools from
// this table, and the tests take their lists from it.
var builtins = []builtin{
	{TierRead, allAgents, func(d Deps) (Tool, error) { return newReadFile(d.Workspace, d.Servers), nil }},
	{TierRead, allAgents, plain(NewListDir)},
	{TierRead, allAgents, plain(NewGrep)},
	{TierRead, allAgents, plain(NewGlob)},
	{TierRead, allAgents, func(d Deps) (Tool, error) {
		if d.Search == nil {
			return nil, nil // only a repository with an index has search_code
		}
		return NewSearchCode(d.Workspace, d.Search), nil
	}},
	{TierRead, mainAgent, func(d Deps) (Tool, error) { return NewExplore(d.Workspace, d.Explorer), nil }},
	{TierRead, mainAgent, func(d Deps) (Tool, error) { return NewAskUser(d.Asker), nil }},
	// Only with language servers, and offered while one runs
	// (Available).
	{TierRead, allAgents, withServers(NewDefinition)},
	{TierRead, allAgents, withServers(NewReferences)},
	{TierEdit, allAgents, func(d Deps) (Tool, error) { return newEditFile(d.Workspace, d.Checkpoint, d.Servers), nil }},
	{TierEdit, allAgents, func(d Deps) (Tool, error) { return newWriteFile(d.Workspace, d.Checkpoint, d.Servers), nil }},
	{TierCommands, allAgents, func(d Deps) (Tool, error) { return NewRunCommand(d.Workspace, d.Checkpoint, d.Commands) }},
	{TierCommands, allAgents, plain(NewGitStatus)},
	{TierCommands, allAgents, plain(NewGitDiff)},
	{TierCommands, allAgents, plain(NewGitCommit)},
	{TierExternal, allAgents, func(d Deps) (Tool, error) { return NewFetchURL(d.Workspace, nil, d.FetchAllow...), nil }},
}

// builtin is a row of the table: a tool's tier, who may call it, and how
// to make it.
type builtin struct {
	tier     int
	mainOnly bool
	make     func(Deps) (Tool, error)
}

// Who may call a built-in tool, the table's second column.
const (
	// allAgents: the session's agent and its explore subagents (which
	// get only the read-only tools).
	allAgents = false
	// mainAgent: the session's agent only: explore itself, and ask_user
	// (a subagent has nobody to ask).
	mainAgent = true
)

// plain adapts the constructor of a tool that needs only the workspace.
func plain(f func(*Workspace) Tool) func(Deps) (Tool, error) {
	return func(d Deps) (Tool, error) { return f(d.Workspace), nil }
}

// withServers adapts the constructor of a tool that exists only with
// language servers.
func withServers(f func(*Workspace, LanguageServers) Tool) func(Deps) (Tool, error) {
	return func(d Deps) (Tool, error) {
		if d.Servers == nil {
			return nil, nil
		}
		return f(d.Workspace, d.Servers), nil
	}
}

// Deps are what the built-in tools are made from. Workspace is required.
// A nil Checkpoint, Explorer or Asker makes the tool that needs it do
// without (no checkpoint) or say it is unavailable; a nil Search leaves
// search_code out; nil Servers leave definition and references out, and
// edits checked for syntax only.
type Deps struct {
	Workspace  *Workspace
	Checkpoint *Checkpoint
	// Commands are the allow and deny rules of run_command.
	Commands CommandPolicy
	// Search is the repository's code index, for search_code.
	Search   CodeSearcher
	Explorer Explorer
	Asker    Asker
	// FetchAllow lists the private hosts fetch_url may reach.
	FetchAllow []string
	// Servers are the session's language servers (package tools/lsp).
	Servers LanguageServers
}

// Builtins makes tern's own tools from d, tier by tier, each tier in its
// fixed order.
func Builtins(d Deps) ([NumTiers][]Tool, error) { return build(builtins, d) }

// build makes the tools of table from d.
func build(table []builtin, d Deps) ([NumTiers][]Tool, error) {
	var tiers [NumTiers][]Tool
	for _, b := range table {
		t, err := b.make(d)
		if err != nil {
			return tiers, err
		}
		if t != nil {
			tiers[b.tier] = append(tiers[b.tier], t)
		}
	}
	return tiers, nil
}

// BuiltinNames names all of tern's own tools, search_code included, tier
// by tier.
func BuiltinNames(ws *Workspace) []string { return names(builtins, ws) }

// MainAgentOnly names the built-in tools an explore subagent may not
// call, though they are read-only.
func MainAgentOnly(ws *Workspace) []string {
	var table []builtin
	for _, b := range builtins {
		if b.mainOnly {
			table = append(table, b)
		}
	}
	return names(table, ws)
}

// names names the tools of table.
func names(table []builtin, ws *Workspace) []string {
	tiers, _ := build(table, Deps{Workspace: ws, Search: noSearch{}, Servers: noServers{}}) // without rules, no constructor fails
	var names []string
	for _, tier := range tiers {
		for _, t := range tier {
			names = append(names, t.Spec().Name)
		}
	}
	return names
}

// noSearch stands in for an index where only search_code's name is needed.
type noSearch struct{}

func (noSearch) SearchCode(context.Context, string, int, string, int) (string, string, error) {
	return "", "", errors.New("no index")
}

// noServers stands in for language servers where only the names of the
// tools that use them are needed.
type noServers struct{}

func (noServers) Handles(string) bool { return false }
func (noServers) Running() bool       { return false }
func (noServers) Opened(string)       {}
func (noServers) Changed(context.Context, string, string, string, bool) (lsp.Report, error) {
	return lsp.Report{}, lsp.ErrNoServer
}
func (noServers) Definition(context.Context, string, lsp.Position) ([]lsp.Location, error) {
	return nil, lsp.ErrNoServer
}
func (noServers) References(context.Context, string, lsp.Position) ([]lsp.Location, error) {
	return nil, lsp.ErrNoServer
}

// EditTools returns the tools of tier 1 in their fixed order.
func EditTools(ws *Workspace, cp *Checkpoint) []Tool {
	tiers, _ := Builtins(Deps{Workspace: ws, Checkpoint: cp}) // without rules, no constructor fails
	return tiers[TierEdit]
}

// CommandTools returns the tools of tier 2 in their fixed order; policy's
// rules must compile.
func CommandTools(ws *Workspace, cp *Checkpoint, policy CommandPolicy) ([]Tool, error) {
	tiers, err := Builtins(Deps{Workspace: ws, Checkpoint: cp, Commands: policy})
	return tiers[TierCommands], err
}

// ReadOnlyTools returns the file tools of tier 0 that need nothing but the
// workspace, in their fixed order: read_file, list_dir, grep, glob. It is
// a small tool set for tests, not a tier.
func ReadOnlyTools(ws *Workspace) []Tool {
	return []Tool{NewReadFile(ws), NewListDir(ws), NewGrep(ws), NewGlob(ws)}
}
