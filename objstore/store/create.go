package store

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/hpcbench/hpcbench/objstore/object"
	"golang.org/x/sys/unix"
)

// DefaultTargets is how many target directories Create makes inside the
// pool when CreateOptions names none: four, the width at which a 1 MiB
// chunk stripe keeps a node's NVMe queue or a small RAID busy while staying
// few enough that an S1 directory's records and an SX file's extents stay
// cheap to stat.
const DefaultTargets = 4

// CreateOptions say how Create lays out a pool's targets.
type CreateOptions struct {
	// Targets are the target directories in placement order, anywhere
	// (on other file systems too); each must be missing or empty. Empty
	// means NTargets directories tgt0, tgt1, ... inside the pool.
	Targets []string
	// NTargets is how many targets to make inside the pool when Targets is
	// empty; 0 means DefaultTargets.
	NTargets int
}

// Create makes a new pool in dir: pool.json, engine.lock, pool.log, cont/
// and the targets. It checks everything first (dir a regular file, not
// writable, a pool already, a target not empty) and makes nothing then;
// a failure part way removes what it made. dir itself may exist if empty.
func Create(dir string, o CreateOptions) error {
	if err := create(dir, o); err != nil {
		return fmt.Errorf("create pool %s: %w", dir, err)
	}
	return nil
}

func create(dir string, o CreateOptions) error {
	dir = filepath.Clean(dir)
	targets, err := planTargets(dir, o)
	if err != nil {
		return err
	}
	dirExists, err := checkPoolDir(dir)
	if err != nil {
		return err
	}
	for _, t := range targets {
		if filepath.IsAbs(t) {
			if err := checkTargetDir(dir, t); err != nil {
				return err
			}
		}
	}
	meta := poolMeta{Version: SchemaVersion, UUID: newUUID(), Targets: targets, Created: time.Now().UTC()}
	if err := meta.check(SchemaVersion); err != nil {
		return err
	}

	// Build the pool in a staging directory next to dir (or in dir, when
	// it exists and is empty), then rename it into place.
	var undo []string // what to remove on failure, last made first
	stage := dir
	if !dirExists {
		stage, err = os.MkdirTemp(filepath.Dir(dir), "."+filepath.Base(dir)+".creating-")
		if err != nil {
			return err
		}
		undo = append(undo, stage)
	}
	ok := false
	defer func() {
		if ok {
			return
		}
		for i := len(undo) - 1; i >= 0; i-- {
			os.RemoveAll(undo[i])
		}
	}()
	if err := os.Mkdir(filepath.Join(stage, contDir), 0o755); err != nil {
		return err
	}
	undo = append(undo, filepath.Join(stage, contDir))
	for _, name := range []string{lockFile, poolLog} {
		if err := writeFile(filepath.Join(stage, name), nil); err != nil {
			return err
		}
		undo = append(undo, filepath.Join(stage, name))
	}
	for i, t := range targets {
		path := t
		if !filepath.IsAbs(t) {
			path = filepath.Join(stage, t)
		}
		made, err := makeTarget(path, targetMeta{Version: SchemaVersion, Pool: meta.UUID, Index: i})
		undo = append(undo, made...)
		if err != nil {
			return err
		}
	}
	b, err := json.MarshalIndent(meta, "", "  ")
	if err != nil {
		return err
	}
	if err := writeFile(filepath.Join(stage, poolFile), append(b, '\n')); err != nil {
		return err
	}
	undo = append(undo, filepath.Join(stage, poolFile))
	if err := syncDir(stage); err != nil {
		return err
	}
	if !dirExists {
		if err := os.Rename(stage, dir); err != nil {
			return err
		}
	}
	if err := syncDir(filepath.Dir(dir)); err != nil {
		return err
	}
	ok = true
	return nil
}

// planTargets returns the targets pool.json will name.
func planTargets(dir string, o CreateOptions) ([]string, error) {
	if len(o.Targets) > 0 {
		if o.NTargets != 0 && o.NTargets != len(o.Targets) {
			return nil, fmt.Errorf("%d targets named and NTargets %d: %w", len(o.Targets), o.NTargets, object.ErrInvalid)
		}
		out := make([]string, len(o.Targets))
		for i, t := range o.Targets {
			abs, err := filepath.Abs(t)
			if err != nil {
				return nil, err
			}
			out[i] = abs
		}
		return out, nil
	}
	n := o.NTargets
	if n == 0 {
		n = DefaultTargets
	}
	if n < 1 || n > MaxTargets {
		return nil, fmt.Errorf("%d targets: %w (want 1 to %d)", n, object.ErrInvalid, MaxTargets)
	}
	out := make([]string, n)
	for i := range out {
		out[i] = "tgt" + strconv.Itoa(i)
	}
	return out, nil
}

// checkPoolDir checks that a pool can be made in dir and says whether dir
// exists (and is empty) already.
func checkPoolDir(dir string) (bool, error) {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		parent := filepath.Dir(dir)
		if pfi, err := os.Stat(parent); err != nil {
			return false, err
		} else if !pfi.IsDir() {
			return false, fmt.Errorf("%s is not a directory: %w", parent, object.ErrInvalid)
		}
		return false, writable(parent)
	case err != nil:
		return false, err
	case !fi.IsDir():
		return false, fmt.Errorf("%s is a %s, not a directory: %w", dir, kind(fi), object.ErrInvalid)
	}
	if _, err := os.Stat(filepath.Join(dir, poolFile)); err == nil {
		return false, fmt.Errorf("%s holds a pool already: %w", dir, object.ErrExist)
	}
	if err := emptyDir(dir); err != nil {
		return false, err
	}
	return true, writable(dir)
}

// checkTargetDir checks that t can become a target: missing (with a
// writable parent) or an empty writable directory, and not the pool's own.
func checkTargetDir(dir, t string) error {
	if abs, err := filepath.Abs(dir); err == nil && (t == abs || strings.HasPrefix(abs, t+"/")) {
		return fmt.Errorf("target %s holds the pool directory: %w", t, object.ErrInvalid)
	}
	fi, err := os.Stat(t)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return writable(filepath.Dir(t))
	case err != nil:
		return err
	case !fi.IsDir():
		return fmt.Errorf("target %s is a %s, not a directory: %w", t, kind(fi), object.ErrInvalid)
	}
	if err := emptyDir(t); err != nil {
		return fmt.Errorf("target %w", err)
	}
	return writable(t)
}

// makeTarget makes the target directory path (unless it exists) and its
// target.json, and returns what it made for undoing.
func makeTarget(path string, m targetMeta) ([]string, error) {
	var made []string
	if err := os.Mkdir(path, 0o755); err == nil {
		made = append(made, path)
	} else if !errors.Is(err, fs.ErrExist) {
		return nil, err
	}
	b, err := json.Marshal(m)
	if err != nil {
		return made, err
	}
	tf := filepath.Join(path, targetFile)
	if err := writeFile(tf, append(b, '\n')); err != nil {
		return made, err
	}
	if len(made) == 0 {
		made = append(made, tf)
	}
	return made, syncDir(path)
}

func emptyDir(dir string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	if len(ents) > 0 {
		return fmt.Errorf("%s is not empty (%s, ...): %w", dir, ents[0].Name(), object.ErrInvalid)
	}
	return nil
}

// writable says why dir is not writable by this process, if it is not.
func writable(dir string) error {
	err := unix.Access(dir, unix.W_OK|unix.X_OK)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, unix.ENOENT), errors.Is(err, unix.ENOTDIR):
		return &fs.PathError{Op: "access", Path: dir, Err: err}
	}
	return fmt.Errorf("%s is not writable (%v): %w", dir, err, fs.ErrPermission)
}

func kind(fi fs.FileInfo) string {
	if fi.Mode().IsRegular() {
		return "regular file"
	}
	return "file of mode " + fi.Mode().Type().String()
}

// writeFile writes b to a new file at path and syncs it.
func writeFile(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// newUUID returns a random (version 4) UUID.
func newUUID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
