package dummy

import (
	"bytes"
	"errors"
	"io/fs"
	"strings"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/aiori"
)

// newTestBackend returns a DUMMY backend with opts for rank.
func newTestBackend(t testing.TB, opts Options, rank int) *Backend {
	t.Helper()
	b, err := New(&opts, aiori.Env{Rank: rank, Size: 4})
	if err != nil {
		t.Fatal(err)
	}
	return b.(*Backend)
}

func TestEntry(t *testing.T) {
	e := Entry()
	if e.Name != "DUMMY" || !e.Metadata {
		t.Errorf("Entry() = %q, Metadata %v; want DUMMY, true", e.Name, e.Metadata)
	}
	b, err := e.New(e.NewOptions(), aiori.Env{})
	if err != nil {
		t.Fatal(err)
	}
	if b.Name() != "DUMMY" || b.Version() != "" {
		t.Errorf("Name, Version = %q, %q; want DUMMY, empty", b.Name(), b.Version())
	}
	if _, err := New(&Options{DelayXfer: -5}, aiori.Env{}); err == nil || !strings.Contains(err.Error(), "--dummy.delay-xfer") {
		t.Errorf("New with a negative delay = %v; want Validate's error", err)
	}
	if _, err := New(struct{ aiori.Options }{}, aiori.Env{}); err == nil || !strings.Contains(err.Error(), "want *dummy.Options") {
		t.Errorf("New(other options) = %v; want an error naming *dummy.Options", err)
	}
}

func TestDelaysPerRank(t *testing.T) {
	opts := Options{DelayCreate: 1, DelayClose: 2, DelaySync: 3, DelayXfer: 4}
	all := [4]time.Duration{1 * time.Microsecond, 2 * time.Microsecond, 3 * time.Microsecond, 4 * time.Microsecond}
	tests := []struct {
		onlyRank0 bool
		rank      int
		want      [4]time.Duration
	}{
		{false, 0, all},
		{false, 3, all},
		{true, 0, all},
		{true, 1, [4]time.Duration{}}, // other ranks do not wait
	}
	for _, tt := range tests {
		o := opts
		o.DelayOnlyRank0 = tt.onlyRank0
		b := newTestBackend(t, o, tt.rank)
		got := [4]time.Duration{b.delayCreate, b.delayClose, b.delaySync, b.delayXfer}
		if got != tt.want {
			t.Errorf("only rank 0 %v, rank %d: delays %v; want %v", tt.onlyRank0, tt.rank, got, tt.want)
		}
	}
}

func TestTransfersLeaveBufferAlone(t *testing.T) {
	b := newTestBackend(t, Options{}, 0)
	f, err := b.Open("/any/path", aiori.ReadOnly)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := bytes.Repeat([]byte{0x5A}, 4096)
	if n, err := f.ReadAt(buf, 1<<40); n != len(buf) || err != nil {
		t.Errorf("ReadAt = %d, %v; want %d, nil", n, err, len(buf))
	}
	if !bytes.Equal(buf, bytes.Repeat([]byte{0x5A}, 4096)) {
		t.Error("ReadAt changed the buffer; want it untouched")
	}
	if _, err := f.ReadAt(buf, -1); !errors.Is(err, fs.ErrInvalid) {
		t.Errorf("ReadAt at -1 = %v; want fs.ErrInvalid", err)
	}
}

func TestFileSize(t *testing.T) {
	b := newTestBackend(t, Options{}, 0)
	size := func(path string) int64 {
		t.Helper()
		n, err := b.FileSize(path)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	write := func(f aiori.File, n int, off int64) {
		t.Helper()
		if got, err := f.WriteAt(make([]byte, n), off); got != n || err != nil {
			t.Fatalf("WriteAt = %d, %v", got, err)
		}
	}

	if got := size("/never"); got != 0 {
		t.Errorf("FileSize of an unused path = %d; want 0", got)
	}
	f, _ := b.Create("/f", aiori.WriteOnly)
	g, _ := b.Create("/f", aiori.WriteOnly)
	write(f, 100, 900)
	write(f, 10, 0)
	write(g, 0, 5000) // an empty write does not move the end
	write(g, 50, 400)
	if got := size("/f"); got != 0 {
		t.Errorf("FileSize before Close = %d; want 0 (sizes are recorded on Close)", got)
	}
	f.Close()
	if got := size("/f"); got != 1000 {
		t.Errorf("FileSize after the first Close = %d; want 1000", got)
	}
	g.Close()
	if got := size("/f"); got != 1000 {
		t.Errorf("FileSize after a shorter File closed = %d; want still 1000", got)
	}
	if fi, err := b.Stat("/f"); err != nil || fi.Size != 1000 || fi.IsDir() {
		t.Errorf("Stat = %+v, %v; want a 1000-byte regular file", fi, err)
	}

	if err := b.Rename("/f", "/g"); err != nil {
		t.Fatal(err)
	}
	if got := size("/g"); got != 1000 {
		t.Errorf("FileSize after Rename = %d; want 1000 under the new name", got)
	}
	if f, _ = b.Create("/g", aiori.ReadWrite|aiori.Trunc); size("/g") != 0 {
		t.Errorf("FileSize after Create with Trunc = %d; want 0", size("/g"))
	}
	write(f, 7, 0)
	f.Close()
	if err := b.Remove("/g"); err != nil {
		t.Fatal(err)
	}
	if got := size("/g"); got != 0 {
		t.Errorf("FileSize after Remove = %d; want 0", got)
	}

	// A shared file: each rank knows its own writes only, so the size is
	// the expected one, the same on every rank.
	b.SetHints(aiori.Hints{NumTasks: 4, ExpectedFileSize: 4096})
	f, _ = b.Create("/shared", aiori.WriteOnly)
	write(f, 1024, 0) // rank 0's block
	f.Close()
	if got := size("/shared"); got != 4096 {
		t.Errorf("FileSize of a shared file = %d; want Hints.ExpectedFileSize 4096", got)
	}
	if got := size("/unwritten"); got != 0 {
		t.Errorf("FileSize of an unwritten path under shared hints = %d; want 0", got)
	}
	b.SetHints(aiori.Hints{NumTasks: 4, FilePerProc: true, ExpectedFileSize: 4096})
	if got := size("/shared"); got != 1024 {
		t.Errorf("FileSize with FilePerProc = %d; want the written 1024", got)
	}
}

func TestTransfersDoNotAllocate(t *testing.T) {
	b := newTestBackend(t, Options{}, 0)
	f, _ := b.Create("/f", aiori.ReadWrite)
	defer f.Close()
	buf := make([]byte, 4096)
	if got := testing.AllocsPerRun(100, func() { f.WriteAt(buf, 0) }); got != 0 {
		t.Errorf("WriteAt allocates %.1f times per call; want 0", got)
	}
	if got := testing.AllocsPerRun(100, func() { f.ReadAt(buf, 0) }); got != 0 {
		t.Errorf("ReadAt allocates %.1f times per call; want 0", got)
	}
}

// BenchmarkSleep measures --dummy.delay-xfer's sleep at IOR's usleep
// resolution: 50 us should take about 50 us, not the runtime's tick.
func BenchmarkSleep50us(b *testing.B) {
	for b.Loop() {
		sleep(50 * time.Microsecond)
	}
}
