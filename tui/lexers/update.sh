#!/bin/sh
# update.sh copies chroma's lexers (the version go.mod requires) into this
# package, so that tern loads them when it first highlights code instead
# of when it starts: chroma's own lexers package parses all ~280 of its
# XML lexers in an init function (7 ms of every process, headless too).
# The copy is chroma's, changed only so: its init functions, which adjust
# lexers of the registry, run when the registry is built (afterBuild), and
# lexers.go (not copied) builds the registry on first use.
# TestSameAsChroma checks the copy against chroma's package. Run it
# (go generate ./tui/lexers) after changing chroma's version.
set -eu
cd "$(dirname "$0")"
src=$(go list -m -f '{{.Dir}}' github.com/alecthomas/chroma/v2)
rm -rf embedded
cp -r "$src/lexers/embedded" embedded
chmod -R u+w embedded
cp "$src/COPYING" COPYING
chmod u+w COPYING
for f in "$src"/lexers/*.go; do
	name=$(basename "$f")
	case "$name" in
	lexers.go | *_test.go) continue ;;
	esac
	awk '
		/^func init\(\) \{/ { print "var _ = afterBuild(func() { // chroma'"'"'s init"; inside = 1; next }
		inside && /^}$/ { print "})"; inside = 0; next }
		inside { sub(/^\tGet\(/, "\tbuilding.Get("); print; next }
		{ print }
	' "$f" >"chroma_$name"
	chmod u+w "chroma_$name"
done
# chroma writes Rule and Token literals without field names, which go vet
# reports; name the fields.
cd ../..
go vet ./tui/lexers 2>&1 | go run ./tui/lexers/keyed.go
gofmt -w tui/lexers
