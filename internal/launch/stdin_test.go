package launch

import (
	"os"
	"testing"
)

func TestForwardsStdin(t *testing.T) {
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer devnull.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	closed, w2, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	w2.Close()
	closed.Close()
	file, err := os.Create(t.TempDir() + "/in")
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	for _, tc := range []struct {
		name string
		f    *os.File
		want bool
	}{
		{"nil", nil, false},
		{"/dev/null", devnull, false},
		{"closed", closed, false},
		{"pipe", r, true},
		{"regular file", file, true},
	} {
		if got := forwardsStdin(tc.f); got != tc.want {
			t.Errorf("forwardsStdin(%s) = %v, want %v", tc.name, got, tc.want)
		}
	}
}
