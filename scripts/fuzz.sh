#!/usr/bin/env bash
# fuzz runs every Go fuzz target in the module for FUZZTIME (default 10s)
# each, one after another, and fails on the first real finding.
#
# A real finding is a failing input: Go writes it under the package's
# testdata/fuzz/<Target>/ and says "Failing input written to". A run that
# fails with nothing but "context deadline exceeded" and writes no input is
# Go 1.26's fuzz coordinator racing its own -fuzztime deadline
# (go.dev/issue/75804, fixed in Go 1.27): when a loaded machine holds a
# worker past the deadline, the coordinator reports the deadline as a
# failure. Such a run proves nothing either way, so it is run again, up to
# twice; a target whose every run ends that way fails.
#
#   scripts/fuzz.sh                 # all targets, 10s each
#   FUZZTIME=1m scripts/fuzz.sh
set -euo pipefail
GO=${GO:-go}
FUZZTIME=${FUZZTIME:-10s}
out=$(mktemp)
trap 'rm -f "$out"' EXIT

# spurious reports whether the last run's output is the coordinator's bare
# deadline and nothing else: no failing input written, no other failure.
spurious() {
	grep -q '^    context deadline exceeded$' "$out" &&
		! grep -q 'Failing input written to' "$out" &&
		[ "$(grep -c -e '^--- FAIL' -e '^    [^ ]' "$out")" -eq 2 ]
}

fuzz() { # package target
	local try
	for try in 1 2 3; do
		local status=0
		"$GO" test -run '^$' -fuzz "^$2\$" -fuzztime "$FUZZTIME" "./$1" >"$out" 2>&1 || status=$?
		cat "$out"
		[ "$status" -ne 0 ] || return 0
		spurious || return 1
		echo "fuzz: $2 stopped on Go's fuzztime deadline race (go.dev/issue/75804), no input written; run $try of 3" >&2
	done
	return 1
}

grep -rl --include='*_test.go' '^func Fuzz' . | sort | while read -r file; do
	dir=$(dirname "$file")
	for fn in $(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' "$file"); do
		echo "--- $fn ($dir)"
		fuzz "$dir" "$fn"
	done
done
