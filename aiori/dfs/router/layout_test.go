package router_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hpcbench/hpcbench/aiori/dfs/object"
	"github.com/hpcbench/hpcbench/aiori/dfs/router"
)

// record returns the layout record in pool p's container "c", or "".
func record(t *testing.T, p *fakePool) string {
	t.Helper()
	v, err := memberCont(t, p).Get(context.Background(), router.LayoutOID(), "layout", "engines")
	if object.IsNotExist(err) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(v)
}

// create makes container "c" in each of pools directly, past any router.
func create(t *testing.T, pools ...*fakePool) {
	t.Helper()
	for _, p := range pools {
		if err := p.Pool.CreateCont(context.Background(), "c", object.ContProps{}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestLayoutRecord checks that CreateCont records the pool map and that
// OpenCont refuses a container laid out over other engines.
func TestLayoutRecord(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		// setup makes the pools and the container in them, and returns
		// the pools the router opens it with.
		setup   func(t *testing.T) []*fakePool
		wantErr []string // what the error says; nil: OpenCont succeeds
		wantRec string   // the record after OpenCont
	}{
		{"same engines", func(t *testing.T) []*fakePool {
			pools := newPools(1, 1)
			mustCreate(t, pools)
			return pools
		}, nil, "v1 N=2 targets=1,1 hosts=h0,h1"},
		{"two engines, then three", func(t *testing.T) []*fakePool {
			pools := newPools(1, 1, 1)
			mustCreate(t, pools[:2])
			create(t, pools[2])
			return pools
		}, []string{"container c was laid out over 2 engine(s) with targets [1 1] (hosts h0,h1)",
			"this job has 3 engine(s) with targets [1 1 1] (hosts h0,h1,h2)", "misplaced"}, "v1 N=2 targets=1,1 hosts=h0,h1"},
		{"other target counts", func(t *testing.T) []*fakePool {
			pools := newPools(3, 2)
			mustCreate(t, pools)
			pools[0].targets, pools[1].targets = 2, 3
			return pools
		}, []string{"targets [3 2]", "targets [2 3]"}, "v1 N=5 targets=3,2 hosts=h0,h1"},
		{"no record, two engines, an object", func(t *testing.T) []*fakePool {
			pools := newPools(1, 1)
			create(t, pools...)
			if err := memberCont(t, pools[0]).Put(ctx, object.NewOID(object.S1, 0), "d", "a", nil); err != nil {
				t.Fatal(err)
			}
			return pools
		}, []string{"laid out over one engine", "targets [1 1]"}, ""},
		{"no record, two engines, empty", func(t *testing.T) []*fakePool {
			pools := newPools(1, 1)
			create(t, pools...)
			return pools
		}, nil, "v1 N=2 targets=1,1 hosts=h0,h1"},
		{"no record, one engine, an object", func(t *testing.T) []*fakePool {
			pools := newPools(4)
			create(t, pools...)
			if err := memberCont(t, pools[0]).Put(ctx, object.NewOID(object.S1, 0), "d", "a", nil); err != nil {
				t.Fatal(err)
			}
			return pools
		}, nil, ""},
		{"one engine", func(t *testing.T) []*fakePool {
			pools := newPools(4)
			mustCreate(t, pools)
			return pools
		}, nil, "v1 N=4 targets=4 hosts=h0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pools := tc.setup(t)
			c, err := newRouter(t, pools).OpenCont(ctx, "c")
			switch {
			case tc.wantErr == nil && err != nil:
				t.Fatalf("OpenCont: %v", err)
			case tc.wantErr != nil && (!errors.Is(err, object.ErrInvalid) || c != nil):
				t.Fatalf("OpenCont = %v, %v; want an error wrapping ErrInvalid", c, err)
			}
			for _, s := range tc.wantErr {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("OpenCont's error %q does not say %q", err, s)
				}
			}
			if len(pools) == 1 && c != nil && c != memberCont(t, pools[0]) {
				t.Errorf("OpenCont with one engine = %T; want the member's container itself", c)
			}
			if got := record(t, pools[0]); got != tc.wantRec {
				t.Errorf("layout record = %q; want %q", got, tc.wantRec)
			}
		})
	}
}

// mustCreate makes container "c" through a router over pools.
func mustCreate(t *testing.T, pools []*fakePool) {
	t.Helper()
	if err := newRouter(t, pools).CreateCont(context.Background(), "c", object.ContProps{}); err != nil {
		t.Fatalf("CreateCont: %v", err)
	}
}

// TestCreateOverOtherLayout adds an engine to a container's engines:
// CreateCont makes it on the new one, and refuses the old record.
func TestCreateOverOtherLayout(t *testing.T) {
	pools := newPools(1, 1, 1)
	mustCreate(t, pools[:2])
	err := newRouter(t, pools).CreateCont(context.Background(), "c", object.ContProps{})
	if !errors.Is(err, object.ErrInvalid) || !strings.Contains(err.Error(), "targets [1 1]") {
		t.Errorf("CreateCont over another layout: %v; want ErrInvalid naming targets [1 1]", err)
	}
	if got := record(t, pools[0]); got != "v1 N=2 targets=1,1 hosts=h0,h1" {
		t.Errorf("layout record = %q; want the first one kept", got)
	}
}
