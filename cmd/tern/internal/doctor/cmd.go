package doctor

import (
	"context"

	"github.com/spf13/cobra"
)

// Options are tern doctor's own arguments and flags: it has none. The
// common flags (--model, --host, --vram, --yes, …) reach it through Env.
type Options struct{}

// NewCmd returns the tern doctor command, in the cli/cli manner: it hands
// its options to run, so that tests parse command lines without running
// anything.
func NewCmd(run func(context.Context, *Options) error) *cobra.Command {
	o := &Options{}
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
			return run(cmd.Context(), o)
		},
	}
}
