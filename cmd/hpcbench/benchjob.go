package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/hpcbench/hpcbench/internal/job"
	"github.com/hpcbench/hpcbench/report"
)

// benchJob runs one benchmark on this rank of a job: it bootstraps the job
// (PMI, transports, collectives), calls run, tears the job down, and lets
// rank 0 write the reports. An error matching soft (verification failed,
// operations failed) still gets its reports written and then exits 1;
// any other error aborts the job through PMI, so that every rank stops
// at once, and is returned as it is.
func benchJob(ctx context.Context, name string, soft error,
	run func(j *job.Job, host string) (*report.Result, error), write func(*report.Result) error) error {
	trs, err := transports()
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	j, err := job.Start(ctx, job.Options{Fabric: job.FabricAuto, Transports: trs})
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	host, _ := os.Hostname()
	res, runErr := run(j, host)
	if runErr != nil && !errors.Is(runErr, soft) {
		code := 1
		var ue *usageError
		if errors.As(runErr, &ue) {
			code = 2
		}
		j.PMI.Abort(code, name+" failed")
		return runErr
	}
	closeCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := j.Close(closeCtx); err != nil {
		return err
	}
	rank := j.PMI.Rank()
	if rank == 0 && res != nil {
		if err := write(res); err != nil {
			return err
		}
	}
	if runErr != nil {
		if rank == 0 {
			return &exitError{code: 1, msg: runErr.Error()}
		}
		return &exitError{code: 1}
	}
	return nil
}
