package main

import (
	"context"
	"slices"
	"testing"

	"github.com/ternhq/tern/disclosure"
	"github.com/ternhq/tern/tools"
)

// tierNames names the built-in tools of a tier as a session's first
// request carries them, from the one table of tiers (package tools): tier
// 0 with search_code when the repository is indexed, and request_tools
// after it; except leaves some out.
func tierNames(t *testing.T, tier int, indexed bool, except ...string) []string {
	t.Helper()
	ws, err := tools.NewWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	d := tools.Deps{Workspace: ws}
	if indexed {
		d.Search = indexedSearch{}
	}
	tiers, err := tools.Builtins(d)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tiers[tier] {
		names = append(names, tool.Spec().Name)
	}
	if tier == tools.TierRead {
		names = append(names, disclosure.RequestTools)
	}
	return slices.DeleteFunc(names, func(n string) bool { return slices.Contains(except, n) })
}

type indexedSearch struct{}

func (indexedSearch) SearchCode(context.Context, string, int, string, int) (string, string, error) {
	return "", "", nil
}
