package main

import (
	"context"
	"io"

	"github.com/ternhq/tern/cmd/tern/internal/backend"
	"github.com/ternhq/tern/cmd/tern/internal/complete"
	"github.com/ternhq/tern/cmd/tern/internal/config"
	"github.com/ternhq/tern/session"
	"github.com/ternhq/tern/tui"
)

// completionSources are where tern's shell completions come from: the
// model server, the workspace's session store and the repository.
func (a *app) completionSources() complete.Sources {
	return complete.Sources{Models: a.serverModels, Sessions: a.storedSessions, Paths: a.nextPaths}
}

// serverModels lists the models the server has; none when it does not
// answer in time.
func (a *app) serverModels(ctx context.Context) []complete.Model {
	a.stderr = io.Discard // config notices would garble the shell's line
	root, err := a.workspaceRoot()
	if err != nil {
		return nil
	}
	cfg, err := a.config(root)
	if err != nil {
		return nil
	}
	kind, addr, err := backend.Resolve(ctx, cfg)
	if err != nil {
		return nil
	}
	var out []complete.Model
	if kind == config.BackendOpenAI {
		c, err := backend.NewOpenAI(cfg, addr)
		if err != nil {
			return nil
		}
		list, _ := c.Models(ctx)
		for _, m := range list {
			out = append(out, complete.Model{Name: m.ID})
		}
		return out
	}
	c, err := backend.NewOllama(cfg, addr)
	if err != nil {
		return nil
	}
	list, _ := c.List(ctx)
	for _, m := range list {
		out = append(out, complete.Model{Name: m.Name, Family: m.Family, ParameterSize: m.ParameterSize, Size: m.SizeBytes})
	}
	return out
}

// storedSessions lists this workspace's sessions, newest first. It
// creates nothing: no store, no sessions.
func (a *app) storedSessions(ctx context.Context) []complete.Session {
	root, err := a.workspaceRoot()
	if err != nil {
		return nil
	}
	store, ok, err := session.OpenExisting(ctx, root)
	if err != nil || !ok {
		return nil
	}
	defer store.Close()
	list, _ := store.List(ctx, 50)
	out := make([]complete.Session, len(list))
	for i, s := range list {
		out[i] = complete.Session{ID: s.ID, Started: s.Started, Title: s.Title}
	}
	return out
}

// nextPaths lists the repository's paths that go on from prefix, a
// directory at a time, as the TUI's @ does.
func (a *app) nextPaths(ctx context.Context, prefix string) []string {
	root, err := a.workspaceRoot()
	if err != nil {
		return nil
	}
	files, _ := repoFiles(ctx, root)
	return tui.NextSegments(files, prefix)
}
