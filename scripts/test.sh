#!/bin/sh
# scripts/test.sh [GO TEST ARGUMENTS]: the test command of the README. It
# installs what the tests need when it is missing (scripts/deps.sh test:
# Chromium, ffmpeg, poppler-utils, HAProxy, nginx, Node and npm, the
# Lighthouse CLI), then runs
#
#   go test -race -count=1 ./...
#
# with the Lighthouse CLI of .ci/lighthouse first on PATH. Arguments
# replace ./...: sh scripts/test.sh -run TestStdio ./cmd/tabhive/
#
# This is the full suite. The fast tier (README) needs none of this
# script: go test -short ./... skips every test that starts Chromium or
# the tabhive binary.
set -eu
cd "$(dirname "$0")/.."
sh scripts/deps.sh test
PATH=$PWD/.ci/lighthouse/bin:$PATH:/usr/sbin:/sbin
export PATH
if [ $# -eq 0 ]; then
	set -- ./...
fi
exec go test -race -count=1 "$@"
