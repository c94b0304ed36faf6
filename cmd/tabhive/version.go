package main

import (
	"runtime/debug"
	"strings"
)

// releaseVersion is stamped by release builds (scripts/release.sh,
// deploy/build.sh): go build -ldflags "-X main.releaseVersion=v1.2.3".
// Empty, the version comes from the build information Go records.
var releaseVersion string

// version is what --version prints, what the HTTP endpoint's first line
// says and what the MCP server reports as its serverInfo version.
var version = versionOf(releaseVersion, debug.ReadBuildInfo)

// versionOf returns stamped when a release build set it; else the main
// module's version, which go install ...@v1.2.3 records (and go build, in
// a git checkout, as a pseudo-version such as
// v0.0.0-20261203071855-22e6095a1b2c+dirty); else the commit the binary
// was built from, shortened, with "+dirty" when the work tree had changes;
// else "dev" (go run, go test, a build outside a checkout).
func versionOf(stamped string, buildInfo func() (*debug.BuildInfo, bool)) string {
	if stamped != "" {
		return stamped
	}
	info, ok := buildInfo()
	if !ok {
		return "dev"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var revision, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if revision == "" {
		return "dev"
	}
	if len(revision) > 12 {
		revision = revision[:12]
	}
	if modified == "true" {
		revision += "+dirty"
	}
	return strings.TrimSpace(revision)
}
