package collectives

import (
	"fmt"
	"testing"
)

func BenchmarkReduceLocal(b *testing.B) {
	const size = 4 << 20
	for _, dt := range []Datatype{Float32, Float64, Int32, Byte} {
		for _, op := range Ops() {
			b.Run(fmt.Sprintf("%s/%s", dt, op), func(b *testing.B) {
				x, y := make([]byte, size), make([]byte, size)
				b.SetBytes(size)
				for b.Loop() {
					reduceLocal(dt, op, x, y)
				}
			})
		}
	}
	b.Run("unaligned/float32/sum", func(b *testing.B) {
		x, y := make([]byte, size+1), make([]byte, size+1)
		b.SetBytes(size)
		for b.Loop() {
			reduceLocal(Float32, Sum, x[1:], y[1:])
		}
	})
	b.Run("memmove", func(b *testing.B) {
		x, y := make([]byte, size), make([]byte, size)
		b.SetBytes(size)
		for b.Loop() {
			copy(x, y)
		}
	})
}
