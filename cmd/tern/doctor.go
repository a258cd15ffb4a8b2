package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ternhq/tern/agent"
	"github.com/ternhq/tern/cmd/tern/internal/backend"
	"github.com/ternhq/tern/cmd/tern/internal/config"
	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/models/ollama"
	"github.com/ternhq/tern/prompts"
	"github.com/ternhq/tern/session"
	"github.com/ternhq/tern/statedir"
)

// doctorOptions are tern doctor's flags: it has none.
type doctorOptions struct{}

func (a *app) doctorCommand() *cobra.Command {
	o := &doctorOptions{}
	return &cobra.Command{
		Use:   "doctor",
		Short: "Check Ollama, the models, the context plan and the workspace",
		Long: `Check that Ollama answers, which models are installed and what they can do,
which model tern would use with which context window (and the arithmetic
behind it), whether an embedding model is there for semantic search, and the
state of the workspace and its search index. Every problem comes with the command that fixes it.
Exits 1 when tern could not run a turn as configured.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCommand(cmd.Context(), a, o, func(ctx context.Context, _ *doctorOptions) error { return a.doctor(ctx) })
		},
	}
}

// report prints doctor's lines: a label column, a mark, the finding.
type report struct {
	w        io.Writer
	problems int
}

func (r *report) ok(label, format string, args ...any) {
	fmt.Fprintf(r.w, "%-11s ✓ %s\n", label, fmt.Sprintf(format, args...))
}

func (r *report) bad(label, format string, args ...any) {
	r.problems++
	fmt.Fprintf(r.w, "%-11s ✗ %s\n", label, fmt.Sprintf(format, args...))
}

func (r *report) note(label, format string, args ...any) {
	fmt.Fprintf(r.w, "%-11s · %s\n", label, fmt.Sprintf(format, args...))
}

func (r *report) detail(format string, args ...any) {
	fmt.Fprintf(r.w, "%-11s   %s\n", "", fmt.Sprintf(format, args...))
}

func (a *app) doctor(ctx context.Context) error {
	root, err := a.workspaceRoot()
	if err != nil {
		return err
	}
	r := &report{w: a.stdout}
	defer func() {
		if r.problems == 0 {
			fmt.Fprintln(a.stdout, "\nAll checks passed.")
		}
	}()
	cfg, err := a.doctorConfig(r, root)
	if err != nil {
		return err
	}

	kind, addr, err := backend.Resolve(ctx, cfg)
	if err != nil {
		r.bad("Backend", "%v", err)
		return exitCodeError{code: exitError}
	}
	if kind == config.BackendOpenAI {
		return a.doctorOpenAI(ctx, r, root, cfg, addr)
	}
	client, err := ollama.New(addr)
	if err != nil {
		r.bad("Ollama", "%v", err)
		return exitCodeError{code: exitError}
	}
	version, err := client.Version(ctx)
	if err != nil {
		if errors.Is(err, models.ErrUnreachable) || errors.Is(err, context.DeadlineExceeded) {
			r.bad("Ollama", "not reachable at %s", client.Host())
			r.detail("start it with `ollama serve` (or open the Ollama app), or set --host / OLLAMA_HOST")
		} else {
			// Something answers there, but not /api/version as Ollama does.
			r.bad("Ollama", "the server at %s is not Ollama (/api/version: %v)", client.Host(), err)
			r.detail("for llama-server, LM Studio or vLLM pass --backend openai (or leave --backend unset to detect it)")
		}
		a.doctorWorkspace(ctx, r, root, cfg)
		a.doctorMCP(ctx, r, cfg, root)
		return exitCodeError{code: exitError}
	}
	r.ok("Ollama", "%s (version %s)", client.Host(), version)

	installed, err := client.List(ctx)
	if err != nil {
		r.bad("Models", "listing failed: %v", err)
		return exitCodeError{code: exitError}
	}
	infos := make(map[string]models.ModelInfo, len(installed))
	if len(installed) == 0 {
		r.bad("Models", "none installed; run `ollama pull qwen3:8b`")
	} else {
		r.ok("Models", "%d installed", len(installed))
		for _, m := range installed {
			info, err := client.Show(ctx, m.Name)
			if err != nil {
				r.detail("%-28s (show failed: %v)", m.Name, err)
				continue
			}
			info.SizeBytes = m.SizeBytes
			infos[m.Name] = info
			r.detail("%-28s %8s  %-10s %6s  %s", m.Name, humanBytes(m.SizeBytes), m.Family, m.ParameterSize, capList(info))
		}
	}

	a.doctorModel(ctx, r, client, cfg, installed, infos)
	a.doctorEmbed(ctx, r, root, cfg, installed, infos)
	a.doctorWorkspace(ctx, r, root, cfg)
	a.doctorMCP(ctx, r, cfg, root)
	if r.problems > 0 {
		return exitCodeError{code: exitError}
	}
	return nil
}

// doctorConfig reports the config files: which were read, and every
// problem of those that could not be, each a failed check. The checks
// after it go on without the files that have problems, as if they were
// not there, so a broken .tern.toml does not hide the rest. Only a flag's
// own wrong value stops doctor (a usage error).
func (a *app) doctorConfig(r *report, root string) (config.Config, error) {
	cfg, read, problems := config.LoadLenient(root, a.getenv)
	cfg, err := a.overrideConfig(cfg)
	if err != nil {
		return cfg, err
	}
	if len(problems) == 0 {
		if len(read) == 0 {
			r.ok("Config", "none; the defaults (config files: %s)", strings.Join(config.Paths(root, a.getenv), ", "))
		} else {
			r.ok("Config", "%s", strings.Join(read, ", "))
		}
		return cfg, nil
	}
	for _, p := range problems {
		var uk config.UnknownKeysError
		if errors.As(p, &uk) && len(uk.Keys) > 1 {
			r.bad("Config", "%s: %d unknown keys", uk.Path, len(uk.Keys))
			for _, k := range uk.Keys {
				r.detail("%s", k)
			}
			continue
		}
		r.bad("Config", "%s", strings.TrimPrefix(p.Error(), "config "))
	}
	if len(read) > 0 {
		r.detail("the checks below use %s and leave out the files above", strings.Join(read, ", "))
	} else {
		r.detail("the checks below use the defaults and leave out the files above")
	}
	r.detail("tern ask and the TUI refuse to start until they are fixed")
	return cfg, nil
}

func (a *app) doctorModel(ctx context.Context, r *report, client *ollama.Client, cfg config.Config, installed []models.ModelInfo, infos map[string]models.ModelInfo) {
	show := func(ctx context.Context, name string) (models.ModelInfo, error) {
		if info, ok := infos[name]; ok {
			return info, nil
		}
		return client.Show(ctx, name)
	}
	name, why, err := models.ChooseModel(ctx, cfg.Model, installed, show)
	if err != nil {
		r.bad("Chat model", "%v", backend.Explain(err, client.Host(), cfg.Model, installed))
		return
	}
	info := infos[name]
	r.ok("Chat model", "%s (%s)", name, why)
	r.detail("capabilities: %s", strings.Join(capStrings(info), ", "))
	trained := "unknown"
	if info.ContextLength > 0 {
		trained = fmt.Sprint(info.ContextLength)
	}
	modelfile := "unset"
	if info.ModelfileNumCtx > 0 {
		modelfile = fmt.Sprint(info.ModelfileNumCtx)
	}
	r.detail("trained context: %s tokens; Modelfile num_ctx: %s", trained, modelfile)
	prof, err := profileFor(info, cfg)
	if err != nil {
		r.bad("Profile", "%v", err)
	} else {
		r.ok("Profile", "%s", prof)
	}
	a.doctorTools(ctx, r, cfg, info, prof)
	plan := ollama.PlanContext(info, a.vramBytes(ctx, cfg), cfg.Ctx)
	if clamp := plan.Clamp(); clamp != "" {
		r.note("Context", "%s", clamp)
	}
	if plan.Source == "fallback" {
		r.note("Context", "%d tokens (conservative fallback: the architecture numbers are unknown)", plan.NumCtx)
	} else {
		r.ok("Context", "%d tokens (%s)", plan.NumCtx, plan.Source)
	}
	for _, line := range plan.Explanation {
		r.detail("%s", line)
	}
	if running, err := client.Running(ctx); err == nil {
		for _, m := range running {
			if m.Name == name && m.ContextLength > 0 && m.ContextLength != plan.NumCtx {
				r.note("Loaded", "%s is loaded with %d tokens; tern's first request reloads it with %d", name, m.ContextLength, plan.NumCtx)
			}
		}
	}
}

func (a *app) doctorEmbed(ctx context.Context, r *report, root string, cfg config.Config, installed []models.ModelInfo, infos map[string]models.ModelInfo) {
	want := cfg.EmbedModel
	if m, ok := models.Installed(want, installed); ok {
		if info, ok := infos[m.Name]; ok && !info.Has(models.CapEmbedding) {
			r.bad("Embeddings", "%s does not list the embedding capability; set embed_model to an embedding model", m.Name)
			return
		}
		r.ok("Embeddings", "%s", m.Name)
		return
	}
	// Search embeds queries with the model the index's vectors were made
	// with, which need not be embed_model.
	if model, n := indexVectors(ctx, root, cfg); n > 0 {
		if m, ok := models.Installed(model, installed); ok {
			r.ok("Embeddings", "%s (the index's %d vectors were made with it; embed_model %s is not installed)", m.Name, n, want)
			return
		}
		r.note("Embeddings", "the index's %d vectors were made with %s, which is not installed, and embed_model %s is not installed either: search is lexical until `ollama pull %s`",
			n, model, want, model)
		return
	}
	r.note("Embeddings", "%s is not installed; search is lexical only. For semantic search: `ollama pull %s`", want, want)
}

func (a *app) doctorWorkspace(ctx context.Context, r *report, root string, cfg config.Config) {
	kind := "directory"
	if _, err := os.Stat(filepath.Join(root, ".git")); err == nil {
		kind = "git repository"
	}
	r.ok("Workspace", "%s (%s)", root, kind)
	notes, name, _, err := prompts.ProjectNotes(root, prompts.NotesMaxBytes)
	switch {
	case err != nil:
		r.bad("Notes", "%v", err)
	case notes == "":
		r.note("Notes", "no AGENTS.md; project notes there are added to every prompt")
	default:
		r.ok("Notes", "%s (%d bytes)", name, len(notes))
	}
	if _, err := os.Stat(filepath.Join(root, ".tern", "tern.db")); errors.Is(err, os.ErrNotExist) {
		r.note("Sessions", "none yet")
	} else {
		r.ok("Sessions", "%s", filepath.Join(".tern", "tern.db"))
	}
	a.doctorIndex(ctx, r, root, cfg)
}

func capStrings(info models.ModelInfo) []string {
	s := make([]string, len(info.Capabilities))
	for i, c := range info.Capabilities {
		s[i] = string(c)
	}
	return s
}

// capList names the capabilities that matter to tern.
func capList(info models.ModelInfo) string {
	var s []string
	for _, c := range []models.Capability{models.CapTools, models.CapThinking, models.CapEmbedding, models.CapVision} {
		if info.Has(c) {
			s = append(s, string(c))
		}
	}
	return strings.Join(s, " ")
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.0f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.0f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// doctorTools reports the tool protocol a run would use, and why.
func (a *app) doctorTools(ctx context.Context, r *report, cfg config.Config, info models.ModelInfo, prof models.Profile) {
	proto := models.ChooseToolProtocol(cfg.ToolMode, info, prof)
	text, why := proto.Text, proto.Why
	if !text && cfg.ToolMode == models.ToolModeAuto {
		if root, err := a.workspaceRoot(); err == nil {
			if store, err := openExisting(ctx, root); err == nil && store != nil {
				// The run's own rule decides (a profile's tool_mode keeps
				// the protocol it chose).
				if fb, ok := agent.LastFallback(ctx, store, info.Name); ok && proto.Recall(cfg.ToolMode, prof, fb).Text {
					text, why = true, fmt.Sprintf("in session %s, %s", fb.Session, fb.Why)
				}
				store.Close()
			}
		}
	}
	if !text {
		r.ok("Tools", "native tool calls (repaired when written as text; a retry in text on Ollama's tool-parse errors)")
		return
	}
	r.note("Tools", "text tool protocol (tools described in the prompt, calls parsed from text): %s", why)
	if !info.Has(models.CapTools) {
		r.detail("a model with native tool support works better, e.g. `ollama pull qwen3:8b`")
	} else {
		r.detail("force native calls with --tool-mode native")
	}
}

// openExisting opens the workspace's session store if it exists; it never
// creates one (tern doctor must not leave files behind).
func openExisting(ctx context.Context, root string) (*session.Store, error) {
	path, exists, err := statedir.Existing(root, "tern.db")
	if err != nil || !exists {
		return nil, err
	}
	return session.Open(ctx, path)
}
