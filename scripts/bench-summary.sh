#!/usr/bin/env bash
# bench-summary runs the benchmarks behind tern's performance targets
# (start-up, streaming, indexing, search) one at a time and prints their
# figures in one table, next to the targets and the zoekt-index reference
# measured on the same kind of machine. Run it on a quiet machine: wall
# times stretch when other processes compete for the cores; CPU times
# stretch less.
#
#   scripts/bench-summary.sh            # all (several minutes: it indexes the Go tree)
#   ONLY="AskStartup TUIStartup Stream20k" scripts/bench-summary.sh
#   TERN_BENCH_TREE=~/go/pkg/mod scripts/bench-summary.sh   # also a large tree
set -euo pipefail
GO=${GO:-go}
out=$(mktemp)
trap 'rm -f "$out"' EXIT

run() { # package benchmark benchtime
	if [ -n "${ONLY:-}" ] && [[ " $ONLY " != *" $2 "* ]]; then
		return
	fi
	echo "running $2 ($1)…" >&2
	if ! "$GO" test -run '^$' -bench "^Benchmark$2\$" -benchtime="$3" "$1" >>"$out" 2>&1; then
		echo "bench-summary: Benchmark$2 failed:" >&2
		tail -20 "$out" >&2
		exit 1
	fi
}

run ./cmd/tern AskStartup 20x
run ./cmd/tern TUIStartup 20x
run ./tui Stream20k 1x
# zoekt-index, when installed, is timed on the same tree just before and
# just after tern, so that both see the same machine; otherwise the table
# uses the figures, taken on a quiet machine.
zoekt() {
	if ! command -v zoekt-index >/dev/null || { [ -n "${ONLY:-}" ] && [[ " $ONLY " != *" IndexStdlib "* ]]; }; then
		return
	fi
	local dir src
	dir=$(mktemp -d)
	src=$("$GO" env GOROOT)/src
	echo "running zoekt-index ($src)…" >&2
	TIMEFORMAT='%R %U %S'
	if { time zoekt-index -index "$dir" "$src" >/dev/null 2>&1; } 2>"$dir/time"; then
		awk '{ print "ZoektIndex", $1, $2 + $3 }' "$dir/time" >>"$out"
	fi
	rm -rf "$dir"
}
zoekt
run ./index IndexStdlib 1x
zoekt
if [ -n "${TERN_BENCH_TREE:-}" ]; then
	run ./index IndexTree 1x # a large tree, for linear cost and bounded memory
fi
run ./index ReindexNoChange 5x
run ./index ReindexOneFile 5x
run ./rag SearchLexical 20x
run ./rag SearchHybridStdlib 20x

cores=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo "?")
load=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?")
awk -v cores="$cores" -v load="$load" '
/^ZoektIndex/ { zn++; zwall += $2; zcpu += $3 }
/^Benchmark/ {
	name = $1; sub(/^Benchmark/, "", name); sub(/-[0-9]+$/, "", name)
	for (i = 3; i < NF; i += 2) m[name, $(i+1)] = $i
	have[name] = 1
}
function row(what, value, target) { printf "%-44s %-30s %s\n", what, value, target }
END {
	printf "tern performance figures (%s cores, load average %s)\n\n", cores, load
	row("figure", "measured", "target / reference")
	row("------", "--------", "------------------")
	if (have["AskStartup"])
		row("tern ask: start-up to first request", sprintf("%.1f ms CPU, %.1f ms wall", m["AskStartup", "cpu-ms-to-request"], m["AskStartup", "ms-to-request"]), "under 30 ms (was 118 ms)")
	if (have["TUIStartup"])
		row("TUI: start-up to first frame", sprintf("%.1f ms CPU, %.1f ms wall", m["TUIStartup", "cpu-ms-to-frame"], m["TUIStartup", "ms-to-frame"]), "")
	if (have["Stream20k"])
		row("TUI: CPU per streamed token, 20k tokens", sprintf("%.0f us first 1k, %.0f us last 1k (x%.2f)", m["Stream20k", "µs/token-first1k"], m["Stream20k", "µs/token-last1k"], m["Stream20k", "last/first"]), "flat: x1 (was x16)")
	if (have["IndexStdlib"]) {
		wall = m["IndexStdlib", "ns/op"] / 1e9; cpu = m["IndexStdlib", "cpu-s/op"]
		zw = 9.1; zc = 6.1; zwhat = "zoekt-index 9.1 s, 6.1 s (issue, quiet machine)"
		if (zn > 0) { zw = zwall / zn; zc = zcpu / zn; zwhat = sprintf("zoekt-index %.1f s, %.1f s (this run)", zw, zc) }
		row("index Go src, lexical: wall, CPU", sprintf("%.1f s, %.1f s (%.1f cores)", wall, cpu, cpu / wall), zwhat)
		row("  ratio to zoekt-index", sprintf("%.1fx wall, %.1fx CPU", wall / zw, cpu / zc), "at most 1.5x (was 2.8x, 3.1x)")
		row("  files, chunks, peak memory", sprintf("%d, %d, %.0f MiB", m["IndexStdlib", "files"], m["IndexStdlib", "chunks"], m["IndexStdlib", "peak-MiB"]), "")
		row("  CPU per 100 MB of indexed source", sprintf("%.1f s (%.0f MB)", m["IndexStdlib", "cpu-s/100MB"], m["IndexStdlib", "MB"]), "")
	}
	if (have["IndexTree"]) {
		wall = m["IndexTree", "ns/op"] / 1e9; cpu = m["IndexTree", "cpu-s/op"]
		row("index $TERN_BENCH_TREE, lexical: wall, CPU", sprintf("%.1f s, %.1f s (%.1f cores)", wall, cpu, cpu / wall), "")
		row("  files, MB, peak memory", sprintf("%d, %.0f MB, %.0f MiB", m["IndexTree", "files"], m["IndexTree", "MB"], m["IndexTree", "peak-MiB"]), "under 1 GiB")
		line = sprintf("%.1f s", m["IndexTree", "cpu-s/100MB"])
		if (have["IndexStdlib"] && m["IndexStdlib", "cpu-s/100MB"] > 0)
			line = line sprintf(" (x%.2f Go src)", m["IndexTree", "cpu-s/100MB"] / m["IndexStdlib", "cpu-s/100MB"])
		row("  CPU per 100 MB of indexed source", line, "linear: x1")
	}
	if (have["ReindexNoChange"])
		row("reindex, nothing changed", sprintf("%.0f ms, %.0f ms CPU", m["ReindexNoChange", "ns/op"] / 1e6, m["ReindexNoChange", "cpu-ms/op"]), "keep: 0.3 s")
	if (have["ReindexOneFile"])
		row("reindex, one file changed", sprintf("%.0f ms, %.0f ms CPU", m["ReindexOneFile", "ns/op"] / 1e6, m["ReindexOneFile", "cpu-ms/op"]), "keep")
	if (have["SearchLexical"])
		row("lexical search, stdlib: p50, p90", sprintf("%.1f ms, %.1f ms", m["SearchLexical", "p50-ms"], m["SearchLexical", "p90-ms"]), "keep")
	if (have["SearchHybridStdlib"]) {
		row("hybrid search, stdlib: first", sprintf("%.0f ms", m["SearchHybridStdlib", "first-ms"]), "under 1 s (was 3.97 s)")
		row("hybrid search, stdlib: p50, p90", sprintf("%.0f ms, %.0f ms", m["SearchHybridStdlib", "p50-ms"], m["SearchHybridStdlib", "p90-ms"]), "under 300 ms (was 0.5 s)")
	}
}' "$out"
