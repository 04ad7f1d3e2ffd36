package io500

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestDropCaches(t *testing.T) {
	for _, c := range []struct{ cmd, want string }{
		{"echo dropped", "dropped\n"},
		{"exit 3", `WARNING: [global] drop-caches-cmd "exit 3": exit status 3`},
	} {
		var b bytes.Buffer
		dropCaches(context.Background(), c.cmd, &b)
		if !strings.Contains(b.String(), c.want) {
			t.Errorf("%q: %q, want %q", c.cmd, b.String(), c.want)
		}
	}
}
