package pattern_test

import (
	"testing"

	"github.com/hpcbench/hpcbench/internal/pattern"
)

const benchSize = 1 << 20

func BenchmarkFill(b *testing.B) {
	for _, ty := range allTypes {
		b.Run(ty.String(), func(b *testing.B) {
			buf := make([]byte, benchSize)
			b.SetBytes(benchSize)
			for i := 0; b.Loop(); i++ {
				pattern.Fill(buf, ty, 3, 1600000000, int64(i)*benchSize)
			}
		})
	}
}

func BenchmarkStamp(b *testing.B) {
	for _, ty := range allTypes {
		b.Run(ty.String(), func(b *testing.B) {
			buf := make([]byte, benchSize)
			pattern.Fill(buf, ty, 3, 1600000000, 0)
			b.SetBytes(benchSize)
			for i := 0; b.Loop(); i++ {
				pattern.Stamp(buf, ty, 3, 1600000000, int64(i)*benchSize)
			}
		})
	}
}

func BenchmarkVerify(b *testing.B) {
	for _, ty := range allTypes {
		b.Run(ty.String(), func(b *testing.B) {
			buf := make([]byte, benchSize)
			pattern.Fill(buf, ty, 3, 1600000000, 1<<30)
			b.SetBytes(benchSize)
			for b.Loop() {
				if bad, _ := pattern.Verify(buf, ty, 3, 1600000000, 1<<30); bad != 0 {
					b.Fatal("mismatch")
				}
			}
		})
	}
}

func BenchmarkPoison(b *testing.B) {
	buf := make([]byte, benchSize)
	b.SetBytes(benchSize)
	for b.Loop() {
		pattern.Poison(buf)
	}
}
