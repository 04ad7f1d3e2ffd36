package verbs

import (
	"fmt"
	"net"
	"strconv"
	"time"
)

// Defaults for Options.
const (
	DefaultPort             = 1
	DefaultListen           = ":0"
	DefaultHandshakeTimeout = 10 * time.Second
	// DefaultSlotSize is the receive slot: a message up to 8 KiB less the
	// 16-byte header goes in one; longer ones take several.
	DefaultSlotSize = 8 << 10
	// DefaultSlots is the receives each side keeps posted: 64 slots of
	// 8 KiB are 512 KiB in flight, enough to cover a 100 Gb/s link's
	// round trip of a few microseconds many times over.
	DefaultSlots = 64
	// DefaultInline is the largest send (header included) posted inline;
	// the device may allow less, and then its limit is used.
	DefaultInline = 64
	// DefaultSpin is how long a waiting call busy-polls before it backs
	// off (see wait.go).
	DefaultSpin = 10 * time.Millisecond
	// AutoGID selects the GID index itself: on RoCE a RoCE v2 entry with
	// an IPv4-mapped address, on InfiniBand none (the LID routes).
	AutoGID = -1
)

// Options configures the verbs transport. The zero value is valid: every
// zero field takes its default, except GIDIndex, whose zero is GID index 0
// (use AutoGID, or DefaultOptions, to let the transport choose).
type Options struct {
	// Device is the RDMA device to use ("mlx5_0"); when empty, the first
	// device whose Port is active.
	Device string
	// Port is the device's port, from 1; DefaultPort when 0.
	Port int
	// GIDIndex is the port's GID table entry the connection's GRH uses;
	// AutoGID (-1) chooses. An explicit index on InfiniBand routes by GID
	// (with a GRH) instead of by LID, as perftest's -x does.
	GIDIndex int
	// Inline is the largest send posted inline (copied into the work
	// request, no DMA read of the buffer); DefaultInline when 0, none when
	// negative.
	Inline int
	// SlotSize is the size of each receive slot; DefaultSlotSize when 0.
	// In [MinSlotSize, MaxSlotSize].
	SlotSize int
	// Slots is how many receives each side keeps posted (and so how many
	// messages may be in flight towards it); DefaultSlots when 0. In
	// [MinSlots, MaxSlots].
	Slots int
	// EventMode makes waiting calls sleep in the completion channel after
	// their spin instead of napping between polls.
	EventMode bool
	// Spin is how long a waiting call busy-polls the completion queue
	// before it backs off; DefaultSpin when 0, for ever when negative.
	Spin time.Duration
	// Listen is the host:port of the TCP side channel the endpoint records
	// are exchanged over, as perftest does; DefaultListen when empty.
	Listen string
	// Publish is the host peers dial to reach the side channel; when
	// empty, Listen's host, or this host's first non-loopback IPv4 address
	// when Listen is all interfaces (127.0.0.1 if it has none).
	Publish string
	// HandshakeTimeout bounds the endpoint exchange on each new
	// connection; DefaultHandshakeTimeout when 0.
	HandshakeTimeout time.Duration
}

// DefaultOptions returns the options every default gives, with GIDIndex
// AutoGID.
func DefaultOptions() Options { return Options{GIDIndex: AutoGID}.withDefaults() }

// withDefaults returns o with zero fields set to their defaults.
func (o Options) withDefaults() Options {
	if o.Port == 0 {
		o.Port = DefaultPort
	}
	if o.Inline == 0 {
		o.Inline = DefaultInline
	}
	if o.SlotSize == 0 {
		o.SlotSize = DefaultSlotSize
	}
	if o.Slots == 0 {
		o.Slots = DefaultSlots
	}
	if o.Spin == 0 {
		o.Spin = DefaultSpin
	}
	if o.Listen == "" {
		o.Listen = DefaultListen
	}
	if o.HandshakeTimeout == 0 {
		o.HandshakeTimeout = DefaultHandshakeTimeout
	}
	return o
}

// Validate reports the first invalid field.
func (o *Options) Validate() error {
	switch {
	case o.Port < 0 || o.Port > 255:
		return fmt.Errorf("verbs port %d: must be in [1, 255]", o.Port)
	case o.GIDIndex < AutoGID:
		return fmt.Errorf("verbs GID index %d: must be -1 (auto) or an index from 0", o.GIDIndex)
	case o.SlotSize != 0 && (o.SlotSize < MinSlotSize || o.SlotSize > MaxSlotSize):
		return fmt.Errorf("verbs slot size %d: must be in [%d, %d]", o.SlotSize, MinSlotSize, MaxSlotSize)
	case o.Slots != 0 && (o.Slots < MinSlots || o.Slots > MaxSlots):
		return fmt.Errorf("verbs slots %d: must be in [%d, %d]", o.Slots, MinSlots, MaxSlots)
	case o.HandshakeTimeout < 0:
		return fmt.Errorf("verbs handshake timeout %v: must not be negative", o.HandshakeTimeout)
	}
	if o.Listen != "" {
		_, port, err := net.SplitHostPort(o.Listen)
		if err != nil {
			return fmt.Errorf("verbs listen address %q: want host:port or :port: %w", o.Listen, err)
		}
		if _, err := strconv.ParseUint(port, 10, 16); err != nil {
			return fmt.Errorf("verbs listen address %q: port %q must be a number in [0, 65535]", o.Listen, port)
		}
	}
	return nil
}
