package store

import (
	"context"
	"strconv"
	"testing"

	"github.com/hpcbench/hpcbench/objstore/object"
)

// inode is a value the size of DFS's packed inode record.
var inode = make([]byte, 100)

func BenchmarkKV(b *testing.B) {
	ctx := context.Background()
	for _, sync := range []bool{false, true} {
		name := func(op string) string { return op + "/SyncKV=" + strconv.FormatBool(sync) }
		b.Run(name("Put"), func(b *testing.B) {
			c := newCont(b, newPool(b, 4, Options{SyncKV: sync}), "c", object.ContProps{})
			defer c.Close()
			oid := object.NewOID(object.S1, 2000)
			for i := 0; b.Loop(); i++ {
				if err := c.Put(ctx, oid, strconv.Itoa(i), "DFS_INODE", inode); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name("InsertRemove"), func(b *testing.B) {
			c := newCont(b, newPool(b, 4, Options{SyncKV: sync}), "c", object.ContProps{})
			defer c.Close()
			oid := object.NewOID(object.S1, 2000)
			for i := 0; b.Loop(); i++ {
				k := strconv.Itoa(i)
				if err := c.Insert(ctx, oid, k, "DFS_INODE", inode); err != nil {
					b.Fatal(err)
				}
				if err := c.Remove(ctx, oid, k); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name("PutParallel"), func(b *testing.B) {
			c := newCont(b, newPool(b, 4, Options{SyncKV: sync}), "c", object.ContProps{})
			defer c.Close()
			b.RunParallel(func(pb *testing.PB) {
				oid, err := c.AllocOIDs(ctx, object.S1, 1)
				if err != nil {
					b.Error(err)
					return
				}
				for i := 0; pb.Next(); i++ {
					if err := c.Put(ctx, oid, strconv.Itoa(i), "DFS_INODE", inode); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
	b.Run("ListPage100of100k", func(b *testing.B) {
		c := newCont(b, newPool(b, 4, Options{}), "c", object.ContProps{})
		defer c.Close()
		oid := object.NewOID(object.S1, 2000)
		for i := range 100000 {
			if err := c.Put(ctx, oid, strconv.Itoa(i), "DFS_INODE", inode); err != nil {
				b.Fatal(err)
			}
		}
		anchor := ""
		for b.Loop() {
			keys, next, err := c.List(ctx, oid, anchor, 100)
			if err != nil || len(keys) == 0 {
				b.Fatal(keys, err)
			}
			anchor = next
		}
	})
	b.Run("Get", func(b *testing.B) {
		c := newCont(b, newPool(b, 4, Options{}), "c", object.ContProps{})
		defer c.Close()
		oid := object.NewOID(object.S1, 2000)
		const n = 10000
		for i := range n {
			if err := c.Put(ctx, oid, strconv.Itoa(i), "DFS_INODE", inode); err != nil {
				b.Fatal(err)
			}
		}
		for i := 0; b.Loop(); i++ {
			if _, err := c.Get(ctx, oid, strconv.Itoa(i%n), "DFS_INODE"); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkSmallFile reads and sizes files of 3901 bytes (mdtest -w 3901
// -e 3901) striped SX over 4 targets: one chunk, so three targets hold
// nothing of each.
func BenchmarkSmallFile(b *testing.B) {
	ctx := context.Background()
	c := newCont(b, newPool(b, 4, Options{}), "c", object.ContProps{})
	defer c.Close()
	const files = 1000
	buf := make([]byte, 3901)
	arr := func(i int) object.Array {
		return object.Array{OID: object.NewOID(object.SX, uint64(2000+i%files)), ChunkSize: 1 << 20}
	}
	for i := range files {
		if err := c.WriteArray(ctx, arr(i), 0, buf, 0); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("Read", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if _, err := c.ReadArray(ctx, arr(i), 0, buf, 0); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("ArraySize", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if _, err := c.ArraySize(ctx, arr(i)); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkArray(b *testing.B) {
	ctx := context.Background()
	for _, size := range []int{4 << 10, 1 << 20} {
		for _, op := range []string{"Write", "Read"} {
			b.Run(op+"/"+strconv.Itoa(size>>10)+"KiB", func(b *testing.B) {
				c := newCont(b, newPool(b, 4, Options{}), "c", object.ContProps{})
				defer c.Close()
				a := object.Array{OID: object.NewOID(object.SX, 2000), ChunkSize: 1 << 20}
				buf := make([]byte, size)
				const span = 64 << 20 // the offsets cycle through 64 MiB
				if op == "Read" {
					for off := int64(0); off < span; off += int64(len(buf)) {
						if err := c.WriteArray(ctx, a, off, buf, 0); err != nil {
							b.Fatal(err)
						}
					}
				}
				b.SetBytes(int64(size))
				for i := 0; b.Loop(); i++ {
					off := int64(i*size) % span
					var err error
					if op == "Write" {
						err = c.WriteArray(ctx, a, off, buf, 0)
					} else {
						_, err = c.ReadArray(ctx, a, off, buf, 0)
					}
					if err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
