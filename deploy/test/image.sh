#!/bin/sh
# The image's steps, on this Debian machine, as CI runs them (.ci/run): the
# Dockerfile's build stage (deploy/build.sh), its second stage
# (deploy/debian-setup.sh), and its command (ENTRYPOINT and CMD, read from
# the Dockerfile) run as its user. Then one MCP session drives it, and the
# check makes sure Chromium runs as that user with its sandbox on. No
# Docker engine is needed. Run as root, from anywhere.
set -eu
cd "$(dirname "$0")/../.."
work=$(mktemp -d)
pid=
cleanup() {
	if [ -n "$pid" ]; then kill -KILL "$pid" 2>/dev/null || true; fi
	rm -rf "$work"
}
trap cleanup EXIT
chmod 755 "$work"

# Stage one: a static binary.
sh deploy/build.sh "$work/tabhive"
if ldd "$work/tabhive" >/dev/null 2>&1; then
	echo "image: deploy/build.sh made a dynamic executable" >&2
	exit 1
fi

# Stage two: packages and the user.
sh deploy/debian-setup.sh
uid=$(id -u tabhive)
# lighthouse_audit's Lighthouse is where tabhive finds it (the user's
# cache), the version tabhive pins, and runs as the user.
home=$(getent passwd tabhive | cut -d: -f6)
want=$(sed -n 's/^const Version = "\(.*\)"$/\1/p' page/lighthouse/install.go)
got=$(setpriv --reuid tabhive --regid tabhive --init-groups env HOME="$home" \
	"$home/.cache/tabhive/lighthouse-$want/node_modules/.bin/lighthouse" --version) || got=
if [ -z "$want" ] || [ "$got" != "$want" ]; then
	echo "image: the user's Lighthouse is \"$got\", want $want (page/lighthouse)" >&2
	exit 1
fi

# The command: ENTRYPOINT then CMD, each a JSON array of plain strings;
# the binary is where this script built it, and the listen address a free
# local port.
words() { sed -n "s/^$1 \[\(.*\)\]\$/\1/p" deploy/Dockerfile | sed 's/^"//; s/"$//; s/", "/\n/g'; }
set --
for w in $(words ENTRYPOINT) $(words CMD); do
	case "$w" in
	/usr/local/bin/tabhive) w="$work/tabhive" ;;
	0.0.0.0:8931) w="127.0.0.1:0" ;;
	esac
	set -- "$@" "$w"
done
echo "image: running as tabhive: $*" >&2
# setpriv execs (no process in between): $pid is the image's PID 1, tini.
(cd /home/tabhive && exec setpriv --reuid tabhive --regid tabhive --init-groups env HOME=/home/tabhive TINI_SUBREAPER=1 "$@") >"$work/out" 2>"$work/err" &
pid=$!
i=0
until grep -q 'MCP endpoint' "$work/out" 2>/dev/null; do
	if ! kill -0 "$pid" 2>/dev/null || [ $i -ge 600 ]; then
		echo "image: tabhive printed no URL:" >&2
		cat "$work/err" >&2
		exit 1
	fi
	sleep 0.1
	i=$((i + 1))
done
url=$(sed -n 's/.*MCP endpoint \(http:[^ ]*\).*/\1/p' "$work/out" | head -n 1)

status=0
if [ "$(stat -c %u "/proc/$pid")" != "$uid" ]; then
	echo "image: the command does not run as user tabhive" >&2
	status=1
fi
go run ./bench/scale smoke --url "$url" || status=1

# Chromium runs as the user, without --no-sandbox, its renderers under
# seccomp (Seccomp: 2 in their status).
sandboxed=0
for p in $(pgrep -u "$uid" -f 'chromium.*--type=renderer' || true); do
	if grep -q '^Seccomp:[[:space:]]*2' "/proc/$p/status" 2>/dev/null; then sandboxed=$((sandboxed + 1)); fi
done
if pgrep -u "$uid" -f -- '--no-sandbox' >/dev/null; then
	echo "image: a process of user tabhive runs with --no-sandbox" >&2
	status=1
fi
if [ "$sandboxed" -eq 0 ]; then
	echo "image: no renderer of user tabhive runs sandboxed (seccomp)" >&2
	status=1
fi

# SIGTERM to the image's PID 1 (tini), as docker stop and Kubernetes send
# it: tini passes it on, tabhive drains and exits 0.
kill -TERM "$pid"
i=0
while kill -0 "$pid" 2>/dev/null && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
if kill -0 "$pid" 2>/dev/null; then
	echo "image: tabhive did not exit within 60 s of SIGTERM" >&2
	status=1
elif ! wait "$pid"; then
	echo "image: tabhive exited with an error after SIGTERM:" >&2
	cat "$work/err" >&2
	status=1
fi
pid=
if [ $status -ne 0 ]; then cat "$work/err" >&2; fi
echo "image: renderers sandboxed: $sandboxed; status $status" >&2
exit $status
