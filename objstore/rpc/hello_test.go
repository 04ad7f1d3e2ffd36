package rpc

import (
	"encoding/binary"
	"testing"
)

// FuzzDecodeHello checks the hello and answer decoders on any bytes.
func FuzzDecodeHello(f *testing.F) {
	f.Add(Hello{Version: Version, ClientID: 3}.encode())
	f.Add(encodeAnswer(helloRefused, "no"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if h, err := decodeHello(b); err == nil && binary.LittleEndian.Uint16(b[6:]) == 0 && string(h.encode()) != string(b) {
			t.Fatalf("hello %+v re-encodes differently from %x", h, b)
		}
		decodeAnswer(b) // must not panic
	})
}
