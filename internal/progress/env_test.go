package progress_test

import (
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/internal/progress"
)

func TestFromEnv(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		env       map[string]string
		want      progress.Env
		lines     bool
		wantError string
	}{
		{env: nil},
		{env: map[string]string{progress.EnvInterval: ""}},
		{env: map[string]string{progress.EnvInterval: "10s"}, want: progress.Env{LineInterval: 10 * time.Second}, lines: true},
		{env: map[string]string{progress.EnvInterval: "1h"}, want: progress.Env{LineInterval: time.Hour}, lines: true},
		{env: map[string]string{progress.EnvInterval: "10s", progress.EnvLauncher: "1"}, want: progress.Env{LineInterval: 10 * time.Second, Launcher: true}},
		{env: map[string]string{progress.EnvLauncher: "1"}, want: progress.Env{Launcher: true}},
		{env: map[string]string{progress.EnvLauncher: "0"}},
		{env: map[string]string{progress.EnvInterval: "500ms"}, wantError: `HPCBENCH_PROGRESS="500ms": want a duration in [1s, 1h] (10s)`},
		{env: map[string]string{progress.EnvInterval: "2h"}, wantError: `HPCBENCH_PROGRESS="2h": want a duration in [1s, 1h] (10s)`},
		{env: map[string]string{progress.EnvInterval: "yes"}, wantError: `HPCBENCH_PROGRESS="yes": want a duration in [1s, 1h] (10s)`},
	} {
		got, err := progress.FromEnv(func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok })
		switch {
		case tc.wantError != "":
			if err == nil || err.Error() != tc.wantError {
				t.Errorf("%v: error %v, want %q", tc.env, err, tc.wantError)
			}
		case err != nil:
			t.Errorf("%v: %v", tc.env, err)
		case got != tc.want || got.Lines() != tc.lines:
			t.Errorf("%v: %+v (lines %v), want %+v (lines %v)", tc.env, got, got.Lines(), tc.want, tc.lines)
		}
	}
}
