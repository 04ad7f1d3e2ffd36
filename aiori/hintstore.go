package aiori

import "sync"

// HintStore keeps the hints a backend was last given. Embedded in a
// backend it implements Hinter; its zero value holds the zero Hints. It is
// safe for concurrent use.
type HintStore struct {
	mu sync.Mutex
	h  Hints
}

// SetHints records h for the files opened from now on.
func (s *HintStore) SetHints(h Hints) {
	s.mu.Lock()
	s.h = h
	s.mu.Unlock()
}

// Hints returns the hints last set.
func (s *HintStore) Hints() Hints {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.h
}
