package io500

import (
	"strconv"
	"strings"

	"github.com/hpcbench/hpcbench/report"
)

// hashString folds str into h as IO500 does: rotate left by two, add the
// byte (a C char: signed).
func hashString(h uint32, str string) uint32 {
	for i := 0; i < len(str); i++ {
		h = (h<<2 | h>>30) + uint32(int32(int8(str[i])))
	}
	return h
}

// hashKeyVal XORs into h the hash of key then val, IO500's
// u_hash_update_key_val.
func hashKeyVal(h uint32, key, val string) uint32 {
	return h ^ hashString(hashString(0, key), val)
}

// hashKeyFloat is hashKeyVal of val printed as C's "%f".
func hashKeyFloat(h uint32, key string, val float64) uint32 {
	return hashKeyVal(h, key, report.CFloat(val))
}

// phaseSeed is the -G signature of a phase: the hash of its name and the
// run's timestamp, as a C int, 4711 for 0 or -1 (IO500's
// u_phase_unique_random_number).
func phaseSeed(phase, timestamp string) int32 {
	h := hashString(hashString(0, phase), timestamp)
	if h == 0 || h == 0xffffffff {
		return 4711
	}
	return int32(h)
}

// hashHex prints h as IO500's "%X" of an int: the 32 bits in hex.
func hashHex(h uint32) string { return strings.ToUpper(strconv.FormatUint(uint64(h), 16)) }
