// Package pmi implements the PMI-1 ("simple PMI" 1.1) wire protocol used by
// MPICH's Hydra, Slurm's pmi2 plugin and Flux (RFC 13): a line parser and
// formatter (wire.go), a server state machine with no I/O (engine.go), a
// server that serves socketpair fds and a loopback TCP port (server.go) and a
// client that discovers its server through PMI_FD, PMI_PORT or runs as a
// singleton (client.go).
//
// The protocol is lock-step text: one request line, one reply line, except
// barrier_in whose barrier_out arrives only when every rank has entered and
// abort which has no reply. Values never contain spaces; they may contain '='.
package pmi
