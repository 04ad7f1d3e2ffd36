package namespace_test

import (
	"context"
	"fmt"
	"io"

	"github.com/hpcbench/hpcbench/objstore/namespace"
	"github.com/hpcbench/hpcbench/objstore/object"
	"github.com/hpcbench/hpcbench/objstore/object/memobj"
)

// Rank 0 creates a shared file and hands its handle to another rank, which
// reads what rank 0 wrote.
func Example() {
	ctx := context.Background()
	cont, err := memobj.New(object.ContProps{ChunkSize: 4096})
	if err != nil {
		panic(err)
	}
	rank0, err := namespace.Mount(ctx, cont, namespace.Options{})
	if err != nil {
		panic(err)
	}
	if err := rank0.MkdirAll(ctx, "/ior/run1", 0o755); err != nil {
		panic(err)
	}
	f, err := rank0.Create(ctx, "/ior/run1/testfile", 0o644, namespace.Excl)
	if err != nil {
		panic(err)
	}
	if _, err := f.WriteAt(ctx, []byte("hello"), 4094); err != nil { // across a chunk boundary
		panic(err)
	}
	handle := f.Handle() // broadcast to the other ranks

	rank1, err := namespace.Mount(ctx, cont, namespace.Options{})
	if err != nil {
		panic(err)
	}
	g, err := rank1.OpenHandle(handle)
	if err != nil {
		panic(err)
	}
	buf := make([]byte, 8)
	n, err := g.ReadAt(ctx, buf, 4094)
	fmt.Printf("%q %v\n", buf[:n], err == io.EOF)
	info, err := rank1.Stat(ctx, "/ior/run1/testfile")
	if err != nil {
		panic(err)
	}
	fmt.Println(info.Size, info.Mode)
	// Output:
	// "hello" true
	// 4099 -rw-r--r--
}
