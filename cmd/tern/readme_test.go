package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// TestREADMECoversEverything keeps README true: every command and every
// flag of every command is documented, and every file it points to
// exists. (Config keys: config's TestREADMEDocumentsEveryKey.)
func TestREADMECoversEverything(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	a := &app{getenv: func(string) string { return "" }}
	root := a.rootCommand()
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Hidden || c.Name() == "help" {
			return
		}
		path := c.CommandPath()
		if c.HasParent() && c.Parent().Name() != "completion" && !strings.Contains(readme, "`"+path) {
			t.Errorf("README does not document %q", path)
		}
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if f.Hidden || f.Name == "help" || c.Parent() != nil && c.Parent().Name() == "completion" { // cobra's own
				return
			}
			if !strings.Contains(readme, "--"+f.Name) {
				t.Errorf("README does not document %s --%s", path, f.Name)
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)

	// Files README names must be in the repository.
	for _, m := range regexp.MustCompile(`\b([A-Z][A-Z_]*\.md)\b|\]\((\.?[\w./-]+)\)`).FindAllStringSubmatch(readme, -1) {
		name := m[1] + m[2]
		if strings.HasPrefix(name, "#") || name == "AGENTS.md" || name == "TERN.md" { // the user's repository's notes
			continue
		}
		if _, err := os.Stat(filepath.Join("..", "..", name)); err != nil {
			t.Errorf("README points to %s, which is not in the repository", name)
		}
	}
}
