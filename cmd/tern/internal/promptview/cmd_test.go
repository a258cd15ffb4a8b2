package promptview

import (
	"testing"

	"github.com/ternhq/tern/cmd/tern/internal/cmdtest"
)

func TestFlags(t *testing.T) {
	t.Parallel()
	cmdtest.CheckParse(t, NewCmd, []cmdtest.Case[Options]{
		{Args: nil},
		{Args: []string{"--json"}, Want: Options{JSON: true}},
		{Args: []string{"extra"}, Err: `unknown command "extra" for "prompt"`},
	})
}
