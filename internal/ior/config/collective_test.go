package config

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/hpcbench/hpcbench/internal/ior/twophase"
)

func TestParseHints(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{
		"hints":     {Data: []byte("IOR_HINT__MPI__cb_nodes=2\nIOR_HINT__MPI__romio_cb_write=enable\nIOR_HINT__MPI__romio_ds_write=disable\n")},
		"badhints":  {Data: []byte("IOR_HINT__MPI__cb_buffer_size=0\n")},
		"emptyfile": {Data: nil},
	}
	env := []string{"IOR_HINT__MPI__cb_nodes=5", "IOR_HINT__MPI__romio_cb_read=disable"}
	for _, tc := range []struct {
		name string
		args []string
		env  []string
		want func(h *twophase.Hints)
		err  string
	}{
		{"defaults", []string{"-c"}, nil, func(h *twophase.Hints) {}, ""},
		{"environment", []string{"-c"}, env, func(h *twophase.Hints) { h.Nodes, h.Read = 5, twophase.Disable }, ""},
		// The file comes after the environment, the options after both.
		{"file over environment", []string{"-c", "-U", "hints"}, env, func(h *twophase.Hints) {
			h.Nodes, h.Read, h.Write = 2, twophase.Disable, twophase.Enable
			h.Ignored = []string{"romio_ds_write=disable (from the hints file)"}
		}, ""},
		{"-O hintsFileName", []string{"-c", "-O", "hintsFileName=hints,cb_nodes=1"}, nil, func(h *twophase.Hints) {
			h.Nodes, h.Write = 1, twophase.Enable
			h.Ignored = []string{"romio_ds_write=disable (from the hints file)"}
		}, ""},
		{"-O keys", []string{"-c", "-O", "cb_buffer_size=4m,romio_cb_read=enable,cb_config_list=*:2"}, nil, func(h *twophase.Hints) {
			h.BufferSize, h.Read, h.PerHost = 4<<20, twophase.Enable, 2
		}, ""},
		{"long options", []string{"-c", "--cb_nodes", "3", "--romio_cb_write=disable"}, nil, func(h *twophase.Hints) {
			h.Nodes, h.Write = 3, twophase.Disable
		}, ""},
		{"empty file", []string{"-c", "-U", "emptyfile"}, nil, func(h *twophase.Hints) {}, ""},
		{"striping_unit", []string{"-c", "-O", "striping_unit=64k"}, nil, func(h *twophase.Hints) { h.StripingUnit = 64 << 10 }, ""},
		// SAD PATH
		{"bad option", []string{"-c", "-O", "cb_nodes=0"}, nil, nil, `cb_nodes: cb_nodes "0": want an integer from 1 to 2147483647`},
		{"bad long option", []string{"--romio_cb_read", "yes"}, nil, nil, `romio_cb_read "yes": want enable, disable or automatic`},
		{"bad file", []string{"-c", "-U", "badhints"}, nil, nil, `-U badhints: line 1: cb_buffer_size "0": want a size from 1 to`},
		{"missing file", []string{"-c", "-U", "nothere"}, nil, nil, "-U nothere: open nothere"},
		{"bad environment", []string{"-c"}, []string{"IOR_HINT__MPI__cb_config_list=all"}, nil, `environment: cb_config_list "all": want *:N`},
		{"-c -z", []string{"-c", "-z"}, nil, nil, "-c with -z: random offsets are not available with collective I/O"},
		{"-c -D", []string{"-c", "-D", "5"}, nil, nil, "-c with -D: a collective phase cannot stop at a deadline"},
		{"-c --until-steady", []string{"-c", "--until-steady"}, nil, nil, "-c with --until-steady"},
		{"-c interIODelay", []string{"-c", "-O", "interIODelay=10"}, nil, nil, "-c with -O interIODelay"},
		{"-c minTimeDuration", []string{"-c", "-O", "minTimeDuration=1"}, nil, nil, "-c with -O minTimeDuration"},
	} {
		cfg, err := ParseFSEnv(fsys, tc.args, testRegistry(t), tc.env)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) || strings.Contains(err.Error(), "\n") {
				t.Errorf("%s: %q: error %v, want one line containing %q", tc.name, tc.args, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %q: %v", tc.name, tc.args, err)
			continue
		}
		want := twophase.DefaultHints()
		tc.want(&want)
		got := cfg.Tests[0].Hints
		if got.Nodes != want.Nodes || got.BufferSize != want.BufferSize || got.PerHost != want.PerHost || got.StripingUnit != want.StripingUnit ||
			got.Write != want.Write || got.Read != want.Read || strings.Join(got.Ignored, "|") != strings.Join(want.Ignored, "|") {
			t.Errorf("%s: %q: hints %+v, want %+v", tc.name, tc.args, got, want)
		}
	}
}
