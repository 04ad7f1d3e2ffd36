package store

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/hpcbench/hpcbench/objstore/object"
)

// FuzzScanLog feeds scanLog bytes as they might be on disk: it must not
// panic, and what it accepts must re-encode to the same valid prefix.
func FuzzScanLog(f *testing.F) {
	valid := []byte(logMagic)
	for _, r := range []record{
		{op: opPut, oid: object.OID{Hi: 1, Lo: 2}, dkey: "d", akey: "a", val: []byte("v")},
		{op: opRemove, oid: object.OID{Lo: 3}, dkey: "dkey"},
		{op: opPunch, oid: object.OID{Hi: 9}},
		{op: opReserve, next: 4096},
		{op: opArray, oid: object.OID{Hi: 1, Lo: 5}, val: []byte("small file")},
		{op: opUnarray, oid: object.OID{Hi: 1, Lo: 5}},
	} {
		valid = appendFrame(valid, r)
	}
	valid = appendFrame(valid, record{op: opRemove, oid: object.OID{Lo: 7}, dkey: "f"}, record{op: opPunch, oid: object.OID{Hi: 1, Lo: 8}})
	f.Add(valid)
	f.Add(valid[:len(valid)-3])
	f.Add(append(append([]byte{}, valid...), make([]byte, 20)...))
	f.Add([]byte(logMagic + "\xff\xff\xff\xff\x00\x00\x00\x00"))
	f.Add([]byte(logMagicV1))
	f.Fuzz(func(t *testing.T, b []byte) {
		var frames [][]record
		good, err := scanLog(b, func(recs ...record) { frames = append(frames, recs) })
		if err != nil {
			return
		}
		if good > int64(len(b)) {
			t.Fatalf("valid prefix %d of %d bytes", good, len(b))
		}
		if good < int64(len(logMagic)) {
			if len(frames) != 0 {
				t.Fatalf("%d frames before the header", len(frames))
			}
			return
		}
		again := append([]byte{}, b[:len(logMagic)]...)
		for _, recs := range frames {
			again = appendFrame(again, recs...)
		}
		if !bytes.Equal(again, b[:good]) {
			t.Fatalf("records re-encode to %q; the valid prefix is %q", again, b[:good])
		}
	})
}

// FuzzParsePoolMeta feeds parsePoolMeta pool.json's bytes: it must not
// panic, and what it accepts must survive a round trip.
func FuzzParsePoolMeta(f *testing.F) {
	f.Add([]byte(`{"version":2,"uuid":"0b7e7a2c-3f52-4a51-9d59-3c1c1f3e5a10","targets":["tgt0","/mnt/nvme1/t"],"created":"2026-01-02T03:04:05Z"}`))
	f.Add([]byte(`{"version":2}`))
	f.Add([]byte(`{"version":1,"uuid":"x","targets":[]}`))
	f.Add([]byte(`{} {}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := parsePoolMeta(b)
		if err != nil {
			return
		}
		out, err := json.Marshal(m)
		if err != nil {
			t.Fatalf("marshal of an accepted pool.json: %v", err)
		}
		back, err := parsePoolMeta(out)
		if err != nil {
			t.Fatalf("accepted %q, refused its round trip %q: %v", b, out, err)
		}
		if back.UUID != m.UUID || len(back.Targets) != len(m.Targets) || !back.Created.Equal(m.Created) {
			t.Fatalf("round trip changed %+v to %+v", m, back)
		}
	})
}

// FuzzParseExtentName feeds parseExtentName the names found in a target's
// directory: it must not panic, and what it accepts must be what
// extentName writes for the id and chunk size it returns.
func FuzzParseExtentName(f *testing.F) {
	f.Add(extentName(object.NewOID(object.SX, 1234), 1<<20))
	f.Add("2000000000000.4d2")
	f.Add("1.2.0")
	f.Add("target.json")
	f.Fuzz(func(t *testing.T, name string) {
		oid, cs, err := parseExtentName(name)
		if err != nil {
			return
		}
		if cs <= 0 {
			t.Fatalf("%q: chunk size %d accepted", name, cs)
		}
		if again, cs2, err := parseExtentName(extentName(oid, cs)); err != nil || again != oid || cs2 != cs {
			t.Fatalf("%q: %v, %d does not round-trip: %v, %d, %v", name, oid, cs, again, cs2, err)
		}
	})
}
