package client_test

import (
	"context"
	"fmt"
	"sync"

	"github.com/hpcbench/hpcbench/objstore/client"
	"github.com/hpcbench/hpcbench/objstore/engine"
	"github.com/hpcbench/hpcbench/objstore/object"
	"github.com/hpcbench/hpcbench/objstore/object/memobj"
	"github.com/hpcbench/hpcbench/objstore/transport"
)

// An engine serving an in-memory pool on rank 0, and a client on rank 1
// that creates a container and writes and reads through it.
func Example() {
	tr, err := transport.SHM()
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer wg.Wait() // for Serve, after stop
	defer stop()
	l, err := tr.Listen(ctx, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	wg.Go(func() { engine.Serve(ctx, l, memobj.NewPool(), engine.ServerOptions{Alloc: tr}) })

	cl, err := client.Dial(ctx, tr, l.Addr(), client.ClientOptions{Rank: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer cl.Close()
	if err := cl.CreateCont(ctx, "ior", object.ContProps{}); err != nil {
		fmt.Println(err)
		return
	}
	cont, err := cl.OpenCont(ctx, "ior")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer cont.Close()

	file := object.Array{OID: object.NewOID(object.SX, 1024), ChunkSize: cont.Props().ChunkSize}
	buf := cl.Alloc(1 << 20) // from the arena: one copy to the engine
	defer cl.Free(buf)
	copy(buf, "hello, engine")
	if err := cont.WriteArray(ctx, file, 0, buf, 0); err != nil {
		fmt.Println(err)
		return
	}
	got := make([]byte, 13)
	n, err := cont.ReadArray(ctx, file, 0, got, 0)
	size, _ := cont.ArraySize(ctx, file)
	fmt.Printf("%d %q %v, size %d\n", n, got, err, size)
	_, err = cont.Get(ctx, file.OID, "no", "such")
	fmt.Println(object.IsNotExist(err))
	// Output:
	// 13 "hello, engine" <nil>, size 1048576
	// true
}
