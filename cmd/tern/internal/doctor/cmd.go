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
		Long: `Check everything a turn depends on, and say what to do about each problem:

- the config files read: one that does not parse, has unknown keys (near
  misses with the key meant), values of the wrong type or out of range is a
  failed check listing every problem, and the other checks go on without it;
- the server: is it reachable and which version (one that takes the
  connection and never answers is cut off after stream.contact_timeout);
  with an OpenAI-compatible server, what it says it is (llama-server's
  build, vLLM, LM Studio), its models, whether it takes native tools and
  reports usage;
- the installed models with size, family and capabilities, the model tern
  would use and why (one that cannot chat, such as an embedding model,
  fails the check);
- its trained context, the Modelfile's num_ctx, and the context window tern
  will use with the VRAM arithmetic behind it (a warning when the VRAM is
  assumed, not measured);
- the tool mode, the embedding model;
- the workspace, with a warning (!) for one that is your home directory or
  /, one outside git (no checkpoints: undo is off) and HOME unset; where
  tern keeps its state (.tern, or under ~/.local/state/tern for a read-only
  workspace) and whether it can write there;
- the sandbox that confines commands (bubblewrap or Landlock, on Linux),
  proved by a confined write outside the workspace that must fail, with
  what it does not enforce; "none" with how to get one, a failed check
  when [sandbox] required is set;
- MCP servers with their tools and token cost;
- the search index: files, chunks, embeddings and their model, last
  update, or "not built"; whether embed_model matches the index's, and
  whether an older tern made it.

Exits 1 when a turn could not run as configured or a configured MCP server
does not start.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return run(cmd.Context(), o)
		},
	}
}
