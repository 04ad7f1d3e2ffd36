package dfs

import (
	"testing"

	"github.com/hpcbench/hpcbench/objstore/engine/enginetest"
)

// TestMain lets this package's test binary stand for hpcbench as the
// engine process a rank starts (engine.ChildCommand): the sessions its
// tests open start os.Executable(), which is this binary.
func TestMain(m *testing.M) { enginetest.Main(m) }
