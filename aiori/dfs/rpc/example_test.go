package rpc_test

import (
	"context"
	"fmt"
	"sync"

	"github.com/hpcbench/hpcbench/aiori/dfs/rpc"
	"github.com/hpcbench/hpcbench/fabric/shm"
	"github.com/hpcbench/hpcbench/objstore/object"
	"github.com/hpcbench/hpcbench/objstore/object/memobj"
)

// An engine serving an in-memory pool on rank 0, and a client on rank 1
// that creates a container and writes and reads through it.
func Example() {
	tr, err := shm.New(shm.DefaultOptions())
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
	wg.Go(func() { rpc.Serve(ctx, l, memobj.NewPool(), rpc.ServerOptions{Alloc: tr}) })

	client, err := rpc.Dial(ctx, tr, l.Addr(), rpc.ClientOptions{Rank: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer client.Close()
	if err := client.CreateCont(ctx, "ior", object.ContProps{}); err != nil {
		fmt.Println(err)
		return
	}
	cont, err := client.OpenCont(ctx, "ior")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer cont.Close()

	file := object.Array{OID: object.NewOID(object.SX, 1024), ChunkSize: cont.Props().ChunkSize}
	buf := client.Alloc(1 << 20) // from the arena: one copy to the engine
	defer client.Free(buf)
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
