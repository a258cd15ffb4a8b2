package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/spf13/cobra"

	"github.com/ternhq/tern/cmd/tern/internal/backend"
	"github.com/ternhq/tern/cmd/tern/internal/complete"
	"github.com/ternhq/tern/cmd/tern/internal/config"
	"github.com/ternhq/tern/cmd/tern/internal/headless"
	"github.com/ternhq/tern/cmd/tern/internal/versioncmd"
	"github.com/ternhq/tern/cmd/tern/internal/words"
	"github.com/ternhq/tern/termtext"
)

// Exit codes.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
	// A turn of tern ask that ran but did not get its work done:
	exitDenied   = 3   // the model's changes were refused (no --yes)
	exitMaxTurns = 4   // the turn stopped at --max-turns
	exitStuck    = 5   // the turn stopped because the model kept looping
	exitCanceled = 130 // as a shell reports a command stopped by SIGINT
)

// app is one invocation of tern: its streams, environment and flags.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	// rawStdout and rawStderr are the writers beneath stdout and stderr,
	// which clean what tern prints (termtext): for terminal checks and
	// the progress bars.
	rawStdout, rawStderr io.Writer
	getenv               func(string) string

	globalOptions

	cmd *cobra.Command // the root, for Changed checks
	// screen, when set, is where the TUI draws instead of the terminal;
	// retryEvery, when set, is how often it tries to reach the model
	// while it is offline (tests; the TUI's default is 5s); keyGrace,
	// when set, is how long a dialog that opened by itself holds keys
	// back (tests; the TUI's default is 500ms).
	screen     tcell.Screen
	retryEvery time.Duration
	keyGrace   time.Duration
	// parsed, when set, is handed each command's options in place of
	// running the command: tests check how flags parse with it.
	parsed func(opts any) error
}

// globalOptions are the flags common to every command.
type globalOptions struct {
	dir       string
	model     string
	host      string
	ctxTokens int
	vram      float64
	ram       float64
	tier      int
	maxTier   int
	yes       bool
	yolo      bool
	maxTurns  int
	allowRead []string
	toolMode  string
	backend   string
	verbose   bool
}

// runCommand runs a command's run function with its options, or hands
// the options to a.parsed when a test only parses the command line.
func runCommand[O any](ctx context.Context, a *app, o *O, run func(context.Context, *O) error) error {
	if a.parsed != nil {
		return a.parsed(o)
	}
	return run(ctx, o)
}

// exitError carries an exit code through cobra.
type exitCodeError struct {
	code int
	err  error
}

func (e exitCodeError) Error() string { return e.err.Error() }
func (e exitCodeError) Unwrap() error { return e.err }

// Main runs tern with args and returns the process exit code. Tests call it
// directly; main calls it with the real process streams.
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	// Everything tern prints may carry text it did not write (the model's,
	// a server's, a repository's), so its control sequences are made
	// visible on the way out; only the index's progress bars, tern's own,
	// draw on the terminal as they are.
	a := &app{stdin: stdin, stdout: termtext.NewWriter(stdout), stderr: termtext.NewWriter(stderr),
		rawStdout: stdout, rawStderr: stderr, getenv: getenv}
	stdout, stderr = a.stdout, a.stderr
	root := a.rootCommand()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	addCompletion(root)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return exitOK
	}
	// A usage error points at the help of the command it was made in, as
	// cobra's own message does: tern ask --help lists ask's flags.
	helpHint := "Run 'tern --help' for usage."
	if cmd != nil {
		helpHint = fmt.Sprintf("Run '%s --help' for usage.", cmd.CommandPath())
	}
	var ec exitCodeError
	switch {
	case errors.As(err, &ec) && ec.err == nil:
		return ec.code
	case errors.As(err, &ec) && ec.code == exitUsage:
		fmt.Fprintf(stderr, "tern: %v\n%s\n", ec.err, helpHint)
		return ec.code
	case errors.As(err, &ec):
		fmt.Fprintf(stderr, "tern: %v\n", ec.err)
		return ec.code
	case errors.Is(err, context.Canceled):
		fmt.Fprintln(stderr, "tern: cancelled")
		return exitCanceled
	case isUsage(err):
		// cobra's own words: "requires at least 1 arg(s)".
		msg := argCount.ReplaceAllStringFunc(err.Error(), func(m string) string {
			n, _ := strconv.Atoi(argCount.FindStringSubmatch(m)[1])
			return words.Count(n, "argument")
		})
		if m := extraArg.FindStringSubmatch(msg); m != nil {
			// A command that takes no arguments: cobra calls one an
			// unknown command.
			msg = fmt.Sprintf("%s takes no arguments, not %s", strings.TrimPrefix(m[2], "tern "), m[1])
		} else if strings.HasPrefix(msg, "unknown command") && !strings.Contains(msg, "Did you mean") {
			// `tern "fix the bug"`: the TUI takes no prompt.
			msg += "\nTo ask without the TUI: tern ask \"PROMPT\"; the TUI (tern) takes no arguments."
		}
		fmt.Fprintf(stderr, "tern: %s\n%s\n", msg, helpHint)
		return exitUsage
	}
	fmt.Fprintf(stderr, "tern: %v\n", err)
	return exitError
}

// argCount is how cobra counts arguments in its errors; extraArg is its
// error for an argument to a command that takes none.
var (
	argCount = regexp.MustCompile(`(\d+) arg\(s\)`)
	extraArg = regexp.MustCompile(`^unknown command ("[^"]*") for "(tern \S.*)"$`)
)

// isUsage tells cobra's flag and argument errors apart from failures.
func isUsage(err error) bool {
	msg := err.Error()
	for _, s := range []string{"unknown command", "unknown flag", "unknown shorthand", "flag needs an argument", "invalid argument", "accepts ", "requires at least", "requires exactly"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// tuiOptions are the flags of tern itself, which opens the TUI.
type tuiOptions struct {
	resume string
	// cont continues the workspace's latest session (-c).
	cont bool
	// rag turns RAG on at the start; plan starts in plan mode.
	rag, plan bool
}

func (a *app) rootCommand() *cobra.Command {
	o := &tuiOptions{}
	root := &cobra.Command{
		Use:   "tern",
		Short: "A terminal coding agent for small local models",
		Long: `tern works a repository with a small local model served by Ollama: it reads,
searches and edits code and runs commands, keeping every prompt inside the
few thousand tokens such a model can really use.

Without a command, tern opens its terminal UI in the current repository (it
needs a terminal): --resume ID continues a session there, --rag starts with
RAG on, --plan starts in plan mode.

Run 'tern doctor' first to check Ollama, the model and the context plan.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		// No Args check: cobra's own check of the root's arguments names
		// the nearest command ("did you mean this?").
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			return a.checkFlags(cmd)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCommand(cmd.Context(), a, o, a.openTUI)
		},
	}
	root.Flags().StringVar(&o.resume, "resume", "", "continue the session with this ID (or unique prefix) in the TUI")
	root.Flags().BoolVarP(&o.cont, "continue", "c", false, "continue the latest session of this workspace with a conversation in the TUI (a new one when there is none)")
	root.Flags().BoolVar(&o.rag, "rag", false, headless.RAGUsage)
	root.Flags().BoolVar(&o.plan, "plan", false, "start in plan mode: the model only reads, then proposes a plan you accept or send back (Shift+Tab toggles it)")
	a.cmd = root
	f := root.PersistentFlags()
	f.StringVar(&a.dir, "dir", "", "workspace root (default: the git root above the current directory, else the current directory)")
	f.StringVar(&a.model, "model", "", "Ollama model to use (default: $TERN_MODEL, the config's model, else the best installed model with tool support)")
	f.StringVar(&a.host, "host", "", "server address: Ollama's (default: $OLLAMA_HOST, else 127.0.0.1:11434) or an OpenAI-compatible server's")
	f.StringVar(&a.backend, "backend", "", "model server: ollama, openai (llama-server, LM Studio, vLLM) or auto (default: the config's backend, else auto)")
	f.IntVar(&a.ctxTokens, "ctx", 0, "context window in tokens (default: the largest that fits in --vram)")
	f.Float64Var(&a.vram, "vram", 0, "GPU memory in GiB to plan the context window for (default 8, or what nvidia-smi reports)")
	f.Float64Var(&a.ram, "ram", 0, "free system RAM in GiB for a mixture of experts' experts off the GPU (default: what the system reports available)")
	f.IntVar(&a.tier, "tier", 0, "tool tier to start at: 0 read, 1 edit, 2 commands, 3 external")
	f.IntVar(&a.maxTier, "max-tier", 3, "highest tool tier the session may unlock (0 makes it read-only)")
	f.BoolVar(&a.yes, "yes", false, "allow writes and commands without asking (destructive commands are still refused)")
	f.BoolVar(&a.yolo, "yolo", false, "allow everything without asking, destructive commands too (implies --yes)")
	f.IntVar(&a.maxTurns, "max-turns", 0, "most model requests per prompt (default 25)")
	f.StringSliceVar(&a.allowRead, "allow-read", nil, "also allow reading this directory outside the workspace (repeatable)")
	f.StringVar(&a.toolMode, "tool-mode", "", "how tools reach the model: auto, native, text or constrained (text with replies held to a JSON schema)")
	f.BoolVarP(&a.verbose, "verbose", "v", false, "log details to stderr")

	root.SetFlagErrorFunc(flagSuggestion)
	root.Version = versioncmd.String()
	// Defined here, not left to cobra, so that arguments after it parse
	// (cobra adds its own too late for `tern --version --dir X`).
	root.Flags().Bool("version", false, "print tern's version and exit")
	root.SetVersionTemplate("tern {{.Version}}\n")
	root.AddCommand(a.askCommand(), a.doctorCommand(), a.sessionsCommand(), a.promptCommand(), a.undoCommand(), a.evalCommand(),
		a.indexCommand(), a.searchCommand(), a.versionCommand(), a.diffCommand(), a.acpCommand(), a.mcpCommand())
	complete.Register(root, a.completionSources())
	return root
}

// addCompletion adds cobra's completion command to root, once its output
// is set (cobra's scripts go to the writer it had when added), refusing a
// shell it has no script for: the command runs nothing itself, so
// `tern completion nosh` printed its help and exited 0, as if that were a
// script.
func addCompletion(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	c, _, err := root.Find([]string{"completion"})
	if err != nil || c == root {
		return
	}
	c.Args = cobra.ArbitraryArgs
	c.SuggestionsMinimumDistance = 2
	c.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return cmd.Help()
		}
		msg := fmt.Sprintf("no completion script for %q: tern completion bash, zsh, fish or powershell", args[0])
		if near := cmd.SuggestionsFor(args[0]); len(near) > 0 {
			msg += "; did you mean " + near[0] + "?"
		}
		return exitCodeError{exitUsage, errors.New(msg)}
	}
}

// workspaceRoot finds the directory tern works in: --dir, else the nearest
// directory above the current one that holds .git, else the current one.
func (a *app) workspaceRoot() (string, error) {
	dir := a.dir
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("find the current directory: %w", err)
		}
		dir = wd
		for d := wd; ; d = filepath.Dir(d) {
			if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
				dir = d
				break
			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("workspace %s: %w", dir, err)
	}
	st, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("workspace: %w", err)
	}
	if !st.IsDir() {
		return "", fmt.Errorf("workspace %s is not a directory", abs)
	}
	return abs, nil
}

// config loads the config files and applies the environment and flags.
func (a *app) config(root string) (config.Config, error) {
	cfg, _, err := config.Load(root, a.getenv)
	if err != nil {
		return cfg, err
	}
	return a.overrideConfig(cfg)
}

// overrideConfig applies the environment and the flags to cfg, made from
// the config files, and says what of the project's file was ignored.
// Each source is validated once, where it is read: the files by
// config.Load, the flags by checkFlags; config.WithFlags checks what
// only their combination can break.
func (a *app) overrideConfig(cfg config.Config) (config.Config, error) {
	for _, n := range cfg.Notices() {
		fmt.Fprintln(a.stderr, "tern: "+n)
	}
	cfg.ApplyEnv(a.getenv)
	return cfg.WithFlags(a.flags())
}

// vramBytes is the GPU memory a run plans for: --vram or the config's,
// else what nvidia-smi reports, else 8 GiB (backend.VRAM).
func (a *app) vramBytes(ctx context.Context, cfg config.Config) int64 {
	return backend.VRAM(ctx, cfg, a.cmd.PersistentFlags().Changed("vram"))
}

// interruptible returns a context cancelled by the first SIGINT, SIGTERM
// or SIGHUP (a closed terminal): the turn stops and the running command
// with everything it started is stopped before tern exits. A second
// signal is left to its default action, so a stuck process can still be
// killed with Ctrl+C.
func interruptible(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		select {
		case <-sig:
			signal.Stop(sig)
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, func() {
		signal.Stop(sig)
		cancel()
	}
}
