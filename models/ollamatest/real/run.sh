#!/usr/bin/env bash
# `make test-real`: run tern's integration tests against a real Ollama.
#
#  1. Reuse the server cached at $CACHE/bin/ollama, or build it (cgo: gcc and
#     g++; ~6 min on 2 quiet cores, ~15 on a busy machine). CACHE is
#     ${XDG_CACHE_HOME:-~/.cache}/tern/ollama-VERSION, VERSION being the
#     github.com/ollama/ollama version in go.mod.
#  2. Write the tiny GGUF models with Ollama's own GGUF writer (testdata/mkgguf)
#     and create them from testdata/modelfiles in a fresh temporary OLLAMA_MODELS.
#  3. Start `ollama serve` on a free port, run every test built with the tag
#     `realollama` with TERN_REAL_OLLAMA_HOST set to it, stop the server.
#
# Set TERN_REAL_KEEP=1 to keep the temporary directory (server log, models).
# Extra arguments go to `go test` (e.g. -run TestRealDoctor -v).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
cd "$ROOT"
START=$(date +%s)

V=$(go list -m -f '{{.Version}}' github.com/ollama/ollama)
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/tern/ollama-$V"
OLLAMA="$CACHE/bin/ollama"
if [ -x "$OLLAMA" ]; then
  echo "--- ollama $V: cached at $OLLAMA"
else
  echo "--- ollama $V: not cached; building it into $CACHE (about 6-15 min, once)"
  if ! OUT="$CACHE" V="$V" "$HERE/build-ollama.sh"; then
    echo "make test-real: FAILED: could not build Ollama $V (see above); the integration tests did not run" >&2
    exit 1
  fi
  echo "--- built in $(($(date +%s) - START)) s"
fi

W=$(mktemp -d "${TMPDIR:-/tmp}/tern-real.XXXXXX")
mkdir -p "$W/gguf" "$W/models" "$W/home" "$W/modelfiles"
LOG="$W/serve.log"
PID=""
cleanup() {
  local rc=$?
  if [ -n "$PID" ]; then
    kill -- "-$PID" 2>/dev/null || kill "$PID" 2>/dev/null || true
    wait "$PID" 2>/dev/null || true
  fi
  if [ "$rc" -ne 0 ] && [ -f "$LOG" ]; then
    echo "--- last lines of the server log ($LOG)"
    tail -n 30 "$LOG"
  fi
  if [ "${TERN_REAL_KEEP:-}" = 1 ] || [ "$rc" -ne 0 ]; then
    echo "--- kept $W"
  else
    rm -rf "$W"
  fi
}
trap cleanup EXIT

echo "--- models"
(cd "$HERE/testdata/mkgguf" && go build -o "$W/mkgguf" .)
M="$W/mkgguf"
G="$W/gguf"
"$M" -arch llama -o "$G/tiny-llama.gguf" >/dev/null
"$M" -arch qwen3 -o "$G/tiny-qwen3.gguf" >/dev/null
"$M" -arch qwen3 -pooling 3 -o "$G/tiny-embed.gguf" >/dev/null
"$M" -arch llama -loop Ġhello -o "$G/tiny-loop.gguf" >/dev/null
"$M" -arch qwen3 -script -o "$G/tiny-script.gguf" >/dev/null
"$M" -arch qwen3 -script -path greet.go -answer 'Hello returns "hello, tern".' -o "$G/tiny-script-greet.gguf" >/dev/null
"$M" -arch qwen3 -script -call '{"name": "read_file", "arguments": {"path": "NOTES.md",}' -o "$G/tiny-badcall.gguf" >/dev/null
# A llama file without one of its tensors: the runner dies loading it.
"$M" -arch llama -omit blk.1.ffn_up.weight -o "$G/tiny-crash.gguf" >/dev/null
# Metadata-only models for the VRAM planner (/api/show reads them; they
# cannot run): a qwen3.5-style hybrid with one full-attention layer in four,
# and a gemma3 with sliding-window layers.
"$M" -arch qwen35 -layers 8 -ctx 32768 -set full_attention_interval=4 -set 'attention.head_count_kv=[0,0,0,2,0,0,0,2]' \
  -set ssm.conv_kernel=4 -set ssm.inner_size=128 -set ssm.state_size=16 -set ssm.group_count=2 -set ssm.time_step_rank=4 \
  -o "$G/tiny-hybrid.gguf" >/dev/null
"$M" -arch gemma3 -layers 12 -ctx 32768 -set attention.sliding_window=512 -o "$G/tiny-gemma.gguf" >/dev/null
# A scripted mixture of experts (loadable: Ollama's Go engine runs qwen3moe)
# for the MoE planner and for escalation.
"$M" -arch qwen3moe -layers 4 -experts 8 -experts-used 2 -shexp -script -o "$G/tiny-moe.gguf" >/dev/null
cp "$HERE"/testdata/modelfiles/*.Modelfile "$W/modelfiles/"

# The server's own HOME and models; the go commands keep the caller's
# (their module and build caches live under it). OLLAMA_DEBUG: the runner
# logs its cache use, which TestRealResumeAndPrefixCache reads.
serve_env=(env HOME="$W/home" OLLAMA_MODELS="$W/models" OLLAMA_DEBUG=1)
# Port 0: the kernel picks a free port and the server logs which.
OLLAMA_HOST="127.0.0.1:0" setsid "${serve_env[@]}" "$OLLAMA" serve >"$LOG" 2>&1 </dev/null &
PID=$!
ADDR=""
for _ in $(seq 150); do
  ADDR=$(sed -n 's/.*Listening on \([0-9.]*:[0-9]*\).*/\1/p' "$LOG" | head -n 1)
  [ -n "$ADDR" ] && curl -fsS "http://$ADDR/api/version" >/dev/null 2>&1 && break
  kill -0 "$PID" 2>/dev/null || { echo "make test-real: FAILED: ollama serve exited" >&2; exit 1; }
  sleep 0.2
done
[ -n "$ADDR" ] || { echo "make test-real: FAILED: ollama serve did not start" >&2; exit 1; }
for f in "$W"/modelfiles/*.Modelfile; do
  name=$(basename "$f" .Modelfile)
  if ! out=$(OLLAMA_HOST="$ADDR" "${serve_env[@]}" "$OLLAMA" create "$name" -f "$f" 2>&1); then
    echo "make test-real: FAILED: ollama create $name: $out" >&2
    exit 1
  fi
done
echo "--- ollama $V serving $(ls "$W"/modelfiles | wc -l) models on $ADDR (setup $(($(date +%s) - START)) s)"

# The tests: every test function in a _test.go file built with the tag.
files=$(grep -rl --include='*_test.go' '^//go:build realollama' . || true)
if [ -z "$files" ]; then
  echo "make test-real: FAILED: no test file has the realollama build tag" >&2
  exit 1
fi
pkgs=$(for f in $files; do echo "./$(dirname "${f#./}")"; done | sort -u)
names=$(grep -ho '^func \(Test[A-Za-z0-9_]*\)' $files | sed 's/^func //' | sort -u | paste -sd '|' -)
echo "--- go test -tags realollama: $(echo $pkgs)"
T0=$(date +%s)
status=0
TERN_REAL_OLLAMA_HOST="$ADDR" TERN_REAL_OLLAMA_LOG="$LOG" go test -tags realollama -count=1 -run "^($names)\$" "$@" $pkgs || status=$?
echo "--- tests $(($(date +%s) - T0)) s; make test-real $(($(date +%s) - START)) s in all"
exit $status
