package shm

// message is a message received while a Recv looked for another tag.
type message struct {
	tag  uint32
	data []byte
}

// queue holds unexpected messages in arrival order. Recv takes the oldest
// with a tag, so order is kept per tag (MPI's non-overtaking rule). It is
// a slice scanned from the front: the queue is short in practice, and
// taking from the front is the common case.
type queue struct {
	msgs []message
}

// push appends a message.
func (q *queue) push(tag uint32, data []byte) {
	q.msgs = append(q.msgs, message{tag: tag, data: data})
}

// take removes and returns the oldest message with tag.
func (q *queue) take(tag uint32) (message, bool) {
	for i, m := range q.msgs {
		if m.tag != tag {
			continue
		}
		copy(q.msgs[i:], q.msgs[i+1:])
		q.msgs[len(q.msgs)-1] = message{}
		q.msgs = q.msgs[:len(q.msgs)-1]
		return m, true
	}
	return message{}, false
}

// len is the number of queued messages.
func (q *queue) len() int { return len(q.msgs) }
