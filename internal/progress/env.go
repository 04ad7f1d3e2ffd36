package progress

import (
	"fmt"
	"time"
)

// The environment that carries --progress to the run pipeline, and the
// launcher's word to its ranks.
const (
	// EnvInterval holds the interval of plain progress lines as a Go
	// duration ("10s"): rank 0 writes them on stderr where it is not a
	// terminal. The benchmark commands' --progress sets it, as a user
	// may for every rank under srun or mpiexec.
	EnvInterval = "HPCBENCH_PROGRESS"
	// EnvLauncher is set to "1" by hpcbench launch for its ranks when it
	// shows the job's progress itself (a bar on its terminal, or its own
	// --progress lines): rank 0 then sends its progress to the launcher,
	// and prints no lines of its own.
	EnvLauncher = "HPCBENCH_LAUNCHER_PROGRESS"
)

// The range of an interval of plain lines: a log's pace, not a
// terminal's; lineRange says it.
const (
	MinLineInterval = time.Second
	MaxLineInterval = time.Hour
	lineRange       = "want a duration in [1s, 1h]"
)

// CheckLineInterval refuses an interval of plain lines outside
// [MinLineInterval, MaxLineInterval], saying the range.
func CheckLineInterval(d time.Duration) error {
	if d < MinLineInterval || d > MaxLineInterval {
		return fmt.Errorf("%v: %s", d, lineRange)
	}
	return nil
}

// ParseLineInterval parses an interval of plain lines, a Go duration in
// [MinLineInterval, MaxLineInterval]; its error quotes s and says the
// range.
func ParseLineInterval(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil || CheckLineInterval(d) != nil {
		return 0, fmt.Errorf("%q: %s", s, lineRange)
	}
	return d, nil
}

// Env is what the environment asks of rank 0's progress.
type Env struct {
	// LineInterval is EnvInterval's: 0 when it is not set.
	LineInterval time.Duration
	// Launcher reports that hpcbench's own launcher shows the job's
	// progress (EnvLauncher).
	Launcher bool
}

// FromEnv reads EnvInterval and EnvLauncher through getenv; a bad
// interval is an error naming the variable and the range.
func FromEnv(getenv func(string) (string, bool)) (Env, error) {
	var e Env
	if v, ok := getenv(EnvLauncher); ok && v == "1" {
		e.Launcher = true
	}
	v, ok := getenv(EnvInterval)
	if !ok || v == "" {
		return e, nil
	}
	d, err := ParseLineInterval(v)
	if err != nil {
		return e, fmt.Errorf("%s=%w (10s)", EnvInterval, err)
	}
	e.LineInterval = d
	return e, nil
}

// Lines reports whether rank 0 writes plain lines of its own: asked for,
// and not shown by the launcher.
func (e Env) Lines() bool { return e.LineInterval > 0 && !e.Launcher }
