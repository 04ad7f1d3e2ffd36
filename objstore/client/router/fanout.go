package router

import (
	"slices"
	"sync"
)

// each calls fn(m) for every m of ms, all at once when there are several
// (one goroutine each, waited for), and returns their errors in ms's
// order.
func each(ms []int, fn func(m int) error) []error {
	errs := make([]error, len(ms))
	if len(ms) == 1 {
		errs[0] = fn(ms[0])
		return errs
	}
	var wg sync.WaitGroup
	for i, m := range ms {
		wg.Go(func() { errs[i] = fn(m) })
	}
	wg.Wait()
	return errs
}

// first returns the first error of errs that is not nil.
func first(errs []error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// byMember runs the pieces of a transfer over members members: those of
// one member one after the other, in order, and the members' at once;
// each member stops at its first error. It returns the first error in
// engine order.
func byMember(members int, ps []piece, fn func(i int, pc piece) error) error {
	runs := make([][]int, members)
	var ms []int
	for i, pc := range ps {
		if runs[pc.m] == nil {
			ms = append(ms, pc.m)
		}
		runs[pc.m] = append(runs[pc.m], i)
	}
	slices.Sort(ms)
	return first(each(ms, func(m int) error {
		for _, i := range runs[m] {
			if err := fn(i, ps[i]); err != nil {
				return err
			}
		}
		return nil
	}))
}
