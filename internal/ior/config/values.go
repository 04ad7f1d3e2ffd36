package config

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/hpcbench/hpcbench/aiori"
	"github.com/hpcbench/hpcbench/internal/units"
)

// PiB is 2^50 bytes, the "p" suffix IOR accepts beyond internal/units' t.
const PiB int64 = 1 << 50

// parseSize parses a byte count as units.ParseSize does and also accepts
// IOR's p suffix (and PiB), 2^50. Fractions, signs and unknown suffixes are
// errors wrapping units.ErrSyntax; values beyond int64 wrap units.ErrRange.
func parseSize(s string) (int64, error) {
	lower := strings.ToLower(s)
	var num string
	switch {
	case strings.HasSuffix(lower, "pib"):
		num = s[:len(s)-3]
	case strings.HasSuffix(lower, "p"):
		num = s[:len(s)-1]
	default:
		return units.ParseSize(s)
	}
	num = strings.TrimSuffix(num, " ")
	if num == "" || strings.TrimLeft(num, "0123456789") != "" {
		return 0, fmt.Errorf("parse size %q: %w: want digits then an optional k, m, g, t or p", s, units.ErrSyntax)
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n > math.MaxInt64/PiB {
		return 0, fmt.Errorf("parse size %q: %w: larger than %d bytes", s, units.ErrRange, int64(math.MaxInt64))
	}
	return n * PiB, nil
}

// parseInt parses a whole number with an optional sign and, as IOR's
// integer options do, an optional k, m, g, t or p suffix (powers of 1024).
func parseInt(s string) (int64, error) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, nil
	}
	body, neg := strings.CutPrefix(s, "-")
	digits := strings.TrimLeft(body, "0123456789")
	num, suffix := body[:len(body)-len(digits)], digits
	var shift uint
	switch strings.ToLower(suffix) {
	case "":
	case "k":
		shift = 10
	case "m":
		shift = 20
	case "g":
		shift = 30
	case "t":
		shift = 40
	case "p":
		shift = 50
	default:
		num = ""
	}
	if num == "" {
		return 0, fmt.Errorf("parse integer %q: %w: want a whole number, optionally with a k, m, g, t or p suffix",
			s, units.ErrSyntax)
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n > math.MaxInt64>>shift {
		return 0, fmt.Errorf("parse integer %q: %w: beyond %d", s, units.ErrRange, int64(math.MaxInt64))
	}
	n <<= shift
	if neg {
		n = -n
	}
	return n, nil
}

// parseFlagBool parses a switch's value: true or false as strconv.ParseBool
// spells them, or an integer as IOR takes it (0 is off, anything else on).
func parseFlagBool(s string) (bool, error) {
	if b, err := strconv.ParseBool(s); err == nil {
		return b, nil
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n != 0, nil
	}
	return false, fmt.Errorf("parse switch %q: %w: want 0, 1, true or false", s, units.ErrSyntax)
}

// sizeValue binds a byte count (-b, -t, --randomPrefill).
type sizeValue struct{ p *int64 }

func (v sizeValue) String() string {
	if v.p == nil {
		return "0"
	}
	return strconv.FormatInt(*v.p, 10)
}

func (v sizeValue) Set(s string) error {
	n, err := parseSize(s)
	if err != nil {
		return err
	}
	*v.p = n
	return nil
}

func (v sizeValue) Type() string { return "size" }

// intValue binds an int option (-i, -N, -Q, -D …).
type intValue struct{ p *int }

func (v intValue) String() string {
	if v.p == nil {
		return "0"
	}
	return strconv.Itoa(*v.p)
}

func (v intValue) Set(s string) error {
	n, err := parseInt(s)
	if err != nil {
		return err
	}
	if n < math.MinInt || n > math.MaxInt {
		return fmt.Errorf("parse integer %q: %w", s, units.ErrRange)
	}
	*v.p = int(n)
	return nil
}

func (v intValue) Type() string { return "int" }

// int64Value binds an int64 option (--random-offset-seed).
type int64Value struct{ p *int64 }

func (v int64Value) String() string {
	if v.p == nil {
		return "0"
	}
	return strconv.FormatInt(*v.p, 10)
}

func (v int64Value) Set(s string) error {
	n, err := parseInt(s)
	if err != nil {
		return err
	}
	*v.p = n
	return nil
}

func (v int64Value) Type() string { return "int" }

// boolValue binds a switch. Given alone it turns on; "-F=0", "-O
// filePerProc=0" or "--dryRun=false" turn it off.
type boolValue struct{ p *bool }

func (v boolValue) String() string {
	if v.p == nil {
		return "false"
	}
	return strconv.FormatBool(*v.p)
}

func (v boolValue) Set(s string) error {
	b, err := parseFlagBool(s)
	if err != nil {
		return err
	}
	*v.p = b
	return nil
}

func (v boolValue) Type() string { return "bool" }

// countValue binds a counting switch (-v, -z, -Z): each occurrence adds
// one, "-z=2" or "-O randomOffset=2" sets the count.
type countValue struct{ p *int }

func (v countValue) String() string {
	if v.p == nil {
		return "0"
	}
	return strconv.Itoa(*v.p)
}

func (v countValue) Set(s string) error {
	if s == "+1" {
		if *v.p < math.MaxInt {
			*v.p++
		}
		return nil
	}
	n, err := parseInt(s)
	if err != nil {
		return err
	}
	if n < 0 || n > math.MaxInt32 {
		return fmt.Errorf("count %q: %w: want 0 to %d", s, units.ErrRange, math.MaxInt32)
	}
	*v.p = int(n)
	return nil
}

func (v countValue) Type() string { return "count" }

// signatureValue binds -G and records that it was given.
type signatureValue struct{ o *Options }

func (v signatureValue) String() string {
	if v.o == nil {
		return "0"
	}
	return strconv.FormatInt(v.o.TimeStampSignature, 10)
}

func (v signatureValue) Set(s string) error {
	n, err := parseInt(s)
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

// apiValue binds -a, checked against the registry and stored as the
// backend's registered name.
type apiValue struct {
	p   *string
	reg *aiori.Registry
}

func (v apiValue) String() string {
	if v.p == nil {
		return ""
	}
	return *v.p
}

func (v apiValue) Set(s string) error {
	e, ok := v.reg.Lookup(s)
	if !ok {
		return fmt.Errorf("unknown API %q: want one of %s", s, strings.Join(v.reg.Names(), ", "))
	}
	*v.p = e.Name
	return nil
}

func (v apiValue) Type() string { return "api" }

// packetValue binds -l.
type packetValue struct{ p *DataPacketType }

func (v packetValue) String() string {
	if v.p == nil {
		return ""
	}
	return v.p.String()
}

func (v packetValue) Set(s string) error {
	t, err := ParseDataPacketType(s)
	if err != nil {
		return err
	}
	*v.p = t
	return nil
}

func (v packetValue) Type() string { return "type" }
