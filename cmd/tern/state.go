package main

import (
	"bufio"
	"fmt"
	"strings"

	"github.com/ternhq/tern/statedir"
)

// prepareState settles where the workspace's state goes before a
// session opens it (statedir.Where). In the user's home directory or /,
// it asks first, when there is a terminal to ask on, whether to make
// .tern there; without one, or on "no", the state goes to tern's own
// directory. When the state goes outside the workspace for the first
// time (a read-only workspace, or one kept clean), the notice it returns
// says where, once: later runs find the directory and say nothing
// (tern doctor shows it).
func (a *app) prepareState(root string, interactive bool) (notice string, err error) {
	loc, err := statedir.Where(root)
	if err != nil {
		return "", fmt.Errorf("cannot keep tern's state: %w", err)
	}
	if !loc.Outside || loc.Exists {
		return "", nil
	}
	why := loc.Why
	switch {
	case loc.Ask && interactive:
		fmt.Fprintf(a.stderr, "tern: %s is %s. Make %s there for tern's sessions and index? [y/N] (no keeps them in %s) ",
			root, strings.TrimPrefix(loc.Why, "the workspace is "), statedir.Name, loc.Dir)
		line, _ := bufio.NewReader(a.stdin).ReadString('\n')
		if answer := strings.ToLower(strings.TrimSpace(line)); answer == "y" || answer == "yes" {
			_, err := statedir.MakeIn(root)
			return "", err
		}
		why = "you kept " + statedir.Name + " out of " + strings.TrimPrefix(loc.Why, "the workspace is ")
		_, err = statedir.KeepOut(root, why)
	case loc.Ask:
		why += ", where tern makes no " + statedir.Name + " unasked"
		_, err = statedir.KeepOut(root, why)
	default:
		_, err = statedir.Dir(root)
	}
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s: tern keeps this workspace's sessions and index in %s (said once; `tern doctor` shows where)", why, loc.Dir), nil
}

// sayState settles where the workspace's state goes (prepareState) and
// says so on stderr when it is the first time outside the workspace.
func (a *app) sayState(root string, interactive bool) error {
	note, err := a.prepareState(root, interactive)
	if note != "" {
		fmt.Fprintln(a.stderr, "tern: "+note)
	}
	return err
}
