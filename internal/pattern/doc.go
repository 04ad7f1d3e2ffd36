// Package pattern writes and checks the data IOR-style benchmarks put in
// their files: IOR's data signatures (-l timestamp, offset, incompressible
// or random), generated into a transfer buffer before a write and compared
// word by word after a read (-W, -R).
//
// # The contract
//
// The formulas below are a file format: a file written by one hpcbench
// version must verify with the next, so they never change. The golden
// vectors in pattern_test.go pin them.
//
// A buffer is a sequence of 8-byte words stored little-endian; word i
// covers bytes 8i..8i+7 of the buffer. The buffer holds one transfer, the
// bytes at file offset "offset" .. offset+len-1, of the data owned by
// "rank" (the pretend rank: the rank whose data a reader expects, see
// package layout) under the data signature "sig" (the per-repetition value
// rank 0 broadcasts, or -G). All arithmetic is on uint64 modulo 2^64;
// uint64(rank) and uint64(offset) are two's-complement conversions.
//
//	mix(x)  = splitmix64's finalizer:
//	          x ^= x>>30; x *= 0xbf58476d1ce4e5b9
//	          x ^= x>>27; x *= 0x94d049bb133111eb
//	          x ^= x>>31
//	pos(i)  = uint64(offset) + 8*i               (file byte offset of word i)
//	stamp(i)= pos(i) XOR (uint64(rank) << 48)
//	key(d)  = mix(mix(sig XOR d) + uint64(rank))
//	prng(d, i) = mix(key(d) + pos(i) * 0x9e3779b97f4a7c15)
//
// Per type, word i is:
//
//	timestamp       (uint64(uint32(rank)) << 32) | uint64(uint32(uint32(sig) + uint32(i)))
//	offset          stamp(i) if i % 512 == 0, else the timestamp word
//	incompressible  stamp(i) if i % 512 == 0, else prng(DomainIncompressible, i)
//	random          prng(DomainRandom, i)
//
// with DomainIncompressible = 0x6870636200696e63 and DomainRandom =
// 0x687063620072616e. When len is not a multiple of 8 the last, partial
// word holds the first len%8 bytes (little-endian, i.e. the low-order
// bytes) of the word the formula gives for its index, so Fill of a prefix
// of a buffer is the prefix of Fill of the buffer. Verify compares that
// partial word too and counts it as one word.
//
// What the words mean:
//
//   - timestamp is IOR's: the rank in the high half, the signature plus the
//     word index in the low half. IOR computes the low half in 64 bits, so
//     a signature above 2^31 (as an int) spills into the rank bits; here it
//     wraps modulo 2^32, which agrees with IOR for every Unix time before
//     2038 and every -G below 2^31. It does not depend on the offset:
//     every transfer of a rank is identical, and a block read from the
//     right rank at the wrong offset passes. Highly compressible.
//   - offset is timestamp with the first word of every 512 (every 4 KiB of
//     the transfer) replaced by a stamp that is unique for each file
//     position of a rank: the word's own file offset, with the rank XORed
//     into the top 16 bits (so for offsets below 256 TiB the stamp reads as
//     rank:offset in hex). IOR stamps (uint32)offset*k | rank<<32 instead,
//     which repeats above 4 GiB and is 0 for every block of the transfer
//     at offset 0; this stamp is position-unique for any offset.
//   - incompressible is a pseudo-random stream (splitmix64 in counter mode
//     keyed by signature and rank) plus the offset stamps. Unlike IOR's,
//     whose generator is reseeded for every word so all words are equal,
//     it is genuinely incompressible: a deflate at best compression keeps
//     more than 99% of it.
//   - random is the same kind of stream with another key and no stamps.
//     IOR seeds its writer with -G (0 when unset) and its verifier with
//     the effective signature, so -l random -W fails without -G; here
//     writer and verifier use the same key by construction.
//
// The pseudo-random words depend on the file position, not on the
// transfer: data written with -t 1m verifies when read back with -t 64k.
// The stamps of offset and incompressible sit at word 0, 512, 1024, ... of
// each transfer (as IOR places them), so those two types verify only with
// the transfer boundaries they were written with.
//
// # Speed
//
// The engine fills its transfer buffer once per repetition (Fill) and, for
// a write, calls Stamp before each transfer. Stamp does only what depends
// on the offset:
//
//	timestamp       nothing (every transfer is identical)
//	offset          one word in 512 (the stamps)
//	incompressible  every word (the stream is keyed by position)
//	random          every word
//
// Type.PerTransfer reports which types need Stamp. Fill, Stamp, Verify and
// Poison do not allocate; they run at several GB/s on one core (see the
// benchmarks).
package pattern
