package posix

import (
	"testing"

	"github.com/hpcbench/hpcbench/aiori"
	"github.com/hpcbench/hpcbench/aiori/aioritest"
)

// maker returns an aioritest constructor of POSIX backends with opts.
func maker(opts Options) func(t *testing.T) aiori.Backend {
	return func(t *testing.T) aiori.Backend {
		o := opts
		b, err := New(&o, aiori.Env{})
		if err != nil {
			t.Fatalf("New(%+v): %v", o, err)
		}
		return b
	}
}

func TestConformance(t *testing.T) {
	aioritest.Run(t, maker(Options{}), nil, tempDirCaps(t))
}

func TestConformanceRangeLocks(t *testing.T) {
	aioritest.Run(t, maker(Options{RangeLocks: true}), nil, tempDirCaps(t))
}

// tempDirCaps returns the caps of the backend on t.TempDir's file system:
// Direct only where O_DIRECT works.
func tempDirCaps(t *testing.T) aioritest.Caps {
	caps := aioritest.Caps{StoresData: true, Metadata: true}
	if err := aioritest.ProbeDirect(t.TempDir()); err != nil {
		t.Logf("the Direct case will skip: %v", err)
	} else {
		caps.Direct = true
	}
	return caps
}

// TestConformanceODirect runs the suite with --posix.odirect, so every
// transfer bypasses the page cache, in the first of the test's temporary
// directory and /var/tmp whose file system accepts O_DIRECT.
func TestConformanceODirect(t *testing.T) {
	parent := directParent(t)
	aioritest.Run(t, maker(Options{ODirect: true}),
		func(t *testing.T) string { return aioritest.TempDir(t, parent) },
		aioritest.Caps{StoresData: true, Metadata: true, Direct: true, AlignedOnly: true})
}

// directParent returns a directory whose file system accepts O_DIRECT, or
// skips the test saying why none does.
func directParent(t testing.TB) string {
	t.Helper()
	var why []error
	for _, dir := range []string{t.TempDir(), "/var/tmp"} {
		err := aioritest.ProbeDirect(dir)
		if err == nil {
			return dir
		}
		why = append(why, err)
	}
	t.Skipf("no directory to test O_DIRECT in: %v", why)
	return ""
}
