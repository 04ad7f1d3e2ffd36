//go:build unix

package aiori

import (
	"testing"

	"golang.org/x/sys/unix"
)

func TestUnixFlags(t *testing.T) {
	for _, c := range []struct {
		f    OpenFlags
		want int
	}{
		{0, unix.O_RDWR},
		{ReadOnly, unix.O_RDONLY},
		{WriteOnly | Create | Excl, unix.O_WRONLY | unix.O_CREAT | unix.O_EXCL},
		{ReadWrite | Trunc | Direct, unix.O_RDWR | unix.O_TRUNC},
	} {
		got, err := c.f.UnixFlags()
		if err != nil || got != c.want|unix.O_CLOEXEC {
			t.Errorf("%#x.UnixFlags() = %#x, %v; want %#x", uint32(c.f), got, err, c.want|unix.O_CLOEXEC)
		}
	}
	if _, err := (ReadOnly | WriteOnly).UnixFlags(); err == nil {
		t.Error("two access modes accepted")
	}
}

func TestHintStore(t *testing.T) {
	var s HintStore
	if s.Hints() != (Hints{}) {
		t.Error("zero HintStore holds hints")
	}
	var _ Hinter = &s
	s.SetHints(Hints{Rank: 3, BlockSize: 1 << 20})
	if h := s.Hints(); h.Rank != 3 || h.BlockSize != 1<<20 {
		t.Errorf("Hints() = %+v", h)
	}
}
