#!/bin/sh
# scripts/deps.sh [browser|test]: installs what tabhive needs on Debian or
# Ubuntu, only what is missing, so that running it again changes nothing.
#
#   browser  Chromium, which tabhive launches (the README's run command).
#   test     (the default) Chromium and what the test suite and CI use
#            besides: ffmpeg (screencasts), poppler-utils (pdfinfo, for
#            save_pdf's PDFs), HAProxy and nginx (deploy/'s balancers),
#            Node and npm, and the Lighthouse CLI 12.8.2 (lighthouse_audit)
#            in .ci/lighthouse, a prefix of this checkout's own:
#            scripts/test.sh puts its bin on PATH.
#
# Packages come from apt-get, as root or through sudo; Lighthouse from npm,
# as the user running this. Go itself is not installed here.
set -eu
cd "$(dirname "$0")/.."
what=${1:-test}
case $what in
browser | test) ;;
*)
	echo "usage: sh scripts/deps.sh [browser|test]" >&2
	exit 2
	;;
esac
# HAProxy and nginx live in /usr/sbin, which a user's PATH may leave out.
PATH=$PATH:/usr/sbin:/sbin
export PATH

missing=
need() { # need COMMAND PACKAGE: PACKAGE provides COMMAND
	if ! command -v "$1" >/dev/null 2>&1; then
		case " $missing " in *" $2 "*) ;; *) missing="$missing $2" ;; esac
	fi
}
need chromium chromium
if [ "$what" = test ]; then
	need ffmpeg ffmpeg
	need ffprobe ffmpeg
	need pdfinfo poppler-utils
	need haproxy haproxy
	need nginx nginx
	need node nodejs
	need npm npm
fi

if [ -n "$missing" ]; then
	if [ "$(id -u)" -eq 0 ]; then
		sudo=
	elif command -v sudo >/dev/null 2>&1; then
		sudo=sudo
	else
		echo "deps: missing:$missing; run this as root, or install sudo" >&2
		exit 1
	fi
	echo "deps: installing$missing" >&2
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q
	# Ubuntu ships Chromium as chromium-browser (a snap that provides
	# the chromium command) rather than Debian's chromium.
	case " $missing " in *" chromium "*)
		if ! apt-cache show chromium >/dev/null 2>&1; then
			missing=$(echo "$missing" | sed 's/ chromium / chromium-browser /; s/ chromium$/ chromium-browser/')
		fi
		;;
	esac
	# shellcheck disable=SC2086 # one word per package
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q $missing
fi

if [ "$what" = test ]; then
	lighthouse=$PWD/.ci/lighthouse
	if [ "$("$lighthouse/bin/lighthouse" --version 2>/dev/null)" != 12.8.2 ]; then
		echo "deps: installing the Lighthouse CLI 12.8.2 into $lighthouse" >&2
		# 12.8.2: the last release that runs on Node 18 and 20.
		npm install -g --prefix "$lighthouse" --no-audit --no-fund --loglevel=error lighthouse@12.8.2
	fi
fi
