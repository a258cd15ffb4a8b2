package doctor

import (
	"testing"

	"github.com/ternhq/tern/cmd/tern/internal/cmdtest"
)

// TestNewCmd: tern doctor takes no arguments; it runs with its (empty)
// options.
func TestNewCmd(t *testing.T) {
	t.Parallel()
	cmdtest.CheckParse(t, NewCmd, []cmdtest.Case[Options]{
		{Args: nil},
		{Args: []string{"now"}, Err: `unknown command "now" for "doctor"`},
	})
}
