package rag

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/ternhq/tern/index"
)

const (
	// mapSymbolsPerFile caps how many declarations a file shows.
	mapSymbolsPerFile = 6
	// mapSigLen caps a signature's length in bytes.
	mapSigLen = 100
)

// RepoMap draws the repository for orientation: files, most referenced
// first, each with its most referenced declarations, within budget
// tokens. A symbol's weight is the number of other files that mention its
// name, shared among the files that define a symbol of that name.
func RepoMap(ctx context.Context, ix *index.Index, budget int, counter Counter) (string, error) {
	syms, err := ix.Symbols(ctx)
	if err != nil {
		return "", err
	}
	type def struct {
		sym   index.Symbol
		name  string
		score float64
	}
	defs := make([]def, 0, len(syms))
	definers := map[string]map[string]bool{} // name → files defining it
	for _, s := range syms {
		name := lastName(s.Name)
		if name == "" {
			continue
		}
		defs = append(defs, def{sym: s, name: name})
		if definers[name] == nil {
			definers[name] = map[string]bool{}
		}
		definers[name][s.Path] = true
	}
	refs := map[string]int{}
	err = ix.Identifiers(ctx, func(path, idents string) {
		for idents != "" {
			var id string
			id, idents, _ = strings.Cut(idents, " ")
			if files, ok := definers[id]; ok && !files[path] {
				refs[id]++
			}
		}
	})
	if err != nil {
		return "", err
	}

	type file struct {
		path  string
		defs  []def
		score float64
	}
	var files []*file
	byPath := map[string]*file{}
	for _, d := range defs {
		d.score = float64(refs[d.name]) / float64(len(definers[d.name]))
		f := byPath[d.sym.Path]
		if f == nil {
			f = &file{path: d.sym.Path}
			byPath[d.sym.Path] = f
			files = append(files, f)
		}
		f.defs = append(f.defs, d)
		f.score += d.score
	}
	slices.SortStableFunc(files, func(a, b *file) int { return cmp.Compare(b.score, a.score) })

	var b strings.Builder
	used, misses := 0, 0
	for _, f := range files {
		if budget-used < 8 || misses > 50 {
			break
		}
		slices.SortStableFunc(f.defs, func(a, b def) int { return cmp.Compare(b.score, a.score) })
		shown := f.defs[:min(len(f.defs), mapSymbolsPerFile)]
		slices.SortFunc(shown, func(a, b def) int { return cmp.Compare(a.sym.Line, b.sym.Line) })
		block := f.path + "\n"
		for _, d := range shown {
			block += "  " + clip(d.sym.Sig, mapSigLen) + "\n"
		}
		if more := len(f.defs) - len(shown); more > 0 {
			block += fmt.Sprintf("  … %d more\n", more)
		}
		if n := counter.Count(block); used+n <= budget {
			b.WriteString(block)
			used += n
			misses = 0
		} else {
			misses++
		}
	}
	out := b.String()
	for out != "" && counter.Count(out) > budget { // counts are not quite additive
		out = dropLastFile(out)
	}
	return out, nil
}

// dropLastFile removes the last file block of a map.
func dropLastFile(m string) string {
	lines := strings.SplitAfter(strings.TrimSuffix(m, "\n"), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if !strings.HasPrefix(lines[i], "  ") {
			return strings.Join(lines[:i], "")
		}
	}
	return ""
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}
