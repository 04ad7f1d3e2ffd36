package router_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hpcbench/hpcbench/objstore/client/router"
	"github.com/hpcbench/hpcbench/objstore/object"
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

// TestPart: each member's container of a container made over several
// engines says which part it is; one made over one engine, or one whose
// members record no parts (made before they were recorded: member 0 has
// the layout, the others nothing), says what it can.
func TestPart(t *testing.T) {
	ctx := context.Background()
	part := func(t *testing.T, p *fakePool) (string, error) {
		t.Helper()
		return router.Part(ctx, memberCont(t, p))
	}
	pools := newPools(3, 2)
	mustCreate(t, pools)
	for m, want := range []string{"engine 0 of 2 engine(s) with targets [3 2] (hosts h0,h1)", "engine 1 of 2 engine(s) with targets [3 2] (hosts h0,h1)"} {
		if got, err := part(t, pools[m]); err != nil || got != want {
			t.Errorf("member %d: Part = %q, %v; want %q", m, got, err, want)
		}
	}
	// Opening it again records nothing new and changes no part.
	if _, err := newRouter(t, pools).OpenCont(ctx, "c"); err != nil {
		t.Fatal(err)
	}
	if got, _ := part(t, pools[1]); !strings.HasPrefix(got, "engine 1 of 2") {
		t.Errorf("member 1 after OpenCont: Part = %q", got)
	}

	one := newPools(4)
	mustCreate(t, one)
	if got, err := part(t, one[0]); err != nil || got != "" {
		t.Errorf("one engine: Part = %q, %v; want \"\"", got, err)
	}

	old := newPools(1, 1)
	create(t, old...)
	if err := memberCont(t, old[0]).Put(ctx, router.LayoutOID(), "layout", "engines", []byte("v1 N=2 targets=1,1 hosts=a,b")); err != nil {
		t.Fatal(err)
	}
	if got, err := part(t, old[0]); err != nil || got != "engine 0 of 2 engine(s) with targets [1 1] (hosts a,b)" {
		t.Errorf("recorded before parts, member 0: Part = %q, %v", got, err)
	}
	if got, err := part(t, old[1]); err != nil || got != "" {
		t.Errorf("recorded before parts, member 1: Part = %q, %v; want \"\"", got, err)
	}
	if err := memberCont(t, old[0]).Put(ctx, router.LayoutOID(), "layout", "member", []byte("7")); err != nil {
		t.Fatal(err)
	}
	if _, err := part(t, old[0]); !errors.Is(err, object.ErrInvalid) {
		t.Errorf("member 7 of 2: Part error %v; want ErrInvalid", err)
	}
}
