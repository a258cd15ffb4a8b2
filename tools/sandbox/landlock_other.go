//go:build !linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
)

// HelperFlag, as the first argument of tern's binary, makes it the
// Landlock helper, on Linux only.
const HelperFlag = "--tern-sandbox"

// RunHelper fails: Landlock is Linux's.
func RunHelper(args []string) int {
	fmt.Fprintln(os.Stderr, "tern sandbox: Landlock runs on Linux only")
	return 125
}

func (s *Sandbox) useLandlock() error { return errors.New("Landlock runs on Linux only") }

func (s *Sandbox) landlockCommand(argv []string) ([]string, error) {
	return nil, errors.New("Landlock runs on Linux only")
}

func (s *Sandbox) landlockGaps() []string { return nil }
