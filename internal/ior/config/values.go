package config

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/hpcbench/hpcbench/internal/cliflag"
	"github.com/hpcbench/hpcbench/internal/ioflag"
	"github.com/hpcbench/hpcbench/internal/units"
)

// PiB is 2^50 bytes, the "p" suffix IOR accepts beyond internal/units' t.
const PiB = cliflag.PiB

// signatureValue binds -G and records that it was given.
type signatureValue struct{ o *Options }

func (v signatureValue) String() string {
	if v.o == nil {
		return "0"
	}
	return strconv.FormatInt(v.o.TimeStampSignature, 10)
}

func (v signatureValue) Set(s string) error {
	n, err := cliflag.ParseInt(s)
	if err != nil {
		return err
	}
	v.o.TimeStampSignature = n
	v.o.TimeStampSignatureSet = true
	return nil
}

func (v signatureValue) Type() string { return "int" }

// summaryFormatValue binds summaryFormat, stored in its canonical spelling.
type summaryFormatValue struct{ p *string }

func (v summaryFormatValue) String() string {
	if v.p == nil {
		return ""
	}
	return *v.p
}

func (v summaryFormatValue) Set(s string) error {
	f, ok := canonicalSummaryFormat(s)
	if !ok {
		return fmt.Errorf("unknown summary format %q: want default, JSON or CSV", s)
	}
	*v.p = f
	return nil
}

func (v summaryFormatValue) Type() string { return "format" }

// canonicalSummaryFormat returns IOR's spelling of a summary format given
// in any case.
func canonicalSummaryFormat(s string) (string, bool) {
	for _, f := range []string{SummaryDefault, SummaryJSON, SummaryCSV} {
		if strings.EqualFold(s, f) {
			return f, true
		}
	}
	return "", false
}

// secondsValue binds -d: whole seconds as IOR's integers are written
// (ParseInt: 5, +5, 1k), or a decimal fraction (0.1, .5, 2.), which IOR
// would truncate.
type secondsValue struct{ p *time.Duration }

func (v secondsValue) String() string {
	if v.p == nil {
		return "0"
	}
	return FormatSeconds(*v.p)
}

func (v secondsValue) Set(s string) error {
	d, err := ParseSeconds(s)
	if err != nil {
		return err
	}
	*v.p = d
	return nil
}

func (v secondsValue) Type() string { return "seconds" }

// maxSeconds is the longest delay a time.Duration holds, in whole seconds.
const maxSeconds = math.MaxInt64 / int64(time.Second)

// ParseSeconds parses a number of seconds: an integer as IOR writes them
// (cliflag.ParseInt), or digits with one decimal point, to the
// nanosecond. A sign is allowed (Validate rejects a negative delay);
// exponents, hexadecimal, inf and NaN are not. The error wraps
// units.ErrSyntax or units.ErrRange.
func ParseSeconds(s string) (time.Duration, error) {
	if n, err := cliflag.ParseInt(s); err == nil {
		if n > maxSeconds || n < -maxSeconds {
			return 0, units.Rangef("%q is out of range: beyond %d", s, maxSeconds)
		}
		return time.Duration(n) * time.Second, nil
	}
	body := strings.TrimPrefix(strings.TrimPrefix(s, "-"), "+")
	whole, frac, ok := strings.Cut(body, ".")
	if !ok || whole+frac == "" || strings.Trim(whole+frac, "0123456789") != "" {
		return 0, units.Syntaxf("%q is not a number of seconds: want a number such as 5 or 0.25", s)
	}
	w := int64(0)
	if whole != "" {
		var err error
		if w, err = strconv.ParseInt(whole, 10, 64); err != nil || w > maxSeconds {
			return 0, units.Rangef("%q is out of range: beyond %d", s, maxSeconds)
		}
	}
	ns := int64(0)
	for i, c := range frac {
		if i == 9 {
			break // finer than a nanosecond
		}
		ns += int64(c-'0') * int64(math.Pow10(8-i))
	}
	if w == maxSeconds && ns > int64(math.MaxInt64%int64(time.Second)) {
		return 0, units.Rangef("%q is out of range: beyond %d", s, maxSeconds)
	}
	d := time.Duration(w)*time.Second + time.Duration(ns)
	if strings.HasPrefix(s, "-") {
		d = -d
	}
	return d, nil
}

// FormatSeconds prints d in seconds, as short as it can: 5, 0.1, 1.25.
func FormatSeconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64)
}

// iorBackends are the backends IOR 4 can be built with (its aiori.c), so
// that -a naming one hpcbench lacks says so.
var iorBackends = []string{"AIO", "CEPHFS", "CHFS", "DAOS", "DFS", "DUMMY", "FINCHFS", "Gfarm", "HDF5", "HDFS", "IME",
	"LIBNFS", "MMAP", "MPIIO", "NCMPI", "PMDK", "POSIX", "RADOS", "S3-4c", "S3-curl", "S3-libs3", "S3_EMC", "S3_plus"}

// apiValue binds -a: a backend of the registry, kept as spelled, since
// IOR prints it so ("api : posix"); or, for one of IOR's backends that the
// build lacks, an error saying so.
type apiValue struct{ ioflag.API }

func (v apiValue) Set(s string) error {
	err := v.API.Set(s)
	if err == nil {
		*v.P = s
		return nil
	}
	for _, b := range iorBackends {
		if strings.EqualFold(s, b) {
			return fmt.Errorf("IOR's %s backend is not in hpcbench, which has %s", b, strings.Join(v.Reg.Names(), ", "))
		}
	}
	return err
}
