#!/usr/bin/env bash
# searcheval-renamed scores tern search against whole-file BM25 on the
# searcheval repositories with their source files renamed to another
# extension, as if they were written in a language tern has no grammar for
# (.ml, the default) or in one it cannot name at all (.xyz). The queries'
# answers are renamed alike; BM25 indexes the renamed files, so it does not
# change. It checks that ranking does not depend on tern knowing the
# language: a language named only by extension should score close to one
# with a grammar, well above BM25.
#
#   scripts/searcheval-renamed.sh [EXT]
#   SEARCHEVAL=path/to/searcheval TERN=bin/tern scripts/searcheval-renamed.sh .xyz
set -euo pipefail
EXT="${1:-.ml}"
HERE="${SEARCHEVAL:-../shared/searcheval}"
[ -f "$HERE/searcheval.py" ] || { echo "searcheval-renamed: no searcheval.py in $HERE (set SEARCHEVAL)" >&2; exit 2; }
TERN="${TERN:-}"
if [ -z "$TERN" ]; then go build -o bin/tern ./cmd/tern; TERN="$(pwd)/bin/tern"; fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export OLLAMA_HOST=127.0.0.1:9 # nothing listens there: lexical only
printf '%-24s %6s %6s %6s | %6s %6s %6s   (source renamed to %s)\n' repo bm25@10 tern@10 delta bm25mrr ternmrr delta "$EXT"
for q in "$HERE"/data/*.json; do
	name="$(basename "$q" .json)"
	tree="$work/$name"
	mkdir -p "$tree"
	tar -xzf "$HERE/trees/$name.tar.gz" -C "$tree"
	from="$(python3 -c 'import json, os, sys; print(os.path.splitext(json.load(open(sys.argv[1]))[0]["files"][0])[1])' "$q")"
	find "$tree" -type f -name "*$from" -print0 | while IFS= read -r -d '' f; do mv "$f" "${f%"$from"}$EXT"; done
	python3 - "$q" "$from" "$EXT" >"$work/$name.json" <<'PY'
import json, sys
queries, old, new = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
for q in queries:
    q["files"] = [f[: -len(old)] + new if f.endswith(old) else f for f in q["files"]]
json.dump(queries, sys.stdout)
PY
	(cd "$tree" && "$TERN" index --no-embed >/dev/null 2>&1) || { echo "$name: tern index failed" >&2; continue; }
	b="$(python3 "$HERE/searcheval.py" bm25 --queries "$work/$name.json" --tree "$tree")"
	m="$(python3 "$HERE/searcheval.py" score --queries "$work/$name.json" --tree "$tree" --cmd "$TERN search --json -k 30 --no-embed")"
	python3 - "$name" "$b" "$m" <<'PY'
import json, sys
name, b, m = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3])
print("%-24s %6.3f %6.3f %+6.3f | %6.3f %6.3f %+6.3f" % (name, b["recall@10"], m["recall@10"], m["recall@10"] - b["recall@10"],
      b["mrr@10"], m["mrr@10"], m["mrr@10"] - b["mrr@10"]))
PY
done
