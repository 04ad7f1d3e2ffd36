package pmix

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/hpcbench/hpcbench/internal/testenv"
)

// TestLayout compiles a C program against the installed pmix.h and
// checks that every size, offset and constant this package lays out by
// hand is the library's.
func TestLayout(t *testing.T) {
	cc := testenv.RequireTool(t, "gcc")
	pc := testenv.RequireTool(t, "pkg-config")
	flags, err := exec.Command(pc, "--cflags", "--libs", "pmix").Output()
	if err != nil {
		t.Fatalf("pkg-config pmix: %v (Debian: libpmix-dev)", err)
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "layout.c")
	prog := `#include <pmix.h>
#include <stdio.h>
#include <stddef.h>
int main(void) {
	printf("%zu %zu %zu %zu %zu %zu %zu %d %d\n", sizeof(pmix_proc_t), offsetof(pmix_proc_t, rank),
		sizeof(pmix_value_t), offsetof(pmix_value_t, data), sizeof(pmix_info_t), offsetof(pmix_info_t, value),
		sizeof(pmix_byte_object_t), PMIX_MAX_NSLEN, PMIX_MAX_KEYLEN);
	printf("%d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d\n", PMIX_BOOL, PMIX_BYTE, PMIX_STRING, PMIX_SIZE, PMIX_PID,
		PMIX_INT, PMIX_INT8, PMIX_INT16, PMIX_INT32, PMIX_INT64, PMIX_UINT, PMIX_UINT8, PMIX_UINT16, PMIX_UINT32,
		PMIX_UINT64, PMIX_BYTE_OBJECT);
	printf("%u %d %d %d %d\n", PMIX_RANK_WILDCARD, PMIX_SUCCESS, PMIX_ERR_UNREACH, PMIX_ERR_NOT_FOUND, PMIX_GLOBAL);
	printf("%s %s %s\n", PMIX_JOB_SIZE, PMIX_COLLECT_DATA, PMIX_TIMEOUT);
	return 0;
}
`
	if err := os.WriteFile(src, []byte(prog), 0o644); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "layout")
	args := append([]string{"-o", exe, src}, strings.Fields(string(flags))...)
	if out, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	out, err := exec.Command(exe).Output()
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSpace(string(out)), "\n")
	want := []string{
		join(procSize, nspaceLen, valueSize, valueData, infoSize, infoValue, byteObjSize, nspaceLen-1, maxKeyLen),
		join(typeBool, typeByte, typeString, typeSize, typePid, typeInt, typeInt8, typeInt16, typeInt32, typeInt64,
			typeUint, typeUint8, typeUint16, typeUint32, typeUint64, typeByteObj),
		join(uint32(rankWildcard), statusSuccess, statusUnreach, statusNotFound, scopeGlobal),
		strings.Join([]string{KeyJobSize, keyCollect, keyTimeout}, " "),
	}
	if len(got) != len(want) {
		t.Fatalf("layout program printed %q", out)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d: the library's %q, this package's %q", i+1, got[i], want[i])
		}
	}
}

// join prints v as the C program does: space-separated decimals.
func join(v ...any) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, " ")
}

// TestDecodeValue decodes pmix_value_t structures laid out by hand: every
// integer width the launchers use, strings and byte objects.
func TestDecodeValue(t *testing.T) {
	str := []byte("n1,n2\x00")
	bytes := []byte{1, 2, 0, 4}
	for _, c := range []struct {
		name  string
		typ   uint16
		load  func(d unsafe.Pointer)
		num   int64
		bytes string
		err   bool
	}{
		{"bool", typeBool, func(d unsafe.Pointer) { *(*byte)(d) = 1 }, 1, "", false},
		{"uint16 local rank", typeUint16, func(d unsafe.Pointer) { *(*uint16)(d) = 3 }, 3, "", false},
		{"uint32 job size", typeUint32, func(d unsafe.Pointer) { *(*uint32)(d) = 4096 }, 4096, "", false},
		{"int appnum (Slurm)", typeInt, func(d unsafe.Pointer) { *(*int32)(d) = -1 }, -1, "", false},
		{"int8", typeInt8, func(d unsafe.Pointer) { *(*int8)(d) = -3 }, -3, "", false},
		{"uint64", typeUint64, func(d unsafe.Pointer) { *(*uint64)(d) = 1 << 40 }, 1 << 40, "", false},
		{"size", typeSize, func(d unsafe.Pointer) { *(*uint64)(d) = 7 }, 7, "", false},
		{"string", typeString, func(d unsafe.Pointer) { *(*unsafe.Pointer)(d) = unsafe.Pointer(&str[0]) }, 0, "n1,n2", false},
		{"byte object", typeByteObj, func(d unsafe.Pointer) {
			*(*unsafe.Pointer)(d) = unsafe.Pointer(&bytes[0])
			*(*uint64)(unsafe.Add(d, 8)) = uint64(len(bytes))
		}, 0, "\x01\x02\x00\x04", false},
		{"empty byte object", typeByteObj, func(unsafe.Pointer) {}, 0, "", false},
		{"unknown type", 44, func(unsafe.Pointer) {}, 0, "", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			var v [valueSize]byte
			*(*uint16)(unsafe.Pointer(&v[0])) = c.typ
			c.load(unsafe.Pointer(&v[valueData]))
			got, err := decodeValue(unsafe.Pointer(&v[0]))
			if (err != nil) != c.err {
				t.Fatalf("err %v, want error %v", err, c.err)
			}
			if err != nil {
				return
			}
			if got.num != c.num || string(got.bytes) != c.bytes {
				t.Errorf("got %d %q, want %d %q", got.num, got.bytes, c.num, c.bytes)
			}
		})
	}
}

func TestCheckVersion(t *testing.T) {
	for v, ok := range map[string]bool{
		"OpenPMIx 4.2.2rc2 (PMIx Standard: 4.2, Stable ABI: 0.0, Provisional ABI: 0.0)": true,
		"OpenPMIx 3.2.3":  true,
		"OpenPMIx 5.0.1":  true,
		"OpenPMIx 2.1.0":  false,
		"OpenPMIx 10.0.0": false,
		"PMIx 4.2":        false,
		"":                false,
	} {
		if err := checkVersion(v); (err == nil) != ok {
			t.Errorf("checkVersion(%q) = %v, want ok %v", v, err, ok)
		}
	}
}

func TestSecondsAndKeys(t *testing.T) {
	for _, c := range []struct {
		d    string
		want int32
	}{{"1ns", 1}, {"999ms", 1}, {"1001ms", 2}, {"300s", 300}} {
		d, _ := time.ParseDuration(c.d)
		if got := seconds(d); got != c.want {
			t.Errorf("seconds(%s) = %d, want %d", c.d, got, c.want)
		}
	}
	for key, ok := range map[string]bool{"hpcbench-card-0": true, "": false, strings.Repeat("k", 511): true,
		strings.Repeat("k", 512): false, "a\x00b": false} {
		if err := checkKey(key); (err == nil) != ok {
			t.Errorf("checkKey(%.20q) = %v, want ok %v", key, err, ok)
		}
	}
}

// TestOpen loads the installed OpenPMIx (scripts/test.sh installs
// libpmix-dev, which brings libpmix2) and reads its version.
func TestOpen(t *testing.T) {
	l, err := Open()
	if !Built {
		if !errors.Is(err, ErrNotBuilt) {
			t.Fatalf("Open in a nopmix build: %v, want ErrNotBuilt", err)
		}
		return
	}
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	if !strings.HasPrefix(l.Version(), "OpenPMIx ") || l.Path() == "" {
		t.Errorf("version %q, path %q", l.Version(), l.Path())
	}
}
