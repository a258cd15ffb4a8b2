package shell

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// FuzzJudge: no command line makes the judge panic or hang, and a line
// that is opaque or destructive is never allowed without asking.
func FuzzJudge(f *testing.F) {
	for _, s := range []string{
		"go test ./...", `r""m -rf .`, "$(echo rm) -rf x", "git -C . push -f", "find . -exec rm {} +",
		"bash -c 'sh -c \"rm -rf x\"'", "echo cm0= | base64 -d | sh", "xargs -I{} rm {}", "a=$((1+2)); echo ${a:-x}",
		":(){ :|:& };:", "cat <<EOF\nDROP TABLE x;\nEOF", "rm -{r,f} ./*", "$'\\x72m' -rf .", "env -i A=1 nice -n 5 ls",
		"timeout --signal=KILL 5s sudo -u x rm -r y", "f() { g; }; g() { f; }; f", "[[ -f x ]] && ls || echo no",
		"diff <(ls) >(cat)", "for i in {1..3}; do echo $i; done > out", "case $x in a) rm -r x;; esac",
	} {
		f.Add(s)
	}
	r, err := NewRules(Policy{Allow: []string{"*"}, Deny: []string{"git push*"}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, line string) {
		v := r.Judge(line)
		if v.Allowed && v.Opaque != "" {
			t.Errorf("%q: allowed although opaque: %+v", line, v)
		}
		file, err := syntax.NewParser().Parse(strings.NewReader(line), "")
		if err != nil || len(line) > MaxLength {
			return
		}
		subst := false
		syntax.Walk(file, func(n syntax.Node) bool {
			_, ok := n.(*syntax.CmdSubst)
			subst = subst || ok
			return true
		})
		if subst && v.Opaque == "" {
			t.Errorf("%q: command substitution not opaque: %+v", line, v)
		}
	})
}
