#!/usr/bin/env bash
# Build the Ollama server from the Go module proxy into OUT/bin/ollama.
#   OUT=DIR V=v0.17.4 ./build-ollama.sh
# Module zips leave out every vendor/ directory, so the four headers
# llama.cpp needs from llama/llama.cpp/vendor/ come from testdata/vendor
# (copied from the same git tag; their licences are inside each file).
# Needs cgo: gcc and g++. The binary is written to a temporary name and
# moved into place only when the build succeeded, so an interrupted build
# never leaves a half-written server behind.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
V=${V:-v0.17.4}
OUT=${OUT:?set OUT to a directory}
for tool in go gcc g++; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "build-ollama: cannot build Ollama $V: $tool is not installed (cgo needs gcc and g++; on Debian: apt-get install gcc g++)" >&2
    exit 1
  fi
done
mkdir -p "$OUT/bin"
DIR=$(GOFLAGS=-mod=mod go mod download -json "github.com/ollama/ollama@$V" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",*$/\1/p')
[ -d "$DIR" ] || { echo "build-ollama: go mod download github.com/ollama/ollama@$V gave no directory" >&2; exit 1; }
SRC="$OUT/src"
rm -rf "$SRC" && cp -r "$DIR" "$SRC" && chmod -R u+w "$SRC"
cp -r "$HERE/testdata/vendor/." "$SRC/llama/llama.cpp/vendor/"
(cd "$SRC" && CGO_ENABLED=1 go build -trimpath -ldflags "-s -w -X=github.com/ollama/ollama/version.Version=${V#v}" -o "$OUT/bin/ollama.tmp" .)
mv "$OUT/bin/ollama.tmp" "$OUT/bin/ollama"
rm -rf "$SRC"
