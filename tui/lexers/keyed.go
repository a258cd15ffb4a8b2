//go:build ignore

// keyed adds field names to the struct literals go vet reports as
// unkeyed in chroma's copied lexers (chroma writes Rule{pattern, type,
// mutator} and Token{type, value}); update.sh feeds it vet's report.
package main

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"strconv"
)

var fields = map[string][]string{
	"Rule":  {"Pattern", "Type", "Mutator"},
	"Token": {"Type", "Value"},
}

var report = regexp.MustCompile(`^(\S+\.go):(\d+):(\d+): github\.com/alecthomas/chroma/v2\.(\w+) struct literal uses unkeyed fields`)

func main() {
	type pos struct{ line, col int }
	todo := map[string]map[pos]string{}
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		m := report.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		line, _ := strconv.Atoi(m[2])
		col, _ := strconv.Atoi(m[3])
		if todo[m[1]] == nil {
			todo[m[1]] = map[pos]string{}
		}
		todo[m[1]][pos{line, col}] = m[4]
	}
	for file, lits := range todo {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, file, nil, parser.ParseComments)
		if err != nil {
			fail(err)
		}
		done := 0
		ast.Inspect(f, func(n ast.Node) bool {
			cl, ok := n.(*ast.CompositeLit)
			if !ok {
				return true
			}
			p := fset.Position(cl.Pos())
			typ, ok := lits[pos{p.Line, p.Column}]
			if !ok {
				return true
			}
			names := fields[typ]
			if len(cl.Elts) > len(names) {
				fail(fmt.Errorf("%s: %d fields in a %s", p, len(cl.Elts), typ))
			}
			for i, e := range cl.Elts {
				cl.Elts[i] = &ast.KeyValueExpr{Key: ast.NewIdent(names[i]), Value: e}
			}
			done++
			return true
		})
		if done != len(lits) {
			fail(fmt.Errorf("%s: keyed %d of %d literals", file, done, len(lits)))
		}
		out, err := os.Create(file)
		if err != nil {
			fail(err)
		}
		if err := format.Node(out, fset, f); err != nil {
			fail(err)
		}
		out.Close()
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "keyed:", err)
	os.Exit(1)
}
