#!/usr/bin/env bash
# Deploys the shop to a server.
set -euo pipefail

TARGET=${1:-staging}

# build_release compiles the binary.
build_release() {
  go build -o bin/shop ./cmd/shop
}

function upload {
  scp bin/shop "deploy@$TARGET:/srv/shop"
}

build_release
upload
echo "deployed to $TARGET"
