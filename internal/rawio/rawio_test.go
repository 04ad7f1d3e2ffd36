package rawio

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestRawRWMatchesUnix checks Pread and Pwrite (raw system calls where
// rawio.go builds) against unix.Pread and unix.Pwrite: the same counts,
// the same bytes, the same unix.Errno, including the ESPIPE on a pipe
// that rawio.go's safety argument rests on.
func TestRawRWMatchesUnix(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	fd, err := unix.Open(path, unix.O_RDWR|unix.O_CREAT, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	rfd, err := unix.Open(path, unix.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(rfd)
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	data := []byte("0123456789abcdef")

	type rw func(int, []byte, int64) (int, error)
	for _, tc := range []struct {
		name     string
		ours, ux rw
		fd       int
		p        []byte
		off      int64
		wantN    int
		wantErr  error
		wantData []byte // for reads: what p holds after (the reads below run after "write")
	}{
		{name: "write", ours: Pwrite, ux: unix.Pwrite, fd: fd, p: data, off: 4096, wantN: len(data)},
		{name: "write-empty", ours: Pwrite, ux: unix.Pwrite, fd: fd, p: nil, off: 0, wantN: 0},
		{name: "read", ours: Pread, ux: unix.Pread, fd: fd, p: make([]byte, 4), off: 4096 + 10, wantN: 4, wantData: []byte("abcd")},
		{name: "read-past-end", ours: Pread, ux: unix.Pread, fd: fd, p: make([]byte, 8), off: 4096 + 12, wantN: 4, wantData: []byte("cdef\x00\x00\x00\x00")},
		{name: "read-at-end", ours: Pread, ux: unix.Pread, fd: fd, p: make([]byte, 8), off: 1 << 20, wantN: 0, wantData: make([]byte, 8)},
		{name: "write-read-only", ours: Pwrite, ux: unix.Pwrite, fd: rfd, p: data, off: 0, wantErr: unix.EBADF},
		{name: "write-negative-offset", ours: Pwrite, ux: unix.Pwrite, fd: fd, p: data, off: -1, wantErr: unix.EINVAL},
		{name: "read-pipe", ours: Pread, ux: unix.Pread, fd: int(pr.Fd()), p: make([]byte, 4), off: 0, wantErr: unix.ESPIPE, wantData: make([]byte, 4)},
		{name: "write-pipe", ours: Pwrite, ux: unix.Pwrite, fd: int(pw.Fd()), p: data, off: 0, wantErr: unix.ESPIPE},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, side := range []struct {
				name string
				fn   rw
			}{{"ours", tc.ours}, {"unix", tc.ux}} {
				p := append([]byte(nil), tc.p...) // a fresh buffer for each side
				n, err := side.fn(tc.fd, p, tc.off)
				if tc.wantErr != nil {
					if err != tc.wantErr {
						t.Errorf("%s: %d, %v; want the unix.Errno %v", side.name, n, err, tc.wantErr)
					}
					continue
				}
				if n != tc.wantN || err != nil {
					t.Errorf("%s: %d, %v; want %d, nil", side.name, n, err, tc.wantN)
				}
				if tc.wantData != nil && !bytes.Equal(p, tc.wantData) {
					t.Errorf("%s: read %q; want %q", side.name, p, tc.wantData)
				}
			}
		})
	}
}
