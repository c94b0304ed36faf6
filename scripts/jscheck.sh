#!/bin/sh
# scripts/jscheck.sh: checks the JavaScript tabhive embeds and sends to
# pages (every js/ folder's .js file: page/js, browser/js,
# browser/storagestate/js, the trace fixtures' site), with ESLint 9 under
# scripts/eslint.config.mjs: each must parse as Chrome compiles it (a
# function declaration inside parentheses), and the scripts that run in a
# page's main world after its own scripts (the causal tracker past its
# install, the calls made on it) may name none of the globals a page can
# replace. Lighthouse's driver (Node) must parse as a module. Needs Node
# and npm (scripts/deps.sh test); ESLint comes through npx, into npm's
# cache.
set -eu
cd "$(dirname "$0")/.."
eslint_version=9.39.1
# shellcheck disable=SC2046 # the file names have no spaces
npx --yes "eslint@$eslint_version" -c scripts/eslint.config.mjs \
	--max-warnings 0 $(git ls-files '*/js/*.js')
node --check page/lighthouse/driver.mjs
echo "jscheck: $(git ls-files '*/js/*.js' | wc -l) embedded scripts parse; the main world's keep to their references"
