package engine_test

import (
	"testing"

	"github.com/hpcbench/hpcbench/objstore/engine/enginetest"
)

// TestMain lets this package's test binary stand for hpcbench as the
// engine process a rank starts (ChildCommand): the tests' StartChild
// start os.Executable(), which is this binary.
func TestMain(m *testing.M) { enginetest.Main(m) }
