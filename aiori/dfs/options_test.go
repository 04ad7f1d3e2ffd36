package dfs

import (
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

func TestOptions(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string // "" for valid
	}{
		{[]string{"--dfs.pool", "/p", "--dfs.cont", "c"}, ""},
		{[]string{"--dfs.pool", "/p", "--dfs.cont", "c", "--dfs.chunk_size", "64k", "--dfs.oclass", "S1", "--dfs.dir_oclass", "sx", "--dfs.prefix", "/mnt/dfs", "--dfs.destroy", "--dfs.group", "daos_server"}, ""},
		{[]string{"--dfs.cont", "c"}, "--dfs.pool: required"},
		{[]string{"--dfs.pool", "/p"}, "--dfs.cont: required"},
		{[]string{"--dfs.pool", "/p", "--dfs.cont", "a/b"}, `--dfs.cont: label "a/b": invalid argument: '/' is not allowed`},
		{[]string{"--dfs.pool", "/p", "--dfs.cont", strings.Repeat("x", 128)}, "want 1 to 127 characters"},
		{[]string{"--dfs.pool", "/p", "--dfs.cont", "c", "--dfs.chunk_size", "1000"}, "--dfs.chunk_size: chunk size 1000: invalid argument (want a multiple of 4 KiB from 4k to 1g)"},
		{[]string{"--dfs.pool", "/p", "--dfs.cont", "c", "--dfs.chunk_size", "2g"}, "--dfs.chunk_size: chunk size 2147483648"},
		{[]string{"--dfs.pool", "/p", "--dfs.cont", "c", "--dfs.oclass", "RP_2G1"}, "--dfs.oclass RP_2G1: Invalid DAOS object class: want S1, S2, S4, ..., S1024 or SX"},
		{[]string{"--dfs.pool", "/p", "--dfs.cont", "c", "--dfs.dir_oclass", "S3"}, "--dfs.dir_oclass S3: Invalid DAOS object class"},
		{[]string{"--dfs.pool", "/p", "--dfs.cont", "c", "--dfs.prefix", "mnt"}, `--dfs.prefix "mnt": want an absolute path`},
	} {
		o := DefaultOptions()
		fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
		o.AddFlags(fs)
		if err := fs.Parse(tc.args); err != nil {
			t.Fatalf("%q: parse: %v", tc.args, err)
		}
		err := o.Validate()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%q: %v", tc.args, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%q: error %v, want %q", tc.args, err, tc.want)
		}
	}
}
