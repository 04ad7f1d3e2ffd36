// Package fabtest is the engine of hpcbench fabric: the tests of
// libfabric's fabtests (fi_pingpong, fi_msg_bw) and perftest (ib_send_lat,
// ib_send_bw) between two ends of a Link, whichever transport carries it.
//
// One end, the initiator (the client, or rank 0), plans the run and sends
// the plan first; the other, the responder, follows it, so a server needs
// no test options of its own. Every size runs a warm-up, then the timed
// iterations (or, with a duration, as many as fit), each timed on its own
// for the percentiles; the responder then reports what it received. At the
// end the initiator sends the rows, so both ends print the same table.
//
// The figures, as fabtests prints them (Row):
//
//	bytes       the transfer size
//	#sent       timed messages the initiator sent (ping-pong: iterations)
//	#ack        timed messages the responder received, "=" when all
//	total       bytes moved by the timed transfers, both ways
//	time        the timed run's wall-clock seconds
//	MB/sec      total / time, in 10^6 bytes per second
//	usec/xfer   time / transfers: for the ping-pong, half a round trip
//	            (the one-way latency), for the bandwidth test one message
//	Mxfers/sec  transfers per microsecond
//	p50 p99 max percentiles of one transfer's time over the iterations
//	min MB/sec  duration mode: the least bandwidth of an interval (the last one too, when it is half an interval or more)
package fabtest
