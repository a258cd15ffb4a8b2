#!/usr/bin/env bash
# Installs the language servers the tests of tools/lsp and cmd/tern run
# (TestGopls, TestPyright, TestGoplsThroughAsk, TestPyrightThroughAsk),
# pinned: gopls with go install into $(go env GOPATH)/bin, pyright with
# npm into $PREFIX (default ~/.local/share/tern-test-npm). Both directories
# must be on PATH; the script prints the line that puts them there.
# .ci/run runs it; without the servers those tests skip, except in CI.
set -euo pipefail

GOPLS_VERSION=v0.23.0
PYRIGHT_VERSION=1.1.414
PREFIX=${PREFIX:-$HOME/.local/share/tern-test-npm}

go install "golang.org/x/tools/gopls@$GOPLS_VERSION"
npm install --global --prefix "$PREFIX" --no-audit --no-fund --loglevel=error "pyright@$PYRIGHT_VERSION"

echo "export PATH=\"$(go env GOPATH)/bin:$PREFIX/bin:\$PATH\""
