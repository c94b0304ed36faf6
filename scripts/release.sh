#!/bin/sh
# scripts/release.sh [VERSION]: tabhive's release binaries, for Linux and
# macOS on amd64 and arm64, into dist/ (not tracked by git):
#
#   dist/tabhive-linux-amd64   dist/tabhive-linux-arm64
#   dist/tabhive-darwin-amd64  dist/tabhive-darwin-arm64
#   dist/SHA256SUMS
#
# Each is static (CGO_ENABLED=0), built with -trimpath, and says VERSION in
# --version and in MCP's serverInfo (-X main.releaseVersion). VERSION
# defaults to what git describe says of the checkout (a tag such as v1.2.0,
# else the commit; -dirty when the tree has changes). Then it checks what
# it built: each file's target in its build information (go version -m),
# the sums, and the version this machine's binary prints. CI runs it.
set -eu
cd "$(dirname "$0")/.."
version=${1:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}
targets="linux/amd64 linux/arm64 darwin/amd64 darwin/arm64"
rm -rf dist
mkdir dist
for target in $targets; do
	os=${target%/*}
	arch=${target#*/}
	CGO_ENABLED=0 GOOS=$os GOARCH=$arch go build -trimpath \
		-ldflags "-s -w -X main.releaseVersion=$version" -o "dist/tabhive-$os-$arch" ./cmd/tabhive
done
(cd dist && sha256sum tabhive-* >SHA256SUMS)

fail() {
	echo "release: $*" >&2
	exit 1
}
for target in $targets; do
	os=${target%/*}
	arch=${target#*/}
	f=dist/tabhive-$os-$arch
	info=$(go version -m "$f") || fail "$f: no Go build information"
	for want in "GOOS=$os" "GOARCH=$arch" "CGO_ENABLED=0" "-trimpath=true"; do
		printf '%s\n' "$info" | grep -q "[[:space:]]build[[:space:]]$want\$" || fail "$f: built without $want"
	done
	# -trimpath leaves -ldflags out of the build information: look for
	# the stamp itself.
	LC_ALL=C grep -aqF -- "$version" "$f" || fail "$f: version $version not stamped"
	if command -v file >/dev/null 2>&1; then
		case $os/$arch in
		linux/amd64) kind='ELF 64-bit LSB executable, x86-64' ;;
		linux/arm64) kind='ELF 64-bit LSB executable, ARM aarch64' ;;
		darwin/amd64) kind='Mach-O 64-bit x86_64 executable' ;;
		darwin/arm64) kind='Mach-O 64-bit arm64 executable' ;;
		esac
		file -b "$f" | grep -q "^$kind" || fail "$f is $(file -b "$f"), want $kind"
	fi
done
(cd dist && sha256sum --quiet -c SHA256SUMS) || fail "dist/SHA256SUMS does not match"
host=dist/tabhive-$(go env GOOS)-$(go env GOARCH)
if [ -x "$host" ]; then
	got=$("$host" --version)
	[ "$got" = "tabhive $version" ] || fail "$host --version printed \"$got\", want \"tabhive $version\""
fi
echo "release: $version for $targets in dist/:"
cat dist/SHA256SUMS
