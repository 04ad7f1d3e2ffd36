package mmap

import (
	"testing"

	"github.com/hpcbench/hpcbench/aiori"
	"github.com/hpcbench/hpcbench/aiori/aioritest"
)

// maker returns an aioritest constructor of MMAP backends with opts.
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

// caps are MMAP's: real data, no metadata, and aiori.Direct ignored.
var caps = aioritest.Caps{StoresData: true}

func TestConformance(t *testing.T) {
	aioritest.Run(t, maker(Options{}), nil, caps)
}

func TestConformanceWithAdvice(t *testing.T) {
	aioritest.Run(t, maker(Options{MadvDontNeed: true, MadvPattern: true}), nil, caps)
}
