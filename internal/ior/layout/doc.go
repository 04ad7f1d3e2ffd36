// Package layout decides where every transfer of an IOR-style run goes:
// the file each rank opens (-o, -F, -u, -m), the offset of each transfer
// (-b, -t, -s, -z, --random-offset-seed) and whose data a rank reads back
// (-C, -Z, -Q, -X). It does no I/O and keeps no state: everything is a
// pure function of the parameters, so every rank computes the same answer
// for every other rank, and a later run (or a later hpcbench version) can
// find and verify what an earlier one wrote. The formulas below are that
// contract.
//
// # File names (Naming)
//
// -o may hold several names separated by '@'. A shared file is always the
// first name. With -F, rank p (the pretend rank, see below) uses name
// p mod count, followed by "." and p printed with %08d:
// "ior_fpp.00000001". With -u (file-per-process only) the rank's own
// directory is inserted before the last path element: "/dir/f" becomes
// "/dir/1/f.00000001" and a bare "f" becomes "1/f.00000001"; the directory
// number is the pretend rank in decimal, not padded. IOR's PrependDir does
// this too, except for a name without '/', where it splits after the first
// character ("testFile" becomes "t1/estFile.00000001"); this package
// writes "1/testFile.00000001". -u with several '@' names is rejected, as
// IOR rejects it. With -m, ".<rep>" is appended to every name (shared or
// not), rep counting from 0.
//
// # Offsets (Geometry, Plan)
//
// A run moves Segments segments; in each, every rank moves one block of
// BlockSize bytes in BlockSize/TransferSize = k transfers. N is the number
// of tasks, B the block size, T the transfer size, p the pretend rank, s
// the segment and j the transfer within it. A Plan holds the k offsets
// within a segment, computed before the timed loop, and adds a segment
// base (offset = base(s) + within[j]: no allocation and no random numbers
// while timing, and memory in O(k), plus O(segments) for -z -z only,
// never O(segments × k), which matters for IO500's -s 10000000).
//
//	sequential, shared:  base(s) = s*N*B + p*B   within[j] = j*T
//	sequential, -F:      base(s) = s*B           within[j] = j*T
//	-z, -F:              base(s) = s*B           within    = the j*T shuffled
//	-z, shared:          base(s) = s*N*B         within[j] = deal(p*k + j) * T
//	-z -z:               base(s) = blk[s] * B    within[j] = j*T
//
// The random choices use splitmix64, all arithmetic modulo 2^64:
//
//	mix(x)   = x ^= x>>30; x *= 0xbf58476d1ce4e5b9
//	           x ^= x>>27; x *= 0x94d049bb133111eb; x ^= x>>31
//	draw     = x += 0x9e3779b97f4a7c15; return mix(x)
//	below(n) = the high 64 bits of the 128-bit product draw × n, in [0, n)
//
// A stream is seeded with
// x = mix(mix(seed XOR domain) + a), where seed is the effective
// --random-offset-seed (OffsetSeed) or -X seed (ReorderSeed), domain is a
// constant per use and a is the pretend rank where the choice is per rank
// (0 otherwise):
//
//   - -z with -F: each rank shuffles its k offsets with Fisher–Yates from
//     the end (for i = k-1 down to 1: swap i with below(i+1)), stream
//     DomainShuffle, a = p. The same order is used in every segment, as in
//     IOR.
//   - -z on a shared file: the N*k transfers of a segment's region are
//     permuted by deal, a keyed bijection of [0, N*k) common to all ranks
//     (stream DomainDeal, a = 0), and rank p takes positions p*k .. p*k+k-1
//     of the permutation. Every transfer of the file is written exactly
//     once, every rank moves exactly k transfers per segment, in a random
//     order, and whoever verifies p's data recomputes exactly p's share.
//     (IOR deals each transfer to rank rand() % N, so ranks move different
//     amounts.) deal is a 6-round balanced Feistel network on h = ⌈b/2⌉-bit
//     halves, b the bit length of N*k-1, with round keys K0..K5 the first
//     six draws of the stream: (L, R) → (R, L XOR (mix(R XOR Kr) & (2^h-1)));
//     values ≥ N*k are walked through the network again (cycle walking)
//     until they fall below N*k. With N*k = 1, deal(0) = 0.
//   - -z -z: blk[s] = below(number of blocks in the file) for each segment,
//     stream DomainRandom, a = p; then, with -F or for pretend rank 0, blk[0]
//     is replaced by the last block, so the file reaches its full size at
//     once (IOR does this on write only; here the read does the same so it
//     reads what was written). Blocks may repeat and, on a shared file,
//     ranks may overwrite each other's blocks: verification of -z -z data
//     is sound only with -F. The number of blocks is that of one file
//     (Segments with -F, Segments*N shared); IOR's main loop forgets to
//     divide the read size by N for -F (the division is commented out)
//     while its stonewall wear-out loop divides. The transfers inside the
//     block are sequential, as in IOR. A read of a file that holds fewer
//     blocks than that (written with fewer segments) draws from the
//     blocks the file has (Geometry.FileBlocks), as IOR draws from the
//     file's size; a larger file is read as if it were the test's.
//
// # Task reordering (Reorder, Topology)
//
// A rank that reads (or checks) data normally reads its own. With
// reordering it reads the data of pretend rank p = (rank + offset) mod N,
// which names its file (-F), its block (shared file) and its expected
// data pattern. The write phase always uses offset 0.
//
//   - -C (Constant): offset = Q*shift for the read phase and (Q+1)*shift
//     for the -W check pass, where shift = tasks on node 0 when the job
//     spans several nodes and is placed by slot (rank 1 on rank 0's node),
//     else 1. IOR uses shift = tasks on node 0 also on a single node, so
//     there the offset is N*Q mod N = 0 and -C silently reads the rank's
//     own data; here one node gives shift = 1. When the offset is 0 mod N
//     and N > 1 (say -W with Q=1 on 2 ranks of one node) the next of Q*shift
//     (check pass only), shift, 1 that is not 0 mod N is used instead, so a
//     rank never reads its own data when another choice exists.
//   - -Z once (Random): each rank draws its offset independently, uniform
//     in [lo, N) with lo = min(Q, nodes-1) * tasks on node 0 (capped at
//     N-1), stream DomainReorder seeded with ReorderSeed(X, rep), a = rank.
//     This is IOR's behaviour, collisions included: two ranks may read the
//     same data and some data is never read (IOR issues #500/#512), and on
//     one node a rank may read its own data. It applies to the read phase
//     only; -W checks the rank's own data, as in IOR.
//   - -Z -Z (Shuffle): p = Permutation(N, ReorderSeed(X, rep))[rank], a
//     Fisher–Yates shuffle common to all ranks (for i = 0 .. N-2: swap i
//     with i + below(N-i), stream DomainPermutation, a = 0): a true
//     permutation, though a rank may map to itself. Read phase only.
//   - -X: a negative X seeds with |X| + rep, so each repetition differs.
package layout
