// Package rawio is pread(2) and pwrite(2) without the Go scheduler's
// system-call hand-off, for transfers that copy to or from the page cache
// in a loop that has nothing else to run meanwhile: IOR's timed loop
// (aiori/posix) and the object store engine's buffered extent I/O
// (aiori/dfs/store). See rawio.go for when that is safe.
package rawio
