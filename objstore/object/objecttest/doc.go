// Package objecttest checks that an object.Container keeps the contracts
// written in package object, in the manner of testing/fstest: one suite of
// cases that every implementation (memobj, the engine's store, the RPC
// client) runs.
//
// An implementation's test file needs little more than:
//
//	func TestConformance(t *testing.T) {
//		objecttest.Run(t, func(t *testing.T, props object.ContProps) object.Container {
//			c, err := memobj.New(props)
//			if err != nil {
//				t.Fatal(err)
//			}
//			return c
//		})
//	}
//
// Each case is a subtest with a new, empty container of its own (Run
// closes it and fails the case if Close fails). Several cases drive one
// container from many goroutines at once, so run the suite under the race
// detector.
package objecttest
