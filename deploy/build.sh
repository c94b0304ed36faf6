#!/bin/sh
# Builds a static tabhive (no cgo: it runs on any Linux, in any image) at
# the path given, from the repository root. The Dockerfile's build stage
# runs it, and so does deploy/test/image.sh in CI.
#
#   sh deploy/build.sh OUT        # VERSION=1.2.3 sh deploy/build.sh OUT
set -eu
out=${1:?usage: deploy/build.sh OUTPUT}
CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.releaseVersion=${VERSION:-}" -o "$out" ./cmd/tabhive
