package promptview

import (
	"context"

	"github.com/spf13/cobra"
)

// Options are tern prompt's flags.
type Options struct {
	// JSON prints the report as one JSON object.
	JSON bool
}

// NewCmd returns the tern prompt command. It hands the options it parsed
// to run, which builds the Report of the workspace's first request.
func NewCmd(run func(context.Context, *Options) error) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:   "prompt",
		Short: "Print exactly what the first request would carry, with token counts",
		Long: `Print the prefix of the first request of a new session as a Markdown report:
the system prompt as text, the tool schemas of the starting tier (--tier)
one per line, each as the JSON that is sent, then a table of the token cost
of each part, of each tier and of all tiers, counted with cl100k_base (the
model's own tokenizer differs a little). --json prints the same as one JSON
object instead.

The system prompt depends on the model's family. tern asks the model server
(Ollama, or the OpenAI-compatible server of --backend openai) for it; when
the server cannot be reached, it uses the family named by --model (or the
default template) and says so.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return run(cmd.Context(), o) },
	}
	cmd.Flags().BoolVar(&o.JSON, "json", false, "print one JSON object (system prompt, tool schemas, token counts) instead of the report")
	return cmd
}
