package router_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hpcbench/hpcbench/objstore/client/router"
	"github.com/hpcbench/hpcbench/objstore/object"
	"github.com/hpcbench/hpcbench/objstore/object/memobj"
)

// TestNewRefuses checks New's arguments.
func TestNewRefuses(t *testing.T) {
	for _, tc := range []struct {
		name    string
		members []router.Member
	}{
		{"no members", nil},
		{"no targets", []router.Member{{Pool: memobj.NewPool(), Targets: 1}, {Pool: memobj.NewPool(), Host: "h1"}}},
		{"no pool", []router.Member{{Targets: 1}}},
	} {
		if _, err := router.New(tc.members); !errors.Is(err, object.ErrInvalid) {
			t.Errorf("New with %s: %v; want ErrInvalid", tc.name, err)
		}
	}
}

// TestQuery checks that Query lists every engine's targets engine-major,
// their paths prefixed with their hosts when there are several engines,
// under engine 0's UUID.
func TestQuery(t *testing.T) {
	ctx := context.Background()
	pools := newPools(2, 3)
	members := []router.Member{{Pool: pools[0], Host: "h0", Targets: 2}, {Pool: pools[1], Targets: 3}}
	r, err := router.New(members)
	if err != nil {
		t.Fatal(err)
	}
	pi, err := r.Query(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := pools[0].Query(ctx)
	var paths []string
	for i, tg := range pi.Targets {
		if tg.Index != i {
			t.Errorf("target %d has index %d", i, tg.Index)
		}
		paths = append(paths, tg.Path)
	}
	if wantPaths := []string{"h0:/tgt0", "h0:/tgt1", "/tgt0", "/tgt1", "/tgt2"}; !slices.Equal(paths, wantPaths) || pi.UUID != want.UUID {
		t.Errorf("Query = %s %q; want %s %q", pi.UUID, paths, want.UUID, wantPaths)
	}

	// One engine: its paths as they are, whatever its host.
	one, err := router.New(members[:1])
	if err != nil {
		t.Fatal(err)
	}
	if pi, err := one.Query(ctx); err != nil || len(pi.Targets) != 2 || pi.Targets[0].Path != "/tgt0" {
		t.Errorf("Query of one engine on h0 = %+v, %v; want its 2 targets, paths without the host", pi, err)
	}

	members[1].Targets = 2 // the engine has 3
	r, _ = router.New(members)
	if _, err := r.Query(ctx); !errors.Is(err, object.ErrInvalid) {
		t.Errorf("Query of an engine with other targets than counted: %v; want ErrInvalid", err)
	}
}

// TestContainers checks the pool calls' rules over members that have the
// container and members that lack it.
func TestContainers(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		have    []bool // which members have "c" before the call
		call    func(r *router.Pool) error
		want    error
		wantMsg string
	}{
		{"create on none", []bool{false, false}, createC, nil, ""},
		{"create on some", []bool{true, false}, createC, nil, ""},
		{"create on all", []bool{true, true}, createC, object.ErrExist, ""},
		{"destroy on all", []bool{true, true}, destroyC, nil, ""},
		{"destroy on some", []bool{false, true}, destroyC, nil, ""},
		{"destroy on none", []bool{false, false}, destroyC, object.ErrNotExist, ""},
		{"open on some", []bool{true, false}, openC, object.ErrNotExist, "engine 1 (host h1)"},
		{"query on some", []bool{true, false}, queryC, object.ErrNotExist, "engine 1 (host h1)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pools := newPools(1, 1)
			for m, have := range tc.have {
				if have {
					create(t, pools[m])
				}
			}
			err := tc.call(newRouter(t, pools))
			if !errors.Is(err, tc.want) || (err == nil) != (tc.want == nil) || tc.wantMsg != "" && !strings.Contains(err.Error(), tc.wantMsg) {
				t.Fatalf("got %v; want %v saying %q", err, tc.want, tc.wantMsg)
			}
			if tc.want != nil {
				return
			}
			for m, p := range pools {
				labels, _ := p.ListConts(ctx)
				if created := strings.HasPrefix(tc.name, "create"); slices.Contains(labels, "c") != created {
					t.Errorf("member %d has containers %q after %s", m, labels, tc.name)
				}
			}
		})
	}
}

// The calls TestContainers makes on container "c".
var (
	createC  = func(r *router.Pool) error { return r.CreateCont(context.Background(), "c", object.ContProps{}) }
	destroyC = func(r *router.Pool) error { return r.DestroyCont(context.Background(), "c") }
	queryC   = func(r *router.Pool) error { _, err := r.QueryCont(context.Background(), "c"); return err }
	openC    = func(r *router.Pool) error { _, err := r.OpenCont(context.Background(), "c"); return err }
)

// TestQueryCont checks that QueryCont sums the members' objects and bytes
// under engine 0's info, and ListConts lists engine 0's labels.
func TestQueryCont(t *testing.T) {
	ctx := context.Background()
	pools, r, c := newCont(t, object.ContProps{ChunkSize: cs}, 1, 1, 1)
	oid, err := c.AllocOIDs(ctx, object.SX, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.WriteArray(ctx, object.Array{OID: oid, ChunkSize: cs}, 0, pattern(0, 3*cs), 0); err != nil {
		t.Fatal(err)
	}
	ci, err := r.QueryCont(ctx, "c")
	want, _ := pools[0].QueryCont(ctx, "c")
	// 3 members hold a chunk each of the array, and each its layout record.
	want.Objects, want.ArrayBytes = 6, 3*cs // each member's chunk is its local chunk 0: no holes
	if err != nil || ci != want {
		t.Errorf("QueryCont = %+v, %v; want %+v", ci, err, want)
	}
	if labels, err := r.ListConts(ctx); err != nil || fmt.Sprint(labels) != "[c]" {
		t.Errorf("ListConts = %q, %v; want [c]", labels, err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("Container.Close: %v", err)
	}
	if err := r.Close(); err != nil {
		t.Errorf("Pool.Close: %v", err)
	}
}
