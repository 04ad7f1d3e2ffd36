package report

import (
	"fmt"
	"io"
	"strings"
)

// Format selects a writer. The zero value is FormatText.
type Format int

// The output formats.
const (
	FormatText Format = iota // for people: WriteText
	FormatJSON               // the archive: WriteJSON
	FormatCSV                // tables for spreadsheets: WriteCSV
)

// formatNames lists the names ParseFormat accepts, for its error.
const formatNames = "human (or text), json or csv"

// ParseFormat returns the format named s: "human" or "text", "json", or
// "csv", in any case.
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(s) {
	case "human", "text":
		return FormatText, nil
	case "json":
		return FormatJSON, nil
	case "csv":
		return FormatCSV, nil
	}
	return 0, fmt.Errorf("invalid format %q: want %s", s, formatNames)
}

// String returns the canonical name of f: "human", "json" or "csv".
func (f Format) String() string {
	switch f {
	case FormatText:
		return "human"
	case FormatJSON:
		return "json"
	case FormatCSV:
		return "csv"
	}
	return fmt.Sprintf("Format(%d)", int(f))
}

// Set parses s with ParseFormat into f, so a *Format is a pflag.Value (and
// a flag.Value) for a --format flag.
func (f *Format) Set(s string) error {
	v, err := ParseFormat(s)
	if err != nil {
		return err
	}
	*f = v
	return nil
}

// Type names the value kind in pflag's usage text.
func (f *Format) Type() string { return "format" }

// Write renders r to w in format f. Like every writer it validates r first
// and returns the first write error.
func Write(w io.Writer, r *Result, f Format) error {
	switch f {
	case FormatText:
		return WriteText(w, r)
	case FormatJSON:
		return WriteJSON(w, r)
	case FormatCSV:
		return WriteCSV(w, r)
	}
	return fmt.Errorf("report: unknown format %v", f)
}
