package io500

import (
	"context"
	"fmt"
	"os"

	pipeline "github.com/hpcbench/hpcbench/internal/run"
)

// withFS opens the data dir's namespace on every rank, runs fn and closes
// it.
func (b *Benchmark) withFS(ctx context.Context, e *pipeline.Env, fn func(FS) error) error {
	open := b.Namespace
	if open == nil {
		open = func(context.Context, *pipeline.Env) (FS, error) { return NewOSFS() }
	}
	fsys, err := open(ctx, e)
	if err != nil {
		return fmt.Errorf("io500: the data dir's namespace: %w", err)
	}
	err = fn(fsys)
	if cerr := fsys.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("io500: the data dir's namespace: %w", cerr)
	}
	return err
}

// makeDataDirs makes the data dir's phase directories, as IO500's phases
// do before the run.
func makeDataDirs(fsys FS, p *Plan) error {
	for _, d := range []string{"ior-easy", "ior-hard", "mdtest-easy", "mdtest-hard"} {
		if err := fsys.MkdirAll(p.DataDir + "/" + d); err != nil {
			return fmt.Errorf("datadir: %w", err)
		}
	}
	return nil
}

// cleanupOwn removes this rank's ior-easy file, as IO500's cleanup: what
// is not there is no error.
func cleanupOwn(fsys FS, rank int, p *Plan) {
	if p.Config.Bool("ior-easy", "filePerProc") {
		_ = fsys.Remove(fmt.Sprintf("%s/ior-easy/ior_file_easy.%08d", p.DataDir, rank))
	}
}

// cleanupShared removes, on rank 0 once every rank removed its own files,
// the rest of what the phases left, as IO500: the stonewall files (results
// dir), the shared ior files, the phase directories and the data dir when
// empty (its namespace). What is not there is no error.
func cleanupShared(fsys FS, p *Plan) {
	for _, f := range []string{"ior-easy.stonewall", "ior-hard.stonewall", "mdtest-easy.stonewall", "mdtest-hard.stonewall"} {
		_ = os.Remove(p.res(f))
	}
	_ = fsys.Remove(p.DataDir + "/ior-easy/ior_file_easy")
	_ = fsys.Remove(p.DataDir + "/ior-hard/file")
	for _, d := range []string{"/ior-easy", "/ior-hard", "/mdtest-easy", "/mdtest-hard", ""} {
		_ = fsys.Remove(p.DataDir + d)
	}
}
