package twophase

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestHintsSet(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		key, value string
		want       Hints
		err        string
	}{
		{"cb_nodes", "4", Hints{BufferSize: DefaultBufferSize, PerHost: 1, Nodes: 4}, ""},
		{"CB_NODES", "1", Hints{BufferSize: DefaultBufferSize, PerHost: 1, Nodes: 1}, ""},
		{"cb_nodes", "0", DefaultHints(), `cb_nodes "0": want an integer from 1 to 2147483647`},
		{"cb_nodes", "x", DefaultHints(), `cb_nodes "x": want an integer from 1 to 2147483647`},
		{"cb_buffer_size", "4194304", Hints{BufferSize: 4 << 20, PerHost: 1}, ""},
		{"cb_buffer_size", "8m", Hints{BufferSize: 8 << 20, PerHost: 1}, ""},
		{"cb_buffer_size", "0", DefaultHints(), `cb_buffer_size "0": want a size from 1 to 2147479552 bytes (2 GiB - 4 KiB)`},
		{"cb_buffer_size", "4g", DefaultHints(), `cb_buffer_size "4g": want a size from 1 to 2147479552 bytes`},
		{"romio_cb_write", "Enable", Hints{BufferSize: DefaultBufferSize, PerHost: 1, Write: Enable}, ""},
		{"romio_cb_read", "disable", Hints{BufferSize: DefaultBufferSize, PerHost: 1, Read: Disable}, ""},
		{"romio_cb_write", "on", DefaultHints(), `romio_cb_write "on": want enable, disable or automatic`},
		{"cb_config_list", "*:2", Hints{BufferSize: DefaultBufferSize, PerHost: 2}, ""},
		{"cb_config_list", "*:*", Hints{BufferSize: DefaultBufferSize}, ""},
		{"cb_config_list", "node1:1", DefaultHints(), `cb_config_list "node1:1": want *:N`},
		{"striping_unit", "1m", Hints{BufferSize: DefaultBufferSize, PerHost: 1, StripingUnit: 1 << 20}, ""},
		{"striping_unit", "-1", DefaultHints(), `striping_unit "-1": want a size from 0 (none) to`},
		{"romio_ds_write", "disable", DefaultHints(), "hint not used"},
	} {
		h := DefaultHints()
		err := h.Set(tc.key, tc.value)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("Set(%s, %s): %v", tc.key, tc.value, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("Set(%s, %s) = %v, want an error containing %q", tc.key, tc.value, err, tc.err)
		}
		if !reflect.DeepEqual(h, tc.want) {
			t.Errorf("Set(%s, %s) left %+v, want %+v", tc.key, tc.value, h, tc.want)
		}
	}
	h := DefaultHints()
	if err := h.Set("romio_ds_write", "disable"); !errors.Is(err, ErrUnknownKey) {
		t.Errorf("unknown key: %v, want ErrUnknownKey", err)
	}
}

func TestParseHintsFile(t *testing.T) {
	t.Parallel()
	file := "# a comment line, ignored as IOR ignores it\n" +
		"IOR_HINT__MPI__cb_nodes=2\n" +
		"IOR_HINT__MPI__cb_buffer_size = 1048576\r\n" +
		"IOR_HINT__MPI__romio_cb_write\tenable\n" +
		"IOR_HINT__MPI__romio_ds_write=disable\n" +
		"IOR_HINT__GPFS__gpfs_hint=1\n" +
		"romio_cb_read=disable\n"
	h := DefaultHints()
	if err := ParseHintsFile(strings.NewReader(file), &h); err != nil {
		t.Fatal(err)
	}
	want := Hints{Nodes: 2, BufferSize: 1 << 20, PerHost: 1, Write: Enable, Ignored: []string{
		"romio_ds_write=disable (from the hints file)",
		"IOR_HINT__GPFS__gpfs_hint (from the hints file: only IOR_HINT__MPI__ hints are used)"}}
	if !reflect.DeepEqual(h, want) {
		t.Errorf("got %+v\nwant %+v", h, want)
	}
	for _, tc := range []struct{ file, err string }{
		{"IOR_HINT__MPI__cb_nodes=-1\n", `line 1: cb_nodes "-1": want an integer`},
		{"\nIOR_HINT__MPI__cb_nodes=\n", "line 2: IOR_HINT__MPI__cb_nodes: want IOR_HINT__MPI__key=value"},
		{"IOR_HINT__MPI__=3\n", "want IOR_HINT__MPI__key=value"},
	} {
		h := DefaultHints()
		if err := ParseHintsFile(strings.NewReader(tc.file), &h); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("ParseHintsFile(%q) = %v, want %q", tc.file, err, tc.err)
		}
	}
}

func TestApplyEnv(t *testing.T) {
	t.Parallel()
	h := DefaultHints()
	if err := h.ApplyEnv([]string{"PATH=/bin", "IOR_HINT__MPI__romio_cb_read=enable", "IOR_HINT__MPI__cb_nodes=3"}); err != nil {
		t.Fatal(err)
	}
	if h.Read != Enable || h.Nodes != 3 {
		t.Errorf("got %+v", h)
	}
	if err := h.ApplyEnv([]string{"IOR_HINT__MPI__romio_cb_read=sometimes"}); err == nil || !strings.HasPrefix(err.Error(), "environment: romio_cb_read") {
		t.Errorf("bad value: %v", err)
	}
}

// FuzzParseHintsFile: any file either fails with one line or leaves hints
// within their ranges.
func FuzzParseHintsFile(f *testing.F) {
	f.Add("IOR_HINT__MPI__cb_nodes=2\nIOR_HINT__MPI__cb_buffer_size=1m\n")
	f.Add("IOR_HINT__MPI__romio_cb_write enable\nIOR_HINT__GPFS__x=1\n")
	f.Add("IOR_HINT__MPI__cb_config_list=*:*\nIOR_HINT\n=\n")
	f.Fuzz(func(t *testing.T, s string) {
		h := DefaultHints()
		err := ParseHintsFile(strings.NewReader(s), &h)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error on several lines: %q", err)
			}
			return
		}
		if h.BufferSize < 1 || h.BufferSize > MaxBufferSize || h.Nodes < 0 || h.PerHost < 0 {
			t.Fatalf("hints out of range: %+v", h)
		}
		for _, m := range []Mode{h.Write, h.Read} {
			if m != Automatic && m != Enable && m != Disable {
				t.Fatalf("mode %d", m)
			}
		}
	})
}
