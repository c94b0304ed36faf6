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
# PID 1 that reaps Chromium's orphaned processes and passes SIGTERM on.
apt-get install -y --no-install-recommends chromium fonts-liberation ca-certificates tini
if [ "${TABHIVE_IMAGE:-}" = 1 ]; then
	rm -rf /var/lib/apt/lists/*
fi
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
