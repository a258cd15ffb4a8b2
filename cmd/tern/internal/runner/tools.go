package runner

import (
	"context"
	"fmt"

	"github.com/ternhq/tern/cmd/tern/internal/checkpoint"
	"github.com/ternhq/tern/cmd/tern/internal/config"
	"github.com/ternhq/tern/disclosure"
	"github.com/ternhq/tern/tools"
	"github.com/ternhq/tern/tools/sandbox"
)

// metaTools is the session meta key of the disclosure state: tier and
// visible tools.
const metaTools = "tools"

// toolOptions is what a session's tool set is built from.
type toolOptions struct {
	ws  *tools.Workspace
	cfg config.Config
	cp  *tools.Checkpoint
	// search, when set, adds search_code to tier 0.
	search tools.CodeSearcher
	// restore and save keep the unlocks of a session across runs.
	restore *disclosure.State
	save    func(context.Context, disclosure.State) error
	// catalog holds the MCP servers' tools; nil when none are configured.
	catalog disclosure.Catalog
	// explorer runs explore's subagents and asker puts ask_user's
	// questions to the user; nil ones make the tools say they cannot.
	explorer tools.Explorer
	asker    tools.Asker
	// reaper runs each command as a subreaper, terminal in the editor's
	// terminal (tools.CommandPolicy).
	reaper   string
	terminal tools.Terminal
	// sandbox confines commands; nil runs them unconfined.
	sandbox *sandbox.Sandbox
	// servers are the language servers; nil when none can run.
	servers tools.LanguageServers
}

// buildToolSet makes the tools of every tier and the disclosure set that
// shows them to the model.
func buildToolSet(o toolOptions) (*disclosure.Set, error) {
	policy := tools.CommandPolicy{Allow: o.cfg.AllowCommands, Deny: o.cfg.DenyCommands, Reaper: o.reaper, Terminal: o.terminal,
		Sandbox: o.sandbox, RequireSandbox: o.cfg.Sandbox.Required}
	builtins, err := tools.Builtins(tools.Deps{Workspace: o.ws, Checkpoint: o.cp, Commands: policy,
		Search: o.search, Explorer: o.explorer, Asker: o.asker, FetchAllow: o.cfg.FetchAllow, Servers: o.servers})
	if err != nil {
		return nil, err
	}
	intents, err := disclosure.DefaultIntents()
	if err != nil {
		return nil, err
	}
	return disclosure.New(disclosure.Config{
		Tools:   builtins,
		Start:   disclosure.Tier(o.cfg.Tier),
		Max:     disclosure.Tier(o.cfg.MaxTier),
		Intents: intents.With(o.cfg.Intent),
		Restore: o.restore,
		Save:    o.save,
		Catalog: o.catalog,
	})
}

// PromptTools is the tool set tern prompt reports: the tools of every
// tier a session in ws would have, with search_code when search is set
// (only its schema is shown). It runs nothing.
func PromptTools(ws *tools.Workspace, cfg config.Config, search tools.CodeSearcher) (*disclosure.Set, error) {
	return buildToolSet(toolOptions{ws: ws, cfg: cfg, search: search})
}

// toolSet builds the run's tool set: a checkpoint before the first change,
// recorded in the session; unlocks saved in the session and restored when
// it resumes; an explicit --tier applied to a resumed session.
func (r *Run) toolSet(ctx context.Context, tierFlag bool) (*disclosure.Set, error) {
	var set *disclosure.Set
	cp := tools.NewCheckpoint(r.ws, r.sess.ID, checkpoint.Recorder(r.store, r.sess.ID, func(n string) { set.Notify(n) }))
	r.checkpoint = cp
	o := toolOptions{ws: r.ws, cfg: r.cfg, cp: cp, save: func(ctx context.Context, st disclosure.State) error {
		return r.store.SetMeta(context.WithoutCancel(ctx), r.sess.ID, metaTools, st.String())
	}, asker: r.asker, reaper: r.reaper, terminal: r.terminal, sandbox: r.sandbox}
	if r.explorer != nil {
		o.explorer = r.explorer
	}
	if r.mcp != nil { // a nil *mcp.Manager in the interface would not be nil
		o.catalog = r.mcp
	}
	if r.lsp != nil {
		o.servers = r.lsp
	}
	if r.code != nil {
		// search_code only when the index opens; a broken one says so.
		if ok, notice := r.code.Available(ctx); ok {
			o.search = r.code
		} else if notice != "" {
			r.notices = append(r.notices, notice)
		}
	}
	if r.resumed {
		v, ok, err := r.store.Meta(ctx, r.sess.ID, metaTools)
		if err != nil {
			return nil, err
		}
		if ok {
			st, err := disclosure.ParseState(v)
			if err != nil {
				r.notices = append(r.notices, fmt.Sprintf("the session's saved tools are unreadable (%v); starting at tier %d", err, r.cfg.Tier))
			} else {
				o.restore = &st
			}
		}
	}
	set, err := buildToolSet(o)
	if err != nil {
		return nil, err
	}
	if r.resumed && tierFlag && set.Tier() != disclosure.Tier(r.cfg.Tier) {
		if err := set.SetTier(ctx, disclosure.Tier(r.cfg.Tier), "--tier"); err != nil {
			return nil, err
		}
	}
	return set, nil
}
