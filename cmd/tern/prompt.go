package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/ternhq/tern/cmd/tern/internal/backend"
	"github.com/ternhq/tern/cmd/tern/internal/codeindex"
	"github.com/ternhq/tern/cmd/tern/internal/promptview"
	"github.com/ternhq/tern/cmd/tern/internal/runner"
	"github.com/ternhq/tern/context/budget"
	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/prompts"
	"github.com/ternhq/tern/tools"
)

// promptConnectTimeout bounds the wait for the model server: tern prompt
// works without it.
const promptConnectTimeout = 3 * time.Second

// promptCommand is tern prompt, reporting the workspace's first request.
func (a *app) promptCommand() *cobra.Command {
	return promptview.NewCmd(func(ctx context.Context, o *promptview.Options) error {
		return runCommand(ctx, a, o, a.prompt)
	})
}

func (a *app) prompt(ctx context.Context, po *promptview.Options) error {
	root, err := a.workspaceRoot()
	if err != nil {
		return err
	}
	cfg, err := a.config(root)
	if err != nil {
		return err
	}
	counter, err := budget.NewCounter()
	if err != nil {
		return err
	}
	model, text := cfg.Model, cfg.ToolMode == "text" || cfg.ToolMode == "constrained"
	var prof models.Profile
	var constrained bool
	cctx, cancel := context.WithTimeout(ctx, promptConnectTimeout)
	back, err := backend.Connect(cctx, cfg, a.vramBytes)
	cancel()
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var perr error
		if prof, perr = backend.Profile(models.ModelInfo{Name: cfg.Model, Family: models.FamilyOfName(cfg.Model)}, cfg); perr != nil {
			return perr
		}
		if model == "" {
			model = "(no model)"
		}
		promptview.WriteOffline(a.stderr, err, prof.Prompt, text)
		constrained = prof.EffectiveToolMode(cfg.ToolMode) == models.ToolModeConstrained
	} else {
		model, prof, text, constrained = back.Info.Name, back.Profile, back.Proto.Text, back.Proto.Constrained
	}

	ws, err := tools.NewWorkspace(root, cfg.AllowRead...)
	if err != nil {
		return err
	}
	var search tools.CodeSearcher
	if code := codeindex.New(root, cfg); code.Exists() {
		search = code // only its schema is shown
	}
	set, err := runner.PromptTools(ws, cfg, search)
	if err != nil {
		return err
	}
	system, notes, err := prompts.ForModel(root, prof, cfg.Think)
	if err != nil {
		return err
	}
	var render func([]models.ToolSpec) string
	if text {
		format := models.CallFormat(prof.ToolFormat, constrained) // as the agent writes calls
		render = func(specs []models.ToolSpec) string {
			block, _ := prompts.TextToolsBlock(specs, format) // the templates are tested; it cannot fail
			return system + block
		}
	}
	for _, n := range notes {
		fmt.Fprintf(a.stderr, "tern: %s\n", n)
	}
	p := promptview.Report{Counter: counter, Set: set, System: system, Render: render, Model: model, Template: prof.Prompt}
	if po.JSON {
		return p.WriteJSON(a.stdout)
	}
	p.Write(a.stdout)
	return nil
}
