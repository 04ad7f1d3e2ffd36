package aiori

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

func TestHugeBuffer(t *testing.T) {
	for _, n := range []int{0, 1, HugeBufferMin, 1 << 20, HugePage, HugePage + Align, 5<<20 + 7} {
		b, free, err := HugeBuffer(n)
		if err != nil {
			t.Fatalf("HugeBuffer(%d): %v", n, err)
		}
		if len(b) != n || cap(b) != n {
			t.Errorf("HugeBuffer(%d): len %d, cap %d; want both %d", n, len(b), cap(b), n)
		}
		if n > 0 {
			if a := addrOf(b); a%HugePage != 0 {
				t.Errorf("HugeBuffer(%d) starts at %#x, %d bytes past a huge page boundary", n, a, a%HugePage)
			}
			for i := range b {
				if b[i] != 0 {
					t.Fatalf("HugeBuffer(%d)[%d] = %d; want 0", n, i, b[i])
				}
				b[i] = byte(i)
			}
		}
		if err := free(); err != nil {
			t.Errorf("HugeBuffer(%d): free: %v", n, err)
		}
	}
}

// TestHugeBufferInHugePages checks, in /proc/self/smaps, that the kernel
// backs the buffer with huge pages where transparent huge pages are
// enabled for madvised memory (the claim HugeBuffer exists for).
func TestHugeBufferInHugePages(t *testing.T) {
	mode, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil {
		t.Skipf("no transparent huge pages here: %v", err)
	}
	if strings.Contains(string(mode), "[never]") {
		t.Skipf("transparent huge pages are off here (%s): the buffer is in base pages, as documented", strings.TrimSpace(string(mode)))
	}
	b, free, err := HugeBuffer(HugePage)
	if err != nil {
		t.Fatal(err)
	}
	defer free()
	for i := range b {
		b[i] = 1 // fault it in
	}
	kb, err := anonHugeKB(addrOf(b))
	if err != nil {
		t.Fatal(err)
	}
	if kb < HugePage>>10 {
		// A kernel out of free huge pages (memory too fragmented for
		// compaction) would fall back to base pages; on a test machine
		// with free memory that is a failure of the advice.
		t.Errorf("the buffer's mapping has AnonHugePages %d kB, want %d (THP: %s)", kb, HugePage>>10, strings.TrimSpace(string(mode)))
	}
}

// anonHugeKB returns the AnonHugePages of the mapping holding addr.
func anonHugeKB(addr uintptr) (int, error) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if lo, hi, ok := strings.Cut(strings.Fields(line)[0], "-"); ok && !strings.HasSuffix(line, ":") && len(strings.Fields(line)) >= 5 {
			l, err1 := strconv.ParseUint(lo, 16, 64)
			h, err2 := strconv.ParseUint(hi, 16, 64)
			if err1 == nil && err2 == nil {
				in = uint64(addr) >= l && uint64(addr) < h
				continue
			}
		}
		if in && strings.HasPrefix(line, "AnonHugePages:") {
			return strconv.Atoi(strings.Fields(line)[1])
		}
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("no mapping holds %#x in /proc/self/smaps", addr)
}
