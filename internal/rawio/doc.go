// Package rawio is system calls without the Go scheduler's system-call
// hand-off: pread(2) and pwrite(2) for transfers that copy to or from the
// page cache in a loop that has nothing else to run meanwhile (IOR's timed
// loop in aiori/posix, the object store engine's buffered extent I/O in
// objstore/store; see rawio.go for when that is safe), and Conn, read(2)
// and write(2) on a nonblocking socket that never wake the runtime's
// sysmon thread (the PMI lines that cross while ranks time a phase; see
// conn.go).
package rawio
