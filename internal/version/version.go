// Package version holds the build stamps of the hpcbench binary, set at link
// time with -ldflags "-X github.com/hpcbench/hpcbench/internal/version.Version=...".
package version

import "runtime/debug"

// Version is the release name; "dev" when the build was not stamped.
var Version = "dev"

// Commit is the source revision; empty when unknown.
var Commit = ""

// Date is the build date; empty when unknown.
var Date = ""

// String returns a one-line description of the build: version, commit, date
// and the Go toolchain that built it. When the linker did not stamp a commit,
// it falls back to the VCS information the go command embeds.
func String() string {
	commit, date := Commit, Date
	goVer := ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		goVer = bi.GoVersion
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				if commit == "" {
					commit = s.Value
				}
			case "vcs.time":
				if date == "" {
					date = s.Value
				}
			}
		}
	}
	s := "hpcbench " + Version
	if commit != "" {
		if len(commit) > 12 {
			commit = commit[:12]
		}
		s += " commit " + commit
	}
	if date != "" {
		s += " built " + date
	}
	if goVer != "" {
		s += " " + goVer
	}
	return s
}
