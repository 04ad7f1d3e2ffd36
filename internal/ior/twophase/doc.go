// Package twophase plans collective I/O the way ROMIO's two-phase method
// (Thakur and Choudhary's "extended two-phase method", MPICH's
// adio/common/ad_write_coll.c, ad_read_coll.c and ad_aggregate.c) does,
// for `ior -c`: which ranks aggregate, which part of the file each one
// owns, and which bytes move in which round. It does no I/O and no
// communication; the engine (internal/ior) gathers every rank's extents,
// asks this package for the plan, and moves the data over the job's
// collectives.
//
// # The method
//
//  1. Every rank's access is a Request: pieces of equal size at increasing
//     file offsets (IOR's transfers). The engine gathers each rank's
//     Extent (first byte, end) from every rank.
//  2. Interleaved applies ROMIO's test to the extents in rank order: rank
//     i's start falls before rank i-1's last byte. Under the automatic
//     mode (romio_cb_write and romio_cb_read's default), accesses that do
//     not interleave are done independently: ROMIO's fallback.
//  3. Otherwise the range from the smallest start to the largest end is
//     split into one contiguous file domain per aggregator, each of
//     ceil(range / aggregators) bytes (FileDomains, ROMIO's
//     ADIOI_Calc_file_domains), their ends moved to the nearest multiple of
//     striping_unit when it is set; the last domains may be short or
//     empty.
//  4. Aggregators (Aggregators) are the first rank of each host, in the
//     order hosts first appear among the ranks, as cb_config_list "*:1"
//     picks them, cut to cb_nodes; "*:N" takes up to N ranks per host.
//  5. Each aggregator works through the requested part of its domain, from
//     the first requested byte to the last, in rounds of cb_buffer_size
//     bytes (ROMIO's ntimes); the job runs as many rounds as the busiest
//     aggregator needs. In a round every rank sends the bytes of its
//     pieces that fall in an aggregator's round range to that aggregator,
//     which writes the range with one contiguous call, after reading it
//     first when the pieces leave holes in it (read-modify-write). A read
//     mirrors this: the aggregator reads the range once and sends each
//     rank its bytes.
//
// Where ROMIO exchanges offset lists (an alltoall of counts, then the
// lists) and sizes every round (an alltoall), here every rank computes
// every other rank's pieces from the layout, which all ranks know, so a
// phase needs one allgather of the extents and then only the data
// messages. Requests are never flattened into lists: pieces are found by
// binary search, so memory stays bounded by cb_buffer_size however many
// transfers a rank makes.
//
// # Hints
//
// Hints holds the hints `ior -c` honours, with ROMIO's defaults:
// cb_buffer_size (16 MiB), cb_nodes (one aggregator per host),
// cb_config_list ("*:1"), romio_cb_write and romio_cb_read (automatic,
// enable or disable) and striping_unit (0, no alignment). They come, as IOR passes them to MPI_File_open,
// from the environment (IOR_HINT__MPI__key=value) and from a hints file
// (lines IOR_HINT__MPI__key=value, ParseHintsFile), and hpcbench also
// takes them as -O key=value. Other MPI hints (romio_ds_write,
// ind_wr_buffer_size, ...) are accepted and reported as not used.
package twophase
