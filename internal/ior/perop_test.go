package ior

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpcbench/hpcbench/internal/testenv"
)

// TestSavePerOpDataCSVGolden runs a test with -O savePerOpDataCSV on the
// fake clock (every reading 1 ms after the last) and compares a rank's
// file with testdata/perop.csv.golden: IOR's name, header and row format.
// Each pass rewrites the repetition's file, as IOR's fopen("w") does, so
// with -w -W -r it holds the read.
func TestSavePerOpDataCSVGolden(t *testing.T) {
	dir := t.TempDir()
	prefix := filepath.Join(dir, "ops")
	j := runJob(t, 2, "-a POSIX -b 4m -t 1m -s 2 -w -W -r -i 2 -o "+filepath.Join(t.TempDir(), "f")+" -O savePerOpDataCSV="+prefix, true)
	noErrors(t, j)
	names, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range names {
		names[i] = filepath.Base(names[i])
	}
	if want := "ops-0-00000.csv ops-0-00001.csv ops-1-00000.csv ops-1-00001.csv"; strings.Join(names, " ") != want {
		t.Fatalf("files %q, want %q", names, want)
	}
	got, err := os.ReadFile(prefix + "-1-00001.csv")
	if err != nil {
		t.Fatal(err)
	}
	testenv.Golden(t, filepath.Join("testdata", "perop.csv.golden"), got, *update)

	// A write alone leaves the write's transfers: 2 segments of 4.
	j = runJob(t, 1, "-a DUMMY -b 4m -t 1m -s 2 -w -o f -O savePerOpDataCSV="+prefix+"w", true)
	noErrors(t, j)
	w, err := os.ReadFile(prefix + "w-0-00000.csv")
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Count(string(w), "\n"); lines != 1+8 {
		t.Errorf("write-only file has %d lines, want the header and 8 rows:\n%s", lines, w)
	}
}

// nopFile is an aiori.File that moves nothing.
type nopFile struct{ closed bool }

func (f *nopFile) WriteAt(p []byte, _ int64) (int, error) { return len(p), nil }
func (f *nopFile) ReadAt(p []byte, _ int64) (int, error)  { return len(p), nil }
func (f *nopFile) Fsync() error                           { return nil }
func (f *nopFile) Close() error                           { f.closed = true; return nil }

// closeBuffer is a bytes.Buffer with a Close, failing writes on demand.
type closeBuffer struct {
	bytes.Buffer
	fail bool
}

func (b *closeBuffer) Write(p []byte) (int, error) {
	if b.fail {
		return 0, errors.New("disk full")
	}
	return b.Buffer.Write(p)
}
func (b *closeBuffer) Close() error { return nil }

// TestOpTimerRows: rows as IOR prints them, C's inf for a zero duration,
// more rows than the buffer holds, and a write failure reported by Close
// after the inner file is closed.
func TestOpTimerRows(t *testing.T) {
	clock := []float64{10, 10.5, 10.75, 11, 11}
	i := 0
	next := func() float64 { v := clock[i]; i++; return v }
	var out closeBuffer
	f := &nopFile{}
	o := newOpTimer(f, &out, next, 1<<20)
	if _, err := o.WriteAt(make([]byte, 8), 0); err != nil {
		t.Fatal(err)
	}
	if _, err := o.ReadAt(make([]byte, 8), 0); err != nil {
		t.Fatal(err)
	}
	if err := o.Close(); err != nil || !f.closed {
		t.Fatalf("Close = %v, inner closed %v", err, f.closed)
	}
	want := "time,runtime,tp\n5.00000000e-01,2.50000000e-01,4.194304e+06\n1.00000000e+00,0.00000000e+00,inf\n"
	if out.String() != want {
		t.Errorf("CSV:\n%q\nwant\n%q", out.String(), want)
	}

	var many closeBuffer
	o = newOpTimer(&nopFile{}, &many, func() float64 { return 1 }, 8)
	for range opBuffer + 3 {
		if _, err := o.WriteAt(nil, 0); err != nil {
			t.Fatal(err)
		}
	}
	if err := o.Close(); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(many.String(), "\n"); n != 1+opBuffer+3 {
		t.Errorf("%d lines, want %d", n, 1+opBuffer+3)
	}

	bad := closeBuffer{fail: true}
	f = &nopFile{}
	o = newOpTimer(f, &bad, func() float64 { return 1 }, 8)
	if err := o.Close(); err == nil || !strings.Contains(err.Error(), "-O savePerOpDataCSV: disk full") || !f.closed {
		t.Errorf("Close with a failing CSV = %v (inner closed %v), want the write error", err, f.closed)
	}
}
