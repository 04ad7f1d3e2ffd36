package launch

import (
	"strings"
	"testing"
)

func TestParseSpawnRequest(t *testing.T) {
	for _, tc := range []struct {
		msg   string
		fds   []int
		want  rankFiles
		bind  bool
		env   string
		error string
	}{
		{msg: "R 3 oe", fds: []int{10, 11}, want: rankFiles{-1, 10, 11, -1}},
		{msg: "R 0 ioep\x00PMI_RANK=0\x00A=b", fds: []int{9, 10, 11, 12}, want: rankFiles{9, 10, 11, 12}, env: "PMI_RANK=0 A=b"},
		{msg: "R 2 oep 0,1", fds: []int{10, 11, 12}, want: rankFiles{-1, 10, 11, 12}, bind: true},
		{msg: "R 2 oe", fds: []int{10}, error: "one descriptor per letter"},
		{msg: "R 2 eo", fds: []int{10, 11}, error: "subsequence of ioep"},
		{msg: "R 2 oo", fds: []int{10, 11}, error: "subsequence of ioep"},
		{msg: "R 2 ip", fds: []int{10, 11}, error: "stdout and stderr are required"},
		{msg: "R x oe", fds: []int{10, 11}, error: "rank"},
		{msg: "R -1 oe", fds: []int{10, 11}, error: "rank"},
		{msg: "R 1", error: "want rank, files"},
		{msg: "Q 1 oe", fds: []int{10, 11}, error: "not R"},
		{msg: "R 1 oe zz", fds: []int{10, 11}, error: `"zz" is not a CPU number`},
	} {
		req, err := parseSpawnRequest([]byte(tc.msg), tc.fds)
		if tc.error != "" {
			if err == nil || !strings.Contains(err.Error(), tc.error) {
				t.Errorf("%q: error %v, want %q", tc.msg, err, tc.error)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.msg, err)
			continue
		}
		if req.files != tc.want || req.bind != tc.bind || strings.Join(req.env, " ") != tc.env {
			t.Errorf("%q = %+v, want files %+v bind %v env %q", tc.msg, req, tc.want, tc.bind, tc.env)
		}
	}
}
