package deprules

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// load reads the module's import graph with go list -deps: every
// package's dependencies (Deps) and imports (Imports) within the module,
// relative to Module.
func load(t *testing.T) (deps, imports Graph) {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to read the import graph: %v", err)
	}
	cmd := exec.Command(goBin, "list", "-deps", "-f", "{{.ImportPath}}\t{{join .Deps \" \"}}\t{{join .Imports \" \"}}", Module+"/...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps: %v: %s", err, stderr.String())
	}
	rel := func(list string) []string {
		var ps []string
		for _, p := range strings.Fields(list) {
			if r, ok := strings.CutPrefix(p, Module+"/"); ok {
				ps = append(ps, r)
			}
		}
		return ps
	}
	deps, imports = Graph{}, Graph{}
	for _, line := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 3 {
			t.Fatalf("go list: unexpected line %q", line)
		}
		p, ok := strings.CutPrefix(f[0], Module+"/")
		if !ok {
			continue // the standard library and other modules
		}
		deps[p], imports[p] = rel(f[1]), rel(f[2])
	}
	if len(deps) < 20 {
		t.Fatalf("go list found %d packages of %s: want the whole module", len(deps), Module)
	}
	return deps, imports
}

// TestModule checks the module's real import graph against every rule.
func TestModule(t *testing.T) {
	deps, imports := load(t)
	for _, v := range Check(deps, imports, Rules()) {
		t.Error(v)
	}
	for _, must := range []string{"pmi", "fabric", "aiori", "report", "collectives", "internal/run", "internal/ior", "cmd/hpcbench"} {
		if _, ok := deps[must]; !ok {
			t.Errorf("the graph has no package %s: the rules would check nothing there", must)
		}
	}
}

// TestRules shows each rule catching the import it forbids, and letting
// its exceptions through, on small graphs.
func TestRules(t *testing.T) {
	for _, c := range []struct {
		name    string
		deps    Graph // also the imports
		wantBad []string
	}{
		{"allowed layout", Graph{
			"objstore/client": {"fabric", "objstore/object"}, "aiori/dfs": {"aiori", "objstore/client", "fabric"},
			"collectives": {"fabric"}, "report": {"internal/units"}, "internal/ior": {"aiori", "collectives", "report", "internal/run", "internal/pattern"},
			"internal/run": {"internal/job", "report"}, "internal/launch": {"pmi", "internal/exitcode"}, "cmd/hpcbench": {"internal/ior", "internal/mdtest"},
		}, nil},
		{"peer imports peer", Graph{"report": {"fabric"}, "pmi": {"aiori"}, "fabric": {"objstore"}}, []string{
			"fabric → objstore: pmi, fabric",
			"pmi → aiori: pmi, fabric",
			"report → fabric: pmi, fabric",
			"report → fabric: report imports no measuring package",
		}},
		{"report imports a measuring package", Graph{"report/plot": {"internal/ior"}}, []string{
			"report/plot → internal/ior: report imports no measuring package",
			"report/plot → internal/ior: the peers import no internal package",
		}},
		{"collectives beyond fabric", Graph{"collectives": {"pmi"}}, []string{"collectives → pmi: collectives imports only fabric"}},
		{"engine imports engine", Graph{"internal/ior": {"internal/mdtest/config"}, "internal/io500": {"internal/ior"}}, []string{
			"internal/io500 → internal/ior: engines never import each other",
			"internal/ior → internal/mdtest/config: engines never import each other",
		}},
		{"launcher imports aiori", Graph{"internal/launch": {"aiori"}, "internal/job": {"internal/ior/config"}}, []string{
			"internal/job → internal/ior/config: the launcher and the bootstrap",
			"internal/launch → aiori: the launcher and the bootstrap",
		}},
		{"pipeline imports an engine", Graph{"internal/run": {"internal/fabtest"}}, []string{"internal/run → internal/fabtest: the run pipeline imports no engine"}},
		{"objstore imports aiori", Graph{"objstore/engine": {"aiori"}}, []string{
			"objstore/engine → aiori: objstore imports neither",
			"objstore/engine → aiori: pmi, fabric",
		}},
		{"objstore names a transport twice", Graph{"objstore/engine": {"fabric/tcp"}, "objstore/transport": {"fabric/tcp", "fabric/shm"}}, []string{
			"objstore/engine → fabric/tcp: one package of objstore chooses",
		}},
		{"something imports cmd", Graph{"internal/run": {"cmd/hpcbench"}}, []string{"internal/run → cmd/hpcbench: nothing imports cmd"}},
		{"a leaf imports a layer", Graph{"internal/units": {"report"}}, []string{"internal/units → report: the leaves"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := Check(c.deps, c.deps, Rules())
			if len(got) != len(c.wantBad) {
				t.Fatalf("Check found %d violations, want %d:\n%s", len(got), len(c.wantBad), strings.Join(got, "\n"))
			}
			want := slices.Clone(c.wantBad)
			slices.Sort(want)
			for i, w := range want {
				if !strings.HasPrefix(got[i], w) {
					t.Errorf("violation %d = %q, want it to start %q", i, got[i], w)
				}
			}
		})
	}
}

// TestArchitectureNamesEveryPackage keeps docs/architecture.md true with
// the code: every package of the module is named there, as `path`.
func TestArchitectureNamesEveryPackage(t *testing.T) {
	deps, _ := load(t)
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	for p := range deps {
		if !strings.Contains(string(doc), "`"+p+"`") {
			t.Errorf("docs/architecture.md does not name package %s (as `%s`): say what it owns", p, p)
		}
	}
}
