// Package acpcmd is the `tern acp` command, in the cli/cli manner:
// Options (its flags), NewCmd (the cobra command, handing the parsed
// Options to the run it is given) and Places (where the editor may open
// sessions). Package main wires the sessions (package acp, the runner).
//
// acpcmd imports nothing of tern.
package acpcmd

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ternhq/tern/tools"
)

// Options are tern acp's flags.
type Options struct {
	// Roots are the directories sessions may work in (--root); none
	// means the workspace tern was started in and the home directory.
	Roots []string
}

// NewCmd returns the tern acp command. It hands the options it parsed to
// run.
func NewCmd(run func(*cobra.Command, *Options) error) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:   "acp",
		Short: "Run as an Agent Client Protocol agent for an editor (Zed, JetBrains, Neovim, VS Code)",
		Long: `tern acp speaks the Agent Client Protocol (JSON-RPC 2.0) on stdin and stdout,
so that an editor can run tern as its agent. The editor starts it; you do not
run it by hand. Each session works in the directory the editor names (its
project), with the same turn, tools, tiers and approvals as tern ask and the
TUI: the tiers and plan mode are the editor's modes, approvals are its
permission prompts, and when the editor offers them, file reads and edits go
through its buffers (unsaved changes included, edits undoable there) and
commands run in its terminal. Sessions are stored in the workspace's .tern/
as usual; the editor can list and reopen them.

A session may only open in a directory under one of the --root directories,
by default the workspace tern acp was started in and your home directory.
--yes and --yolo approve without asking, as in tern ask. Logs go to stderr
(the editor's log panel); -v adds detail.

See docs/editors.md for each editor's settings.`,
		Example: `  # Zed, settings.json:
  #   "agent_servers": { "tern": { "command": "tern", "args": ["acp"] } }
  tern acp --model qwen3:8b
  tern acp --root ~/src --root /work`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return run(cmd, o)
		},
	}
	cmd.Flags().StringArrayVar(&o.Roots, "root", nil, "a directory sessions may work in, with everything below it (repeatable; default: the workspace and your home directory)")
	return cmd
}

// Places are the directories sessions may work in, absolute and with
// their symbolic links resolved.
type Places struct{ roots []string }

// NewPlaces resolves roots; each must be an existing directory.
func NewPlaces(roots []string) (Places, error) {
	var p Places
	for _, r := range roots {
		if r == "" {
			continue
		}
		real, err := tools.RealDir(r)
		if err != nil {
			return Places{}, fmt.Errorf("--root %s: %w", r, err)
		}
		p.roots = append(p.roots, real)
	}
	if len(p.roots) == 0 {
		return Places{}, errors.New("no directory to work in")
	}
	return p, nil
}

// Check says whether a session may work in dir: an absolute path to an
// existing directory inside one of the places (symbolic links resolved,
// so none leads out).
func (p Places) Check(dir string) error {
	if !filepath.IsAbs(dir) {
		return fmt.Errorf("cwd %q is not an absolute path", dir)
	}
	real, err := tools.RealDir(dir)
	if err != nil {
		return fmt.Errorf("cwd %s: %w", dir, err)
	}
	for _, r := range p.roots {
		if tools.Within(r, real) {
			return nil
		}
	}
	return fmt.Errorf("cwd %s is outside the directories tern acp may work in (%s); start it with --root DIR to allow another",
		dir, strings.Join(p.roots, ", "))
}
