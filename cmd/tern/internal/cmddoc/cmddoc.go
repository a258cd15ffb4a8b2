// Package cmddoc writes the command reference, docs/commands.md, from the
// cobra commands themselves: their usage lines, help texts and flags, so
// that the page and `tern CMD --help` never disagree.
//
// cobra's own doc package writes a file per command, each repeating every
// inherited flag; one page with the common flags once reads better and
// is what this writes. It imports only cobra and pflag.
package cmddoc

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Write writes the reference for root and every command under it that a
// user can run: a list of the commands, a section per command, then the
// flags every command takes.
func Write(w io.Writer, root *cobra.Command, intro string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Commands\n\n<!-- generated from the cobra commands by `go generate ./cmd/tern`; do not edit -->\n\n%s\n\n", strings.TrimSpace(intro))
	cmds := commands(root)
	b.WriteString("| command | what it does |\n|---|---|\n")
	for _, c := range cmds {
		fmt.Fprintf(&b, "| [`%s`](#%s) | %s |\n", c.CommandPath(), anchor(c.CommandPath()), cell(c.Short))
	}
	b.WriteString("\n")
	for _, c := range cmds {
		section(&b, c)
	}
	fmt.Fprintf(&b, "## Flags of every command\n\n")
	flagTable(&b, root.PersistentFlags())
	_, err := io.WriteString(w, b.String())
	return err
}

// commands lists root and its runnable descendants, depth first in
// cobra's (alphabetical) order; help and hidden commands are left out.
func commands(root *cobra.Command) []*cobra.Command {
	var out []*cobra.Command
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Hidden || c.Name() == "help" || c.Deprecated != "" {
			return
		}
		out = append(out, c)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	return out
}

// section writes one command: its usage line, its help, its examples and
// the flags it adds to the common ones.
func section(b *strings.Builder, c *cobra.Command) {
	fmt.Fprintf(b, "## %s\n\n", c.CommandPath())
	if c.Runnable() {
		fmt.Fprintf(b, "```\n%s\n```\n\n", c.UseLine())
	}
	text := c.Long
	if text == "" {
		text = c.Short
	}
	b.WriteString(prose(text))
	if c.Example != "" {
		fmt.Fprintf(b, "Examples:\n\n```sh\n%s\n```\n\n", strings.Trim(c.Example, "\n"))
	}
	flags := c.LocalFlags()
	if !c.HasParent() {
		flags = c.LocalNonPersistentFlags()
	}
	if hasVisible(flags) {
		flagTable(b, flags)
	}
}

// prose turns a help text into Markdown: paragraphs and "- " lists (their
// continuation lines indented) as they are, other lines indented by two
// spaces or more (cobra's convention for an example or a listing) into a
// code block.
func prose(text string) string {
	var b strings.Builder
	inBlock, inList := false, false
	for _, l := range strings.Split(strings.Trim(text, "\n"), "\n") {
		blank := strings.TrimSpace(l) == ""
		indented := strings.HasPrefix(l, "  ")
		switch {
		case strings.HasPrefix(l, "- "):
			inList = true
		case inList && indented:
		case blank:
			inList = false
		case indented && !inBlock:
			if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n\n") {
				b.WriteString("\n")
			}
			b.WriteString("```\n")
			inBlock = true
		case !indented && inBlock:
			b.WriteString("```\n\n")
			inBlock = false
		}
		switch {
		case inBlock && blank:
		case inBlock:
			b.WriteString(strings.TrimPrefix(l, "  ") + "\n")
		default:
			b.WriteString(l + "\n")
		}
	}
	if inBlock {
		b.WriteString("```\n")
	}
	return strings.TrimRight(b.String(), "\n") + "\n\n"
}

// flagTable writes one row per visible flag: its spelling with the kind of
// value it takes, and its usage text with its default when it has one.
func flagTable(b *strings.Builder, flags *pflag.FlagSet) {
	b.WriteString("| flag | meaning |\n|---|---|\n")
	flags.VisitAll(func(f *pflag.Flag) {
		if f.Hidden || f.Name == "help" {
			return
		}
		name, usage := pflag.UnquoteUsage(f)
		spelling := "--" + f.Name
		if f.Shorthand != "" {
			spelling = "-" + f.Shorthand + ", " + spelling
		}
		if name != "" {
			spelling += " " + name
		}
		if def := defaultText(f); def != "" {
			usage += " (default " + def + ")"
		}
		fmt.Fprintf(b, "| `%s` | %s |\n", spelling, cell(usage))
	})
	b.WriteString("\n")
}

// defaultText is a flag's default as a user would type it, or empty for
// the zero value of its type.
func defaultText(f *pflag.Flag) string {
	switch f.DefValue {
	case "", "false", "0", "[]", "0s":
		return ""
	}
	return "`" + f.DefValue + "`"
}

func hasVisible(flags *pflag.FlagSet) bool {
	found := false
	flags.VisitAll(func(f *pflag.Flag) { found = found || !f.Hidden && f.Name != "help" })
	return found
}

// anchor is the fragment GitHub gives the heading text.
func anchor(heading string) string {
	return strings.ReplaceAll(strings.ToLower(heading), " ", "-")
}

// cell makes text fit a Markdown table cell.
func cell(s string) string {
	return strings.ReplaceAll(strings.Join(strings.Fields(s), " "), "|", `\|`)
}
