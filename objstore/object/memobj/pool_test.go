package memobj

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/hpcbench/hpcbench/objstore/object"
)

// TestPoolErrors checks each Pool call's error on the conditions the
// object API names.
func TestPoolErrors(t *testing.T) {
	ctx := context.Background()
	p := NewPool()
	if err := p.CreateCont(ctx, "a", object.ContProps{}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		call func() error
		want error
	}{
		{"create twice", func() error { return p.CreateCont(ctx, "a", object.ContProps{}) }, object.ErrExist},
		{"create empty label", func() error { return p.CreateCont(ctx, "", object.ContProps{}) }, object.ErrInvalid},
		{"create bad chunk", func() error { return p.CreateCont(ctx, "b", object.ContProps{ChunkSize: 1}) }, object.ErrInvalid},
		{"create bad class", func() error { return p.CreateCont(ctx, "b", object.ContProps{OClass: 3}) }, object.ErrInvalid},
		{"open missing", func() error { _, err := p.OpenCont(ctx, "nope"); return err }, object.ErrNotExist},
		{"query missing", func() error { _, err := p.QueryCont(ctx, "nope"); return err }, object.ErrNotExist},
		{"destroy missing", func() error { return p.DestroyCont(ctx, "nope") }, object.ErrNotExist},
		{"open", func() error { _, err := p.OpenCont(ctx, "a"); return err }, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.call(); !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
				t.Errorf("got %v, want %v", err, tc.want)
			}
		})
	}
}

// TestPoolContainers checks that handles of one label share a container,
// that QueryCont counts its objects and bytes, and that ListConts and
// DestroyCont keep the labels.
func TestPoolContainers(t *testing.T) {
	ctx := context.Background()
	p := NewPool()
	for _, l := range []string{"b", "a", "c"} {
		if err := p.CreateCont(ctx, l, object.ContProps{ChunkSize: 8192}); err != nil {
			t.Fatal(err)
		}
	}
	c1, _ := p.OpenCont(ctx, "a")
	c2, _ := p.OpenCont(ctx, "a")
	oid := object.NewOID(object.S1, 5)
	if err := c1.Put(ctx, oid, "d", "a", []byte("v")); err != nil {
		t.Fatal(err)
	}
	if v, err := c2.Get(ctx, oid, "d", "a"); err != nil || string(v) != "v" {
		t.Errorf("Get through a second handle = %q, %v", v, err)
	}
	if err := c1.WriteArray(ctx, object.Array{OID: object.NewOID(object.S2, 6), ChunkSize: 8192}, 100, make([]byte, 900), 0); err != nil {
		t.Fatal(err)
	}
	info, err := p.QueryCont(ctx, "a")
	want := object.ContInfo{Label: "a", UUID: info.UUID, Props: object.ContProps{ChunkSize: 8192, OClass: object.SX, DirOClass: object.S1}, Objects: 2, ArrayBytes: 1000}
	if err != nil || info != want || len(info.UUID) != 36 {
		t.Errorf("QueryCont = %+v, %v; want %+v with a UUID", info, err, want)
	}
	if err := p.DestroyCont(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	if ls, err := p.ListConts(ctx); err != nil || !slices.Equal(ls, []string{"a", "c"}) {
		t.Errorf("ListConts = %q, %v; want [a c]", ls, err)
	}
	if pi, err := p.Query(ctx); err != nil || len(pi.Targets) != 1 || len(pi.UUID) != 36 {
		t.Errorf("Query = %+v, %v; want one target and a UUID", pi, err)
	}
}
