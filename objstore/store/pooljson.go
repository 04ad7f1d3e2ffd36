package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/hpcbench/hpcbench/objstore/object"
)

// The names of a pool's files in its directory, and of the files the pool
// keeps in each target.
const (
	poolFile   = "pool.json"   // the pool's description (poolMeta)
	lockFile   = "engine.lock" // flock(2)ed by the engine that has it open
	poolLog    = "pool.log"    // KV log of the container table
	contDir    = "cont"        // holds one KV log per container, UUID.log
	targetFile = "target.json" // in each target: which pool, which index
)

// SchemaVersion is the version of pool.json and target.json this package
// writes and reads.
const SchemaVersion = 2

// MaxTargets is the most targets a pool may have: object.MaxStripe.
const MaxTargets = object.MaxStripe

// poolMeta is pool.json.
type poolMeta struct {
	// Version is SchemaVersion.
	Version int `json:"version"`
	// UUID is the pool's id.
	UUID string `json:"uuid"`
	// Targets are the target directories in placement order: relative
	// paths are inside the pool's directory, absolute ones anywhere.
	Targets []string `json:"targets"`
	// Created is when Create made the pool.
	Created time.Time `json:"created"`
}

// targetMeta is target.json: it marks a directory as a pool's target, so
// Open checks it has the right one and Destroy removes only what it made.
type targetMeta struct {
	Version int    `json:"version"`
	Pool    string `json:"pool_uuid"`
	Index   int    `json:"index"`
}

// isUUID reports whether s is a UUID as this package writes them: lower
// case hex in groups of 8-4-4-4-12 (see isLabel for why not a regexp).
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
				return false
			}
		}
	}
	return true
}

// parsePoolMeta parses and checks pool.json's bytes (outside input: the
// file may be damaged or from another version).
func parsePoolMeta(b []byte) (poolMeta, error) {
	return parsePoolMetaFrom(b, SchemaVersion)
}

// parsePoolMetaFrom is parsePoolMeta taking schema versions from oldest
// to SchemaVersion: Destroy removes pools of earlier versions too.
func parsePoolMetaFrom(b []byte, oldest int) (poolMeta, error) {
	var m poolMeta
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&m); err != nil {
		return poolMeta{}, fmt.Errorf("%w: %v", object.ErrInvalid, err)
	}
	if d.More() {
		return poolMeta{}, fmt.Errorf("%w: data after the JSON object", object.ErrInvalid)
	}
	if err := m.check(oldest); err != nil {
		return poolMeta{}, err
	}
	return m, nil
}

// check validates what parsePoolMeta decoded and Create is about to
// write, of a schema version from oldest to SchemaVersion.
func (m poolMeta) check(oldest int) error {
	if m.Version < oldest || m.Version > SchemaVersion {
		hint := ""
		if m.Version > 0 && m.Version < SchemaVersion {
			hint = "; the pool was made by an earlier hpcbench, whose extent files lie otherwise: destroy it and create it again"
		}
		return fmt.Errorf("schema version %d: %w (this build reads %d%s)", m.Version, object.ErrInvalid, SchemaVersion, hint)
	}
	if !isUUID(m.UUID) {
		return fmt.Errorf("uuid %q: %w", m.UUID, object.ErrInvalid)
	}
	if len(m.Targets) == 0 || len(m.Targets) > MaxTargets {
		return fmt.Errorf("%d targets: %w (want 1 to %d)", len(m.Targets), object.ErrInvalid, MaxTargets)
	}
	seen := make(map[string]bool, len(m.Targets))
	for i, t := range m.Targets {
		if t == "" || seen[t] || bytes.IndexByte([]byte(t), 0) >= 0 {
			return fmt.Errorf("target %d %q: %w (empty or repeated)", i, t, object.ErrInvalid)
		}
		seen[t] = true
	}
	return nil
}
