package twophase

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/hpcbench/hpcbench/internal/units"
)

// Mode is romio_cb_write or romio_cb_read: whether a phase uses
// collective buffering.
type Mode int

// The modes, ROMIO's ADIOI_HINT_AUTO, ADIOI_HINT_ENABLE and
// ADIOI_HINT_DISABLE.
const (
	// Automatic buffers collectively only when the ranks' accesses
	// interleave (the default).
	Automatic Mode = iota
	// Enable always buffers collectively.
	Enable
	// Disable never does: every rank does its own I/O.
	Disable
)

// String is the hint's value: automatic, enable or disable.
func (m Mode) String() string {
	switch m {
	case Enable:
		return "enable"
	case Disable:
		return "disable"
	}
	return "automatic"
}

// ROMIO's defaults (adio/common/ad_hints.c).
const (
	// DefaultBufferSize is cb_buffer_size: 16 MiB.
	DefaultBufferSize = 16 << 20
	// MaxBufferSize bounds cb_buffer_size: one write of a round must be
	// a single Linux write call (2 GiB - 4 KiB).
	MaxBufferSize = 1<<31 - 4096
	// MaxNodes bounds cb_nodes (an MPI int).
	MaxNodes = math.MaxInt32
)

// The hint keys `ior -c` honours.
const (
	KeyBufferSize = "cb_buffer_size"
	KeyNodes      = "cb_nodes"
	KeyConfigList = "cb_config_list"
	KeyWrite      = "romio_cb_write"
	KeyRead       = "romio_cb_read"
	KeyStriping   = "striping_unit"
)

// Keys lists the honoured keys in the order they are reported.
func Keys() []string {
	return []string{KeyNodes, KeyBufferSize, KeyConfigList, KeyWrite, KeyRead, KeyStriping}
}

// ErrUnknownKey is wrapped by Hints.Set for a key it does not honour.
var ErrUnknownKey = errors.New("hint not used by hpcbench's collective I/O")

// Hints are the collective-buffering hints of one test.
type Hints struct {
	// BufferSize is cb_buffer_size: the bytes an aggregator moves per
	// round.
	BufferSize int64
	// Nodes is cb_nodes: the most aggregators; 0 means one per host
	// (ROMIO's default, the number of hosts).
	Nodes int
	// PerHost is cb_config_list "*:N": the most aggregators on one host;
	// 0 means no limit ("*:*"). The default is 1.
	PerHost int
	// Write and Read are romio_cb_write and romio_cb_read. Read also
	// governs -W's check pass.
	Write, Read Mode
	// StripingUnit is striping_unit: file domains end on its multiples
	// (ROMIO's alignment to file lock boundaries); 0 is no alignment.
	StripingUnit int64
	// Ignored lists the hints given that are not used ("striping_unit=4m
	// (from the hints file)"), for the run's notes.
	Ignored []string
}

// DefaultHints returns ROMIO's defaults.
func DefaultHints() Hints {
	return Hints{BufferSize: DefaultBufferSize, PerHost: 1}
}

// Set sets the hint key (case-insensitive) to value. A bad value is an
// error naming the key and what it accepts; a key that is not honoured
// wraps ErrUnknownKey and changes nothing.
func (h *Hints) Set(key, value string) error {
	switch strings.ToLower(key) {
	case KeyBufferSize:
		n, err := units.ParseSize(value)
		if err != nil || n < 1 || n > MaxBufferSize {
			return fmt.Errorf("%s %q: want a size from 1 to %d bytes (2 GiB - 4 KiB)", KeyBufferSize, value, MaxBufferSize)
		}
		h.BufferSize = n
	case KeyNodes:
		n, err := strconv.Atoi(value)
		if err != nil || n < 1 || n > MaxNodes {
			return fmt.Errorf("%s %q: want an integer from 1 to %d", KeyNodes, value, MaxNodes)
		}
		h.Nodes = n
	case KeyStriping:
		n, err := units.ParseSize(value)
		if err != nil || n < 0 || n > MaxBufferSize {
			return fmt.Errorf("%s %q: want a size from 0 (none) to %d bytes", KeyStriping, value, MaxBufferSize)
		}
		h.StripingUnit = n
	case KeyConfigList:
		n, err := parseConfigList(value)
		if err != nil {
			return err
		}
		h.PerHost = n
	case KeyWrite, KeyRead:
		m, err := parseMode(key, value)
		if err != nil {
			return err
		}
		if strings.EqualFold(key, KeyWrite) {
			h.Write = m
		} else {
			h.Read = m
		}
	default:
		return fmt.Errorf("%s: %w", key, ErrUnknownKey)
	}
	return nil
}

// parseMode reads enable, disable or automatic, in any case.
func parseMode(key, value string) (Mode, error) {
	switch strings.ToLower(value) {
	case "automatic":
		return Automatic, nil
	case "enable":
		return Enable, nil
	case "disable":
		return Disable, nil
	}
	return 0, fmt.Errorf("%s %q: want enable, disable or automatic", strings.ToLower(key), value)
}

// parseConfigList reads the one cb_config_list form hpcbench implements:
// "*:N" (N aggregators at most on every host) or "*:*" (no limit); 0
// stands for "*:*".
func parseConfigList(value string) (int, error) {
	bad := fmt.Errorf("%s %q: want *:N (N from 1 to %d aggregators per host) or *:*", KeyConfigList, value, MaxNodes)
	rest, ok := strings.CutPrefix(strings.TrimSpace(value), "*:")
	if !ok {
		return 0, bad
	}
	if rest == "*" {
		return 0, nil
	}
	n, err := strconv.Atoi(rest)
	if err != nil || n < 1 || n > MaxNodes {
		return 0, bad
	}
	return n, nil
}

// ConfigList returns cb_config_list as ROMIO writes it ("*:1", "*:*").
func (h Hints) ConfigList() string {
	if h.PerHost == 0 {
		return "*:*"
	}
	return "*:" + strconv.Itoa(h.PerHost)
}

// Value returns the hint key's value as reported ("16777216",
// "automatic"); cb_nodes is "0" for one per host.
func (h Hints) Value(key string) string {
	switch key {
	case KeyBufferSize:
		return strconv.FormatInt(h.BufferSize, 10)
	case KeyNodes:
		return strconv.Itoa(h.Nodes)
	case KeyConfigList:
		return h.ConfigList()
	case KeyWrite:
		return h.Write.String()
	case KeyRead:
		return h.Read.String()
	case KeyStriping:
		return strconv.FormatInt(h.StripingUnit, 10)
	}
	return ""
}

// hintPrefix starts IOR's hint settings (IOR's SetHints and ExtractHint);
// mpiPrefix starts an MPI-IO hint, IOR_HINT__MPI__key=value.
const (
	hintPrefix = "IOR_HINT"
	mpiPrefix  = "IOR_HINT__MPI__"
)

// maxHintLine bounds a hints file's line, as IOR's MAX_STR does.
const maxHintLine = 1 << 16

// ParseHintsFile applies the hints of an IOR hints file (-U,
// -O hintsFileName) to h, line by line, as IOR reads it: a line that
// starts with IOR_HINT__MPI__ is key=value (or key value; spaces and
// tabs around them are ignored); a GPFS hint (IOR_HINT__GPFS__) or
// another hint that is not used is noted in h.Ignored; any other line is
// ignored, as IOR ignores it. The error names the line and the key.
func ParseHintsFile(r io.Reader, h *Hints) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), maxHintLine)
	for n := 1; sc.Scan(); n++ {
		if err := h.setting(sc.Text(), "the hints file"); err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read: %w", err)
	}
	return nil
}

// ApplyEnv applies the IOR_HINT__MPI__ variables of environ (KEY=VALUE
// strings, os.Environ's form) to h, as IOR reads them from its
// environment before the hints file.
func (h *Hints) ApplyEnv(environ []string) error {
	for _, kv := range environ {
		if err := h.setting(kv, "the environment"); err != nil {
			return fmt.Errorf("environment: %w", err)
		}
	}
	return nil
}

// setting applies one IOR_HINT line or variable; others are skipped.
func (h *Hints) setting(line, from string) error {
	line = strings.TrimRight(line, "\r\n")
	if !strings.HasPrefix(line, hintPrefix) {
		return nil
	}
	name, value, ok := strings.Cut(line, "=")
	if !ok {
		f := strings.Fields(line)
		name, value = f[0], strings.Join(f[1:], " ")
	}
	name, value = strings.TrimSpace(name), strings.TrimSpace(value)
	if f := strings.Fields(value); len(f) > 0 {
		value = f[0] // IOR's strtok stops at the first blank
	}
	key, mpi := strings.CutPrefix(name, mpiPrefix)
	if !mpi {
		h.Ignored = append(h.Ignored, fmt.Sprintf("%s (from %s: only %s hints are used)", name, from, mpiPrefix))
		return nil
	}
	if key == "" || value == "" {
		return fmt.Errorf("%s: want %skey=value", name, mpiPrefix)
	}
	err := h.Set(key, value)
	if errors.Is(err, ErrUnknownKey) {
		h.Ignored = append(h.Ignored, fmt.Sprintf("%s=%s (from %s)", key, value, from))
		return nil
	}
	return err
}
