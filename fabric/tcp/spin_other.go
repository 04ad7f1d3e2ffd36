//go:build !linux

package tcp

// spinSupported reports whether this platform has the busy-poll.
const spinSupported = false

// spinRead never reads here: there is no busy-poll on this platform.
func (c *conn) spinRead(p []byte) (n int, err error, ok bool) { return 0, nil, false }

// spinPoll is never called here.
func (c *conn) spinPoll(fd uintptr) bool { return true }
