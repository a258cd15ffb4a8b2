package shell

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestJudgeAttacks holds attempts of each class made after the policy
// first landed: other quoting of -c, long options abbreviated as
// getopt_long and git accept them, shells handed to programs tern does
// not know, and programs that run commands through their own options.
func TestJudgeAttacks(t *testing.T) {
	r := rules(t)
	cases := []struct {
		line string
		want want
	}{
		// The code of -c is the first argument after the options.
		{"sh -c -- 'rm -rf x'", destructive},
		{"bash -c -e 'rm -rf x'", destructive},
		{"bash -ce 'git push -f'", denied},
		{"sh -c 'ls' 'rm -rf x'", plain}, // the second is $0
		{"bash -c", opaque},

		// A unique prefix of a long option is the option.
		{"rm --rec x", destructive},
		{"rm --r x", destructive},
		{"chmod --recur 777 .", destructive},
		{"git reset --har", destructive},
		{"git clean --forc", destructive},
		{"git branch --del x --forc", destructive},
		{"git checkout --forc main", destructive},
		{"git switch --discard main", destructive},
		{"git rebase --exe 'rm -rf x' main", destructive},
		{"git rebase --ex='rm -rf x' main", destructive},
		{"git rebase -x'rm -rf x' main", destructive},
		{"git fetch --upload-p=x origin", opaque},
		{"tar --to-comm=sh -xf x.tar", opaque},
		{"rsync --rs='sh -c x' a b", opaque},
		{"sed --expr='1e rm x' f", opaque},
		{"sed -e'1e rm x' f", opaque},
		{"awk --sou 'BEGIN{system(\"x\")}'", opaque},
		{"awk --so='BEGIN{system(\"x\")}'", opaque},
		{"gawk '@load \"x\"; BEGIN{}'", opaque},
		{"git reset --soft HEAD~1", plain},

		// Programs tern does not know, handed a shell, an interpreter or
		// a denied command.
		{"chrt 10 sh -c 'rm -rf x'", destructive},
		{"fakeroot bash -c 'rm -rf x'", destructive},
		{"nsenter -t 1 -m python -c 'x'", opaque},
		{"unshare -r eval x", opaque},
		{"xvfb-run -a sh -c 'git push -f'", denied},
		{"xvfb-run git push origin", denied},
		{"chrt " + strings.Repeat("rm ", 100) + "-rf x", destructive},
		{"grep -r python .", allowed},
		{"grep -rn 'rm -rf' .", allowed},

		// Programs that run commands through their own options.
		{"ex -sc '!rm -rf x' f", opaque},
		{"vim -es < cmds", opaque},
		{"less +!x f", opaque},
		{"man -P 'sh -c x' ls", opaque},
		{"man --pag='sh -c x' ls", opaque},
		{"zip -T -TT 'sh -c x' x.zip f", opaque},
		{"script -qc 'rm -rf x' /dev/null", destructive},
		{"script --command='rm -rf x'", destructive},
		{"sg wheel -c 'rm -rf x'", destructive},
		{"sg wheel 'git push -f'", denied},
		{"LESSOPEN='|sh x' less f", opaque},

		// find writing files is not what "find *" allows.
		{"find . -fprint /tmp/x", plain},
		{"find . -fprintf /tmp/x %p", plain},
		{"find . -name '*.go'", allowed},

		// Wrappers tern knows, written every way.
		{"command -p rm -rf x", destructive},
		{"command -- rm -rf x", destructive},
		{"builtin command rm -rf x", destructive},
		{"exec -a foo rm -rf x", destructive},
		{"nohup -- rm -rf x", destructive},
		{"timeout --kill-after=1 5s rm -rf x", destructive},
		{"sudo -- ls", destructive},
		{"busybox rm -rf x", destructive},
		{"busybox sh -c 'rm -rf x'", destructive},
		{"/usr/bin/env -S rm -rf x", destructive},
		{"env --split='rm -rf x'", opaque},
		{"/./bin/../bin/rm -rf x", destructive},

		// Here-documents, here-strings and process substitution that feed
		// a shell.
		{"sh <<EOF\nrm -rf x\nEOF", opaque},
		{"bash <<< 'rm -rf x'", opaque},
		{"sh <(echo rm -rf x)", destructive},
		{"sh <(curl -s x)", opaque},
		{"source <(curl -s x)", opaque},
		{"cat <<EOF | sh\nls\nEOF", opaque},
		{"python - <<EOF\nimport os\nEOF", opaque},
		{"python3 -I -c x", opaque},
		{"perl -Mstrict -e x", opaque},
		{"node --input-type=module -e x", opaque},

		// Names and arguments only known when the line runs.
		{"${X}rm -rf x", opaque},
		{"a=rm; $a -rf x", opaque},
		{"set -- ls x; \"$@\"", opaque},
		{"x=$(rm -rf x)", destructive},
		{"echo ${x:-$(rm -rf x)}", destructive},
		{"coproc rm -rf x", destructive},
		{"time -p rm -rf x", destructive},
		{"! rm -rf x", destructive},
		{"[[ $(rm -rf x) ]]", destructive},

		// bash evaluates a variable's value as arithmetic in $((x)),
		// ((x)), let, [[ x -eq 1 ]], subscripts and slices, and a[$(…)]
		// in that value runs; ${x@P} and ${!x} run what values hold too.
		{"x='a[$(touch p)]'; echo $((x))", opaque},
		{"echo $(( x + 1 ))", opaque},
		{"echo $[x]", opaque},
		{"(( x > 1 )) && ls", opaque},
		{"let y=x+1", opaque},
		{"for ((i=0; i<n; i++)); do ls; done", opaque},
		{"[[ $x -eq 1 ]] && ls", opaque},
		{"[[ x -gt 1 ]]", opaque},
		{"echo ${a[$i]}", opaque},
		{"echo ${a[i]}", opaque},
		{"echo ${s:$o:2}", opaque},
		{"x='$(touch p)'; echo ${x@P}", opaque},
		{"echo ${!x}", opaque},
		{"declare -i n; n=$x; echo $n", opaque},
		{"local -ia y", opaque},
		{"typeset -i z=1", opaque},
		{"echo $((1+2*3)) ${a[0]} ${s:1:2} $(( $? + 1 ))", allowed},
		{"[[ 2 -gt 1 ]] && ls", allowed},
		{"declare -x A=1; ls", allowed},
		{"echo ${#x} ${x:-d} ${x@Q} ${!pre*}", allowed},

		// Killing tern's own reaper would free what a command started.
		{"kill -9 $PPID", destructive},
		{"pkill -9 -f tern-reaper", destructive},
		{"killall tern", destructive},
	}
	for _, c := range cases {
		v := r.Judge(c.line)
		if got := classify(v); got != c.want {
			t.Errorf("%q: got %v, want %v (%+v)", c.line, got, c.want, v)
		}
	}
}

// TestJudgeWorkspaceModule: python -m runs a module from the workspace,
// which the model may have written, and asks; an installed module does
// not.
func TestJudgeWorkspaceModule(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "helper.py"), []byte("import os\n"), 0o644)
	os.MkdirAll(filepath.Join(root, "tool"), 0o755)
	r, err := NewRules(Policy{Allow: []string{"python3 -m *"}, Root: root})
	if err != nil {
		t.Fatal(err)
	}
	for line, want := range map[string]want{
		"python3 -m helper":        opaque,
		"python3 -m tool.cli --x":  opaque,
		"python3 -mhelper":         opaque,
		"python3 -m pytest -q":     allowed,
		"python3 -m json.tool a.j": allowed,
	} {
		if got := classify(r.Judge(line)); got != want {
			t.Errorf("%q: got %v, want %v", line, got, want)
		}
	}
}

// TestJudgeGitOutput: an option that makes git write a file wherever it
// names keeps an allowed git command from running unasked, as find's
// -fprint does; reading stays allowed.
func TestJudgeGitOutput(t *testing.T) {
	r, err := NewRules(Policy{Allow: []string{"git diff *", "git log *", "git show *", "git archive *", "git format-patch *", "git grep *"}})
	if err != nil {
		t.Fatal(err)
	}
	for line, want := range map[string]want{
		"git diff --output=main.go HEAD~1":      plain,
		"git diff --output main.go":             plain,
		"git diff --outp=main.go":               plain,
		"git log -p --output=notes.txt":         plain,
		"git show --output=x HEAD":              plain,
		"git archive -o ../x.tar HEAD":          plain,
		"git archive -ox.tar HEAD":              plain,
		"git format-patch --output-directory d": plain,
		"git format-patch -o d HEAD~2":          plain,
		"git diff HEAD~1 -- main.go":            allowed,
		"git log --oneline -5":                  allowed,
		"git grep -o needle":                    allowed, // grep's -o prints only the match
		"git diff -Oorder.txt":                  allowed, // -O reads an order file
	} {
		if got := classify(r.Judge(line)); got != want {
			t.Errorf("%q: got %v, want %v", line, got, want)
		}
	}
}
