package deprules

import (
	"fmt"
	"slices"
	"strings"
)

// Module is the module path the rules speak of, relative to which
// packages are named ("internal/ior").
const Module = "github.com/hpcbench/hpcbench"

// Graph maps a package of the module (relative to Module) to every
// package of the module it depends on, directly or not.
type Graph map[string][]string

// Rule forbids packages matching From to depend on packages matching To,
// directly or through others, unless Allowed says the pair is an
// exception. Direct rules look at a package's own imports only.
type Rule struct {
	Name    string
	From    func(pkg string) bool
	To      func(dep string) bool
	Allowed func(pkg, dep string) bool
	Direct  bool
}

// under reports whether pkg is root or below it.
func under(pkg string, roots ...string) bool {
	for _, r := range roots {
		if pkg == r || strings.HasPrefix(pkg, r+"/") {
			return true
		}
	}
	return false
}

// in returns a matcher of the packages under any of roots.
func in(roots ...string) func(string) bool {
	return func(p string) bool { return under(p, roots...) }
}

// peers are the top-level packages a library user would import, which
// never import each other (but objstore → fabric).
var peerRoots = []string{"pmi", "fabric", "aiori", "report", "objstore"}

// engines are the benchmark engines, which never import each other.
var engineRoots = []string{"internal/ior", "internal/mdtest", "internal/imb", "internal/fabtest", "internal/wireup", "internal/io500"}

// measuring are the packages that measure or move data: report imports
// none of them.
var measuringRoots = append([]string{"pmi", "fabric", "aiori", "collectives", "objstore", "internal/job", "internal/launch", "internal/run", "internal/transport"}, engineRoots...)

// leaves are the internal packages every layer may use: they import no
// package of the module but each other.
var leafRoots = []string{"internal/units", "internal/rawio", "internal/version", "internal/procstat", "internal/exitcode", "internal/dlib"}

// concreteTransports are fabric's transports, as opposed to its
// interfaces: the one package that chooses among them (per layer) names
// them.
var concreteTransports = []string{"fabric/shm", "fabric/tcp", "fabric/verbs", "fabric/ucx", "fabric/ofi"}

// peerOf returns the peer root pkg lies under, or "".
func peerOf(pkg string) string {
	for _, r := range peerRoots {
		if under(pkg, r) {
			return r
		}
	}
	return ""
}

// engineOf returns the engine root pkg lies under, or "".
func engineOf(pkg string) string {
	for _, r := range engineRoots {
		if under(pkg, r) {
			return r
		}
	}
	return ""
}

// Rules returns the layout's dependency rules.
func Rules() []Rule {
	return []Rule{
		{
			Name: "pmi, fabric, aiori, report and objstore are peers: only objstore → fabric (and the DFS adapter aiori/dfs → objstore)",
			From: func(p string) bool { return peerOf(p) != "" },
			To:   func(d string) bool { return peerOf(d) != "" },
			Allowed: func(p, d string) bool {
				pr, dr := peerOf(p), peerOf(d)
				return pr == dr || pr == "objstore" && dr == "fabric" ||
					under(p, "aiori/dfs") && (dr == "objstore" || dr == "fabric")
			},
		},
		{
			Name: "the peers import no internal package but the leaves",
			From: func(p string) bool { return peerOf(p) != "" },
			To:   in("internal"),
			Allowed: func(_, d string) bool {
				return under(d, leafRoots...)
			},
		},
		{
			Name: "collectives imports only fabric",
			From: in("collectives"),
			To:   func(d string) bool { return !under(d, "collectives", "fabric") && !under(d, leafRoots...) },
		},
		{
			Name: "report imports no measuring package",
			From: in("report"),
			To:   in(measuringRoots...),
		},
		{
			Name:    "engines never import each other",
			From:    func(p string) bool { return engineOf(p) != "" },
			To:      func(d string) bool { return engineOf(d) != "" },
			Allowed: func(p, d string) bool { return engineOf(p) == engineOf(d) },
		},
		{
			Name: "the launcher and the bootstrap import neither aiori nor an engine",
			From: in("internal/launch", "internal/job"),
			To:   func(d string) bool { return under(d, "aiori") || engineOf(d) != "" },
		},
		{
			Name: "the run pipeline imports no engine",
			From: in("internal/run"),
			To:   func(d string) bool { return engineOf(d) != "" },
		},
		{
			Name: "objstore imports neither aiori, an engine nor the pipeline",
			From: in("objstore"),
			To:   func(d string) bool { return under(d, "aiori", "internal/run", "cmd") || engineOf(d) != "" },
		},
		{
			Name: "one package of objstore chooses its concrete transports",
			From: func(p string) bool { return under(p, "objstore") && p != "objstore/transport" },
			To:   in(concreteTransports...),
			// the packages that import objstore/transport reach the
			// transports through it
			Direct: true,
		},
		{
			Name: "nothing imports cmd",
			From: func(p string) bool { return !under(p, "cmd") },
			To:   in("cmd"),
		},
		{
			Name: "the leaves import no package of the module but leaves",
			From: in(leafRoots...),
			To:   func(d string) bool { return !under(d, leafRoots...) },
		},
	}
}

// Check returns one line per dependency that breaks a rule, sorted:
// "package → dependency: rule". deps holds every package's dependencies,
// direct or not (go list's Deps); imports its direct ones (Imports).
func Check(deps, imports Graph, rules []Rule) []string {
	var out []string
	for _, r := range rules {
		g := deps
		if r.Direct {
			g = imports
		}
		for p, ds := range g {
			if !r.From(p) {
				continue
			}
			for _, d := range ds {
				if r.To(d) && (r.Allowed == nil || !r.Allowed(p, d)) {
					out = append(out, fmt.Sprintf("%s → %s: %s", p, d, r.Name))
				}
			}
		}
	}
	slices.Sort(out)
	return out
}
