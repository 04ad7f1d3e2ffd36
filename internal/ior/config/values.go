package config

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/hpcbench/hpcbench/internal/cliflag"
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
