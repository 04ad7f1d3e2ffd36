package collectives

import "fmt"

// Argument checks shared by the collectives. Their errors describe the
// argument; Comm.end adds the call.

// checkRoot validates a rooted collective's root.
func (c *Comm) checkRoot(root int) error {
	if root < 0 || root >= c.size {
		return fmt.Errorf("root %d out of range [0, %d)", root, c.size)
	}
	return nil
}

// checkBlocks checks that whole, a buffer of one block per rank, holds
// size blocks of part's length.
func (c *Comm) checkBlocks(wholeName string, whole int, partName string, part int) error {
	if whole != c.size*part {
		return fmt.Errorf("%s is %d bytes; want %d ranks × %d-byte %s = %d", wholeName, whole, c.size, part, partName, c.size*part)
	}
	return nil
}
