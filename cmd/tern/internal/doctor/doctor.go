// Package doctor is tern doctor's checks and its report: the config
// files, the server (Ollama or an OpenAI-compatible one), the models and
// what they can do, the model a run would choose with its profile, tool
// protocol and context window (with the arithmetic), embeddings, the
// workspace, its notes, sessions and index, and the MCP servers. Every
// problem comes with what fixes it.
//
// In the cli/cli manner, NewCmd is the cobra command and Run the checks;
// cmd/tern builds an Env with what only it knows (the flags). doctor
// imports the packages it checks, and never cmd/tern.
package doctor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/ternhq/tern/agent"
	"github.com/ternhq/tern/cmd/tern/internal/backend"
	"github.com/ternhq/tern/cmd/tern/internal/config"
	"github.com/ternhq/tern/cmd/tern/internal/words"
	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/models/ollama"
	"github.com/ternhq/tern/prompts"
	"github.com/ternhq/tern/session"
	"github.com/ternhq/tern/statedir"
	"github.com/ternhq/tern/tools"
	"github.com/ternhq/tern/tools/lsp"
	"github.com/ternhq/tern/tools/mcp"
)

// Env is what doctor needs of the program around it.
type Env struct {
	// Root is the workspace; Getenv reads the environment; Out receives
	// the report.
	Root   string
	Getenv func(string) string
	Out    io.Writer
	// Configure applies the environment and the flags over a config made
	// from the files, as a run would. Its error (a flag's wrong value)
	// stops doctor.
	Configure func(config.Config) (config.Config, error)
	// VRAM is the GPU memory a run would plan the window for; VRAMFrom
	// says where the figure comes from ("" when nothing measured it: it
	// is assumed).
	VRAM     func(context.Context, config.Config) int64
	VRAMFrom func(context.Context, config.Config) string
	// Helper is tern's own binary, the sandbox's Landlock helper.
	Helper string
	// MCP returns the manager of cfg's MCP servers as a run would make it
	// (nil when there are none); doctor starts them and closes it.
	MCP func(config.Config, *tools.Workspace) (*mcp.Manager, error)
	// LanguageServers are the language servers a run would have, with the
	// programs found for them; doctor starts each and stops it again.
	LanguageServers func(config.Config) ([]lsp.Server, error)
}

// ErrProblems means a check failed: tern could not run a turn as
// configured. The report says which and how to fix it.
var ErrProblems = errors.New("tern doctor found problems")

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

// warn is a risk the user should know of; it fails nothing.
func (r *report) warn(label, format string, args ...any) {
	fmt.Fprintf(r.w, "%-11s ! %s\n", label, fmt.Sprintf(format, args...))
}

func (r *report) note(label, format string, args ...any) {
	fmt.Fprintf(r.w, "%-11s · %s\n", label, fmt.Sprintf(format, args...))
}

func (r *report) detail(format string, args ...any) {
	fmt.Fprintf(r.w, "%-11s   %s\n", "", fmt.Sprintf(format, args...))
}

// Run checks everything a run needs and writes the report to env.Out:
// ErrProblems when a check failed, another error when doctor could not
// go on (a flag's wrong value).
func Run(ctx context.Context, env Env) (err error) {
	d := &doctor{Env: env, r: &report{w: env.Out}}
	r := d.r
	defer func() {
		if err == nil && r.problems == 0 {
			fmt.Fprintln(env.Out, "\nAll checks passed.")
		}
	}()
	cfg, err := d.config()
	if err != nil {
		return err
	}

	kind, addr, err := backend.Resolve(ctx, cfg)
	if err != nil {
		r.bad("Backend", "%v", err)
		d.workspace(ctx, cfg)
		d.mcp(ctx, cfg)
		d.lsp(ctx, cfg)
		return ErrProblems
	}
	if kind == config.BackendOpenAI {
		return d.openAI(ctx, cfg, addr)
	}
	return d.ollama(ctx, cfg, addr)
}

// doctor is one run of the checks.
type doctor struct {
	Env
	r *report
	// version is the Ollama server's.
	version string
}

// ollama checks an Ollama server and what it serves.
func (d *doctor) ollama(ctx context.Context, cfg config.Config, addr string) error {
	r := d.r
	client, err := backend.NewOllama(cfg, addr)
	if err != nil {
		r.bad("Ollama", "%v", err)
		return ErrProblems
	}
	version, err := client.Version(ctx)
	if err != nil {
		switch {
		case errors.Is(err, models.ErrUnreachable):
			r.bad("Ollama", "not reachable at %s", client.Host())
			r.detail("start it with `ollama serve` (or open the Ollama app), or set --host / OLLAMA_HOST")
		case errors.Is(err, models.ErrNoAnswer):
			r.bad("Ollama", "%v", backend.Explain(err, client.Host(), "", nil))
		default:
			// Something answers there, but not /api/version as Ollama does.
			r.bad("Ollama", "the server at %s is not Ollama (/api/version: %v)", client.Host(), err)
			r.detail("for llama-server, LM Studio or vLLM pass --backend openai (or leave --backend unset to detect it)")
		}
		d.workspace(ctx, cfg)
		d.mcp(ctx, cfg)
		d.lsp(ctx, cfg)
		return ErrProblems
	}
	r.ok("Ollama", "%s (version %s)", client.Host(), version)
	d.version = version

	installed, err := client.List(ctx)
	if err != nil {
		r.bad("Models", "listing failed: %v", err)
		return ErrProblems
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
			r.detail("%-28s %8s  %-10s %6s  %s", m.Name, words.Bytes(m.SizeBytes), m.Family, m.ParameterSize, capList(info))
		}
	}

	d.model(ctx, client, cfg, installed, infos)
	d.embed(ctx, cfg, installed, infos)
	d.workspace(ctx, cfg)
	d.mcp(ctx, cfg)
	d.lsp(ctx, cfg)
	if r.problems > 0 {
		return ErrProblems
	}
	return nil
}

// config reports the config files: which were read, and every
// problem of those that could not be, each a failed check. The checks
// after it go on without the files that have problems, as if they were
// not there, so a broken .tern.toml does not hide the rest. Only a flag's
// own wrong value stops doctor (a usage error).
func (d *doctor) config() (config.Config, error) {
	r, root := d.r, d.Root
	cfg, read, problems := config.LoadLenient(root, d.Getenv)
	cfg, err := d.Configure(cfg)
	if err != nil {
		return cfg, err
	}
	if len(problems) == 0 {
		if len(read) == 0 {
			r.ok("Config", "none; the defaults (config files: %s)", strings.Join(config.Paths(root, d.Getenv), ", "))
		} else {
			r.ok("Config", "%s", strings.Join(read, ", "))
		}
		return cfg, nil
	}
	for _, p := range problems {
		var fe config.FileError
		if errors.As(p, &fe) && len(fe.Problems) > 1 {
			r.bad("Config", "%s: %d problems", fe.Path, len(fe.Problems))
			for _, k := range fe.Problems {
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

// model reports the model a run would choose, its profile, tool protocol
// and context window, and how it is loaded.
func (d *doctor) model(ctx context.Context, client *ollama.Client, cfg config.Config, installed []models.ModelInfo, infos map[string]models.ModelInfo) {
	r := d.r
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
	prof, err := backend.Profile(info, cfg)
	if err != nil {
		r.bad("Profile", "%v", err)
	} else {
		r.ok("Profile", "%s", prof)
	}
	d.tools(ctx, cfg, info, prof)
	vram := d.VRAM(ctx, cfg)
	plan := ollama.PlanContext(info, ollama.Memory{VRAM: vram, RAM: backend.RAM(cfg)}, cfg.Ctx)
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
	if d.VRAMFrom != nil && d.VRAMFrom(ctx, cfg) == "" && cfg.Ctx == 0 {
		r.warn("VRAM", "%s assumed, not measured (no nvidia-smi): the window above may not fit your GPU, or may waste it; pass --vram GiB or set vram in the config", words.Bytes(vram))
	}
	running, _ := client.Running(ctx)
	d.experts(info, plan, running)
	main := &backend.Conn{Kind: config.BackendOllama, Client: client, Installed: installed, Info: info, VRAM: plan.VRAMBytes, RAM: plan.RAMBytes}
	d.escalation(ctx, cfg, main, plan)
	for _, m := range running {
		if m.Name == name && m.ContextLength > 0 && m.ContextLength != plan.NumCtx {
			r.note("Loaded", "%s is loaded with %d tokens; tern's first request reloads it with %d", name, m.ContextLength, plan.NumCtx)
		}
	}
}

// embed reports the embedding model search would use.
func (d *doctor) embed(ctx context.Context, cfg config.Config, installed []models.ModelInfo, infos map[string]models.ModelInfo) {
	r := d.r
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
	if model, n := indexVectors(ctx, d.Root, cfg); n > 0 {
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

// workspace reports the workspace, its notes, sessions and index.
func (d *doctor) workspace(ctx context.Context, cfg config.Config) {
	r, root := d.r, d.Root
	gitErr := tools.CheckGit(ctx, root)
	kind := "git repository"
	if gitErr != nil {
		kind = "directory"
	}
	r.ok("Workspace", "%s (%s)", root, kind)
	d.risks(gitErr)
	d.state()
	notes, name, _, err := prompts.ProjectNotes(root, prompts.NotesMaxBytes)
	switch {
	case err != nil:
		r.bad("Notes", "%v", err)
	case notes == "":
		r.note("Notes", "no AGENTS.md; project notes there are added to every prompt")
	default:
		r.ok("Notes", "%s (%d bytes)", name, len(notes))
	}
	if path, exists, err := statedir.Existing(root, "tern.db"); err != nil || !exists {
		r.note("Sessions", "none yet")
	} else {
		r.ok("Sessions", "%s", d.shortPath(path))
	}
	d.sandbox(cfg)
	d.index(ctx, cfg)
}

// risks warns of a workspace where tern is riskier than a user would
// think: the home directory or /, which the model may then read whole
// and where tern would keep its state; one outside git, where no
// checkpoint is taken; and no HOME at all.
func (d *doctor) risks(gitErr error) {
	r, root := d.r, d.Root
	home := d.Getenv("HOME")
	switch {
	case filepath.Dir(root) == root:
		r.warn("Workspace", "it is the file system root: the model may read every file tern can; run tern in a project directory (cd there, or --dir)")
	case home != "" && sameDir(root, home):
		r.warn("Workspace", "it is your home directory: the model may read every file in it (keys, mail, other projects); run tern in a project directory (cd there, or --dir)")
	}
	switch {
	case errors.Is(gitErr, tools.ErrNoGit):
		r.warn("Undo", "off: git is not installed, so tern takes no checkpoint before the model changes files; install git for `tern undo` and /undo")
	case gitErr != nil:
		r.warn("Undo", "off: not a git repository, so tern takes no checkpoint before the model changes files; `git init && git add -A && git commit -m start` turns undo on")
	}
	if home == "" {
		r.warn("HOME", "not set: tern reads no config file of yours (%s), and git may refuse to commit; set HOME", "$XDG_CONFIG_HOME/tern/config.toml")
	}
}

// state reports where tern keeps the workspace's state, and whether it
// can write there: .tern in the workspace, or, for a read-only workspace
// (or one kept clean), tern's own directory under the user's state
// directory.
func (d *doctor) state() {
	r := d.r
	loc, err := statedir.Where(d.Root)
	switch {
	case err != nil:
		r.bad("State", "%v", err)
		r.detail("tern ask and the TUI cannot keep sessions here; set HOME (or XDG_STATE_HOME), or run tern in a writable copy")
		return
	case loc.Check() != nil:
		r.bad("State", "%v", loc.Check())
		return
	case loc.Outside:
		r.ok("State", "%s (%s)", loc.Dir, loc.Why)
	default:
		r.ok("State", "%s in the workspace, writable", statedir.Name)
	}
	if loc.Ask && !loc.Exists {
		r.detail("tern ask and the TUI ask before making %s here; without a terminal they keep it out", statedir.Name)
	}
}

// shortPath is path relative to the workspace when it is inside it.
func (d *doctor) shortPath(path string) string {
	if rel, err := filepath.Rel(d.Root, path); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return path
}

// sameDir reports whether a and b are the same directory, links resolved.
func sameDir(a, b string) bool {
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ra == rb
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

// tools reports the tool protocol a run would use, and why.
func (d *doctor) tools(ctx context.Context, cfg config.Config, info models.ModelInfo, prof models.Profile) {
	r := d.r
	proto := models.ChooseToolProtocol(cfg.ToolMode, info, prof)
	text, why := proto.Text, proto.Why
	if !text && cfg.ToolMode == models.ToolModeAuto {
		if store, err := openExisting(ctx, d.Root); err == nil && store != nil {
			// The run's own rule decides (a profile's tool_mode keeps
			// the protocol it chose).
			if fb, ok := agent.LastFallback(ctx, store, info.Name); ok && proto.Recall(cfg.ToolMode, prof, fb).Text {
				text, why = true, fmt.Sprintf("in session %s, %s", fb.Session, fb.Why)
			}
			store.Close()
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
