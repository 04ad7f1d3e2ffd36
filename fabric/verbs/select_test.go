package verbs

import (
	"strings"
	"testing"
)

func TestPickGID(t *testing.T) {
	ll := GID{0: 0xfe, 1: 0x80, 15: 1}
	v4 := GID{10: 0xff, 11: 0xff, 12: 192, 13: 168, 14: 1, 15: 9}
	v6 := GID{0: 0x20, 1: 0x01, 15: 2}
	roce := []GIDEntry{
		{0, ll, GIDTypeRoCEv1}, {1, ll, GIDTypeRoCEv2}, {2, v4, GIDTypeRoCEv1}, {3, v4, GIDTypeRoCEv2},
	}
	for _, tc := range []struct {
		name      string
		link      LinkLayer
		gids      []GIDEntry
		want      int
		index     int // -1: no GID
		global    bool
		errSubstr string
	}{
		{"IB auto routes by LID", LinkInfiniBand, []GIDEntry{{0, ll, GIDTypeIB}}, AutoGID, -1, false, ""},
		{"IB explicit index uses a GRH", LinkInfiniBand, []GIDEntry{{0, ll, GIDTypeIB}}, 0, 0, true, ""},
		{"RoCE auto: v2 IPv4-mapped", LinkEthernet, roce, AutoGID, 3, true, ""},
		{"RoCE auto: v2 of any kind", LinkEthernet, []GIDEntry{{0, ll, GIDTypeRoCEv1}, {1, v6, GIDTypeRoCEv2}}, AutoGID, 1, true, ""},
		{"RoCE auto: v2 IPv4 after v2 IPv6", LinkEthernet, []GIDEntry{{0, v6, GIDTypeRoCEv2}, {1, v4, GIDTypeRoCEv2}}, AutoGID, 1, true, ""},
		{"RoCE auto: no v2", LinkEthernet, roce[:1], AutoGID, 0, false, "without a RoCE v2 GID"},
		{"RoCE explicit v1", LinkEthernet, roce, 2, 2, true, ""},
		{"explicit index missing", LinkEthernet, roce, 9, 0, false, "GID index 9: the port has 4 entries"},
		{"explicit index empty", LinkEthernet, []GIDEntry{{0, GID{}, GIDTypeRoCEv2}}, 0, 0, false, "GID index 0 is empty"},
	} {
		g, global, err := pickGID(tc.link, tc.gids, tc.want)
		if tc.errSubstr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.errSubstr) {
				t.Errorf("%s: pickGID = %v; want an error containing %q", tc.name, err, tc.errSubstr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if global != tc.global || (tc.index >= 0 && g.Index != tc.index) || (tc.index < 0 && g.GID != (GID{})) {
			t.Errorf("%s: pickGID = %+v, global %v; want index %d, global %v", tc.name, g, global, tc.index, tc.global)
		}
	}
}
