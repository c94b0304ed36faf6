#!/bin/sh
# Prepares Debian 12 (bookworm) to run tabhive as the image does: the
# packages it needs and the user it runs as. The Dockerfile runs it in the
# image; deploy/test/image.sh runs it on the CI machine, so that the steps
# CI exercises are the image's. Run as root.
set -eu
export DEBIAN_FRONTEND=noninteractive
apt-get update
# chromium: the browser; fonts-liberation: pages render with metric-
# compatible Arial/Times/Courier; ca-certificates: https pages; tini: a
# PID 1 that reaps Chromium's orphaned processes and passes SIGTERM on;
# nodejs (18.20, Lighthouse 12.8.2 needs 18.16) runs lighthouse_audit's
# Lighthouse, which npm installs below. A machine that has node or npm
# already (CI's) keeps its own.
pkgs="chromium fonts-liberation ca-certificates tini"
command -v node >/dev/null 2>&1 || pkgs="$pkgs nodejs"
command -v npm >/dev/null 2>&1 || pkgs="$pkgs npm"
# shellcheck disable=SC2086 # a list of words
apt-get install -y --no-install-recommends $pkgs
# A user of its own, not root: Chromium keeps its sandbox (as root,
# tabhive has to pass --no-sandbox). The uid is fixed so that Kubernetes'
# runAsUser can name it.
if ! id tabhive >/dev/null 2>&1; then
	if getent passwd 10001 >/dev/null; then
		useradd --create-home --home-dir /home/tabhive --shell /usr/sbin/nologin tabhive
	else
		useradd --create-home --home-dir /home/tabhive --shell /usr/sbin/nologin --uid 10001 tabhive
	fi
fi
home=$(getent passwd tabhive | cut -d: -f6)

# Lighthouse 12.8.2 (page/lighthouse's Version), installed as the user,
# where tabhive would install it on first use ($XDG_CACHE_HOME/tabhive,
# with npm's flags of page/lighthouse/install.go), so that lighthouse_audit
# works at once and offline, with no install in an agent's first call. The
# directory stays the user's: if it is removed, tabhive installs it again
# (with npm, where npm is left). An install is complete once renamed into
# place.
lighthouse="$home/.cache/tabhive/lighthouse-12.8.2"
if [ ! -x "$lighthouse/node_modules/.bin/lighthouse" ]; then
	setpriv --reuid tabhive --regid tabhive --init-groups env HOME="$home" sh -euc '
		umask 077
		mkdir -p "$(dirname "$1")"
		rm -rf "$1"
		tmp=$(mktemp -d "$1.partial-XXXXXX")
		npm install --prefix "$tmp" --no-audit --no-fund --no-update-notifier --omit=dev --loglevel=error lighthouse@12.8.2
		mv "$tmp" "$1"
	' sh "$lighthouse"
fi

if [ "${TABHIVE_IMAGE:-}" = 1 ]; then
	# The image keeps node and Lighthouse, not npm and its download cache.
	apt-get purge -y --autoremove npm
	rm -rf "$home/.npm" /var/lib/apt/lists/*
fi
