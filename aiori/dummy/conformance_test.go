package dummy

import (
	"testing"

	"github.com/hpcbench/hpcbench/aiori"
	"github.com/hpcbench/hpcbench/aiori/aioritest"
)

// caps are DUMMY's: nothing is stored, the metadata calls exist.
var caps = aioritest.Caps{StoresData: false, Metadata: true}

func TestConformance(t *testing.T) {
	aioritest.Run(t, func(t *testing.T) aiori.Backend {
		b, err := New(DefaultOptions(), aiori.Env{})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}, nil, caps)
}

// TestConformanceWithDelays runs the suite with every delay set to 1 µs,
// so that the sleeping paths run too.
func TestConformanceWithDelays(t *testing.T) {
	aioritest.Run(t, func(t *testing.T) aiori.Backend {
		b, err := New(&Options{DelayCreate: 1, DelayClose: 1, DelaySync: 1, DelayXfer: 1}, aiori.Env{})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}, nil, caps)
}
