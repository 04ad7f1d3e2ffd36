// Package hostmem says how much memory this host can give a run's buffers
// (MemAvailable from /proc/meminfo, or a memory cgroup's room when
// smaller) and words the refusal of buffers that do not fit (BufferError),
// which every benchmark's memory check shares.
package hostmem
