// Code generated from the IO500 application's --list output (IO500/io500
// 02091cf); DO NOT EDIT by hand: the option table is fixed by the INI files
// users keep.

package io500

// optionTable is every section and option IO500's INI files take, in
// IO500's order (its phases array), with its help line, type and default.
var optionTable = []section{
	{Name: "global", Options: []option{
		{Name: "datadir", Kind: kindString, Help: "The directory where the IO500 runs", Default: "./datafiles", Mandatory: true},
		{Name: "timestamp-datadir", Kind: kindBool, Help: "The data directory is suffixed by a timestamp. Useful for running several IO500 tests concurrently.", Default: "TRUE"},
		{Name: "resultdir", Kind: kindString, Help: "The result directory.", Default: "./results"},
		{Name: "timestamp-resultdir", Kind: kindBool, Help: "The result directory is suffixed by a timestamp. Useful for running several IO500 tests concurrently.", Default: "TRUE"},
		{Name: "api", Kind: kindString, Help: "The general API for the tests (to create/delete the datadir, extra options will be passed to IOR/mdtest)", Default: "POSIX"},
		{Name: "drop-caches", Kind: kindBool, Help: "Purge the caches, this is useful for testing and needed for single node runs", Default: "FALSE"},
		{Name: "drop-caches-cmd", Kind: kindString, Help: "Cache purging command, invoked before each I/O phase", Default: "sudo -n bash -c \"echo 3 > /proc/sys/vm/drop_caches\""},
		{Name: "io-buffers-on-gpu", Kind: kindBool, Help: "Allocate the I/O buffers on the GPU", Default: "FALSE"},
		{Name: "verbosity", Kind: kindUint, Help: "The verbosity level between 1 and 10", Default: "1"},
		{Name: "scc", Kind: kindBool, Help: "Use the rules for the Student Cluster Competition", Default: "FALSE"},
		{Name: "dataPacketType", Kind: kindString, Help: "Type of packet that will be created [timestamp|offset|incompressible|random]", Default: "timestamp"},
	}},
	{Name: "debug", Options: []option{
		{Name: "stonewall-time", Kind: kindInt, Help: "For a valid result, the stonewall timer must be set to the value according to the rules. If smaller INVALIDATES RUN; FOR DEBUGGING.", Default: "300"},
		{Name: "pause-dir", Kind: kindString, Help: "Pause between phases while in this directory lies a file with the phase name, e.g., easy-create. This can be useful for performance testing, e.g., of tiered storage. At the moment it INVALIDATES RUN; FOR DEBUGGING."},
	}},
	{Name: "ior-easy", Options: []option{
		{Name: "API", Kind: kindString, Help: "The API to be used"},
		{Name: "transferSize", Kind: kindString, Help: "Transfer size", Default: "2m"},
		{Name: "blockSize", Kind: kindString, Help: "Block size; must be a multiple of transferSize", Default: "9920000m"},
		{Name: "filePerProc", Kind: kindBool, Help: "Create one file per process", Default: "TRUE"},
		{Name: "uniqueDir", Kind: kindBool, Help: "Use unique directory per file per process", Default: "FALSE"},
		{Name: "run", Kind: kindBool, Help: "Run this phase", Default: "TRUE"},
		{Name: "verbosity", Kind: kindInt, Help: "The verbosity level"},
	}},
	{Name: "ior-easy-write", Options: []option{
		{Name: "API", Kind: kindString, Help: "The API to be used"},
		{Name: "run", Kind: kindBool, Help: "Run this phase", Default: "TRUE"},
	}},
	{Name: "mdtest-easy", Options: []option{
		{Name: "API", Kind: kindString, Help: "The API to be used"},
		{Name: "n", Kind: kindUint, Help: "Files per proc", Default: "1000000"},
		{Name: "run", Kind: kindBool, Help: "Run this phase", Default: "TRUE"},
	}},
	{Name: "mdtest-easy-write", Options: []option{
		{Name: "API", Kind: kindString, Help: "The API to be used"},
		{Name: "run", Kind: kindBool, Help: "Run this phase", Default: "TRUE"},
	}},
	{Name: "mdworkbench", Options: []option{
		{Name: "API", Kind: kindString, Help: "The API to be used"},
		{Name: "waitingTime", Kind: kindFloat, Help: "Waiting time of an IO operation relative to runtime (1.0 is 100%%)", Default: "0.0"},
		{Name: "precreatePerSet", Kind: kindUint, Help: "Files to precreate per set (always 10 sets), this is normally dynamically determined"},
		{Name: "filesPerProc", Kind: kindUint, Help: "Files to run per iteration and set (always 10 sets), this is normally dynamically determined"},
		{Name: "run", Kind: kindBool, Help: "Run this phase", Default: "TRUE"},
		{Name: "verbosity", Kind: kindInt, Help: "The verbosity level"},
	}},
	{Name: "mdworkbench-create", Options: []option{
		{Name: "run", Kind: kindBool, Help: "Run this phase", Default: "TRUE"},
	}},
	{Name: "timestamp", Options: []option{}},
	{Name: "find-easy", Options: []option{
		{Name: "external-script", Kind: kindString, Help: "Set to an external script to perform the find phase"},
		{Name: "external-mpi-args", Kind: kindString, Help: "Startup arguments for external scripts, some MPI's may not support this!", EmptyDefault: true},
		{Name: "external-extra-args", Kind: kindString, Help: "Extra arguments for the external scripts", EmptyDefault: true},
		{Name: "nproc", Kind: kindUint, Help: "Set the number of processes for pfind/the external script"},
		{Name: "run", Kind: kindBool, Help: "Run this phase", Default: "TRUE"},
		{Name: "pfind-queue-length", Kind: kindInt, Help: "Pfind queue length", Default: "10000"},
		{Name: "pfind-steal-next", Kind: kindBool, Help: "Pfind Steal from next", Default: "FALSE"},
		{Name: "pfind-parallelize-single-dir-access-using-hashing", Kind: kindBool, Help: "Parallelize the readdir by using hashing. Your system must support this!", Default: "FALSE"},
	}},
	{Name: "ior-hard", Options: []option{
		{Name: "API", Kind: kindString, Help: "The API to be used"},
		{Name: "segmentCount", Kind: kindInt, Help: "Number of segments", Default: "10000000"},
		{Name: "collective", Kind: kindBool, Help: "Collective operation (for supported backends)"},
		{Name: "run", Kind: kindBool, Help: "Run this phase", Default: "TRUE"},
		{Name: "verbosity", Kind: kindInt, Help: "The verbosity level"},
	}},
	{Name: "ior-hard-write", Options: []option{
		{Name: "API", Kind: kindString, Help: "The API to be used"},
		{Name: "collective", Kind: kindBool, Help: "Collective operation (for supported backends)"},
		{Name: "run", Kind: kindBool, Help: "Run this phase", Default: "TRUE"},
	}},
	{Name: "mdtest-hard", Options: []option{
		{Name: "API", Kind: kindString, Help: "The API to be used"},
		{Name: "n", Kind: kindUint, Help: "Files per proc", Default: "1000000"},
		{Name: "files-per-dir", Kind: kindUint, Help: "File limit per directory (MDTest -I flag) to overcome file system limitations INVALIDATES RUN; FOR DEBUGGING."},
		{Name: "run", Kind: kindBool, Help: "Run this phase", Default: "TRUE"},
	}},
	{Name: "mdtest-hard-write", Options: []option{
		{Name: "API", Kind: kindString, Help: "The API to be used"},
		{Name: "run", Kind: kindBool, Help: "Run this phase", Default: "TRUE"},
	}},
	{Name: "find", Options: []option{
		{Name: "external-script", Kind: kindString, Help: "Set to an external script to perform the find phase"},
		{Name: "external-mpi-args", Kind: kindString, Help: "Startup arguments for external scripts, some MPI's may not support this!", EmptyDefault: true},
		{Name: "external-extra-args", Kind: kindString, Help: "Extra arguments for the external scripts", EmptyDefault: true},
		{Name: "nproc", Kind: kindUint, Help: "Set the number of processes for pfind/the external script"},
		{Name: "run", Kind: kindBool, Help: "Run this phase", Default: "TRUE"},
		{Name: "pfind-queue-length", Kind: kindInt, Help: "Pfind queue length", Default: "10000"},
		{Name: "pfind-steal-next", Kind: kindBool, Help: "Pfind Steal from next", Default: "FALSE"},
		{Name: "pfind-parallelize-single-dir-access-using-hashing", Kind: kindBool, Help: "Parallelize the readdir by using hashing. Your system must support this!", Default: "FALSE"},
	}},
	{Name: "find-hard", Options: []option{
		{Name: "external-script", Kind: kindString, Help: "Set to an external script to perform the find phase"},
		{Name: "external-mpi-args", Kind: kindString, Help: "Startup arguments for external scripts, some MPI's may not support this!", EmptyDefault: true},
		{Name: "external-extra-args", Kind: kindString, Help: "Extra arguments for the external scripts", EmptyDefault: true},
		{Name: "nproc", Kind: kindUint, Help: "Set the number of processes for pfind/the external script"},
		{Name: "run", Kind: kindBool, Help: "Run this phase", Default: "TRUE"},
		{Name: "pfind-queue-length", Kind: kindInt, Help: "Pfind queue length", Default: "10000"},
		{Name: "pfind-steal-next", Kind: kindBool, Help: "Pfind Steal from next", Default: "FALSE"},
		{Name: "pfind-parallelize-single-dir-access-using-hashing", Kind: kindBool, Help: "Parallelize the readdir by using hashing. Your system must support this!", Default: "FALSE"},
	}},
	{Name: "mdworkbench-bench", Options: []option{
		{Name: "run", Kind: kindBool, Help: "Run this phase", Default: "TRUE"},
	}},
	{Name: "ior-easy-read", Options: []option{
		{Name: "API", Kind: kindString, Help: "The API to be used"},
		{Name: "run", Kind: kindBool, Help: "Run this phase", Default: "TRUE"},
	}},
	{Name: "mdtest-easy-stat", Options: []option{
		{Name: "API", Kind: kindString, Help: "The API to be used"},
		{Name: "run", Kind: kindBool, Help: "Run this phase", Default: "TRUE"},
	}},
	{Name: "ior-hard-read", Options: []option{
		{Name: "API", Kind: kindString, Help: "The API to be used"},
		{Name: "collective", Kind: kindBool, Help: "Collective operation (for supported backends)"},
		{Name: "run", Kind: kindBool, Help: "Run this phase", Default: "TRUE"},
	}},
	{Name: "mdtest-hard-stat", Options: []option{
		{Name: "API", Kind: kindString, Help: "The API to be used"},
		{Name: "run", Kind: kindBool, Help: "Run this phase", Default: "TRUE"},
	}},
	{Name: "mdworkbench-delete", Options: []option{
		{Name: "run", Kind: kindBool, Help: "Run this phase", Default: "TRUE"},
	}},
	{Name: "mdtest-easy-delete", Options: []option{
		{Name: "API", Kind: kindString, Help: "The API to be used"},
		{Name: "run", Kind: kindBool, Help: "Run this phase", Default: "TRUE"},
	}},
	{Name: "mdtest-hard-read", Options: []option{
		{Name: "API", Kind: kindString, Help: "The API to be used"},
		{Name: "run", Kind: kindBool, Help: "Run this phase", Default: "TRUE"},
	}},
	{Name: "mdtest-hard-delete", Options: []option{
		{Name: "API", Kind: kindString, Help: "The API to be used"},
		{Name: "run", Kind: kindBool, Help: "Run this phase", Default: "TRUE"},
	}},
	{Name: "ior-rnd4K-easy-read", Options: []option{
		{Name: "API", Kind: kindString, Help: "The API to be used"},
		{Name: "run", Kind: kindBool, Help: "Run this phase", Default: "TRUE"},
	}},
}
