package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"time"
)

// MaxArchiveSize is the size of the largest archive ReadJSON reads, 1 GiB:
// far beyond what a run writes, and small enough to read into memory.
const MaxArchiveSize = 1 << 30

// ReadJSON reads one result that WriteJSON wrote. It is the one place an
// archive is checked, for every command that reads one: the schema first,
// so a file from another version of hpcbench, or not from hpcbench at all,
// fails with a clear error rather than a confusing one; then every field's
// JSON type; then the model as the writers check it (Validate). Keys it
// does not know are ignored, so files from later releases of the same
// schema still read. Anything after the document is an error, and so is
// a document larger than MaxArchiveSize.
//
// Its errors are one line in a user's words, never Go's: where the fault
// is (the line and column, and the JSON path such as
// tables[2].rows[0].metrics), what is there and what was wanted.
func ReadJSON(rd io.Reader) (*Result, error) {
	return readJSON(rd, MaxArchiveSize)
}

// readJSON is ReadJSON with the size limit as a parameter.
func readJSON(rd io.Reader, limit int64) (*Result, error) {
	tooLarge := fmt.Errorf("report: larger than %s, the most an archive can be", sizeWords(limit))
	if s, ok := rd.(interface{ Stat() (fs.FileInfo, error) }); ok {
		if fi, err := s.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > limit {
			return nil, tooLarge
		}
	}
	data, err := io.ReadAll(io.LimitReader(rd, limit+1))
	if err != nil {
		return nil, fmt.Errorf("report: reading the archive: %w", err)
	}
	if int64(len(data)) > limit {
		return nil, tooLarge
	}
	r, err := parseArchive(data)
	var notArchive *NotArchiveError
	if err != nil && !errors.As(err, &notArchive) {
		return nil, fmt.Errorf("report: %w", err)
	}
	return r, err
}

// sizeWords says a power-of-two byte count as people write it: "1 GiB".
func sizeWords(n int64) string {
	for _, u := range []struct {
		name  string
		shift uint
	}{{"GiB", 30}, {"MiB", 20}, {"KiB", 10}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d %s", n>>u.shift, u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}

// parseArchive decodes and checks the archive in data.
func parseArchive(data []byte) (*Result, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		what := "empty"
		if len(data) > 0 {
			what = "only white space"
		}
		return nil, fmt.Errorf("%s, want an %s archive (JSON), as --archive FILE writes", what, Schema)
	}
	var probe struct {
		Schema *string `json:"schema"`
	}
	if err := decodeOne(data, &probe); err != nil {
		if s, ok := sweepSchema(data); ok && isViewSchema(s) {
			return nil, &NotArchiveError{Schema: s}
		}
		return nil, readError(data, err)
	}
	switch {
	case probe.Schema != nil && isViewSchema(*probe.Schema):
		return nil, &NotArchiveError{Schema: *probe.Schema}
	case probe.Schema == nil:
		return nil, fmt.Errorf("no \"schema\" key, want \"schema\": %q: not an hpcbench archive", Schema)
	case *probe.Schema != Schema:
		return nil, fmt.Errorf("unsupported schema %q, want %s", *probe.Schema, Schema)
	}
	var in resultIn
	if err := decodeOne(data, &in); err != nil {
		return nil, readError(data, err)
	}
	r, err := in.result()
	if err == nil {
		err = r.Validate()
	}
	if err != nil {
		return nil, readError(data, err)
	}
	return r, nil
}

// decodeOne decodes the single JSON value in data into v; anything but
// white space after it is a *trailingError.
func decodeOne(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		return err
	}
	end := skipSpace(data, dec.InputOffset())
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return &trailingError{offset: end}
	}
	return nil
}

// trailingError is decodeOne's error for data after the document.
type trailingError struct{ offset int64 }

func (e *trailingError) Error() string {
	return "more data after the end of the archive's JSON document"
}

// The archive as ReadJSON decodes it: the model's own types where their
// JSON form is theirs, and plain JSON types where Result's would hide the
// place of a fault (Row's and time.Time's own decoders report errors with
// no position, in Go's words). Fields of these types shadow the embedded
// ones of the same JSON name.
type (
	resultIn struct {
		Result
		Run    runIn      `json:"run"`
		Tables *[]tableIn `json:"tables"` // nil when missing or null
	}
	runIn struct {
		Run
		Start *string `json:"start"`
		End   *string `json:"end"`
	}
	tableIn struct {
		Table
		Rows []rowIn `json:"rows"`
	}
	rowIn struct {
		Labels  []string              `json:"labels"`
		Metrics []*float64            `json:"metrics"` // null is NaN
		Samples map[string][]*float64 `json:"samples"`
	}
)

// result converts in to the model; an error is a *fieldError.
func (in *resultIn) result() (*Result, error) {
	r := &in.Result
	r.Run = in.Run.Run
	for _, t := range []struct {
		key string
		raw *string
		to  *time.Time
	}{{"start", in.Run.Start, &r.Run.Start}, {"end", in.Run.End, &r.Run.End}} {
		if t.raw == nil {
			continue
		}
		v, err := time.Parse(time.RFC3339, *t.raw)
		if err != nil {
			return nil, &fieldError{path: "run." + t.key,
				msg: fmt.Sprintf("%q is not a time, want one in RFC 3339 such as \"2026-01-02T15:04:05Z\"", *t.raw)}
		}
		*t.to = v
	}
	if in.Tables == nil {
		return nil, &fieldError{path: "tables", msg: "missing or null, want a list of tables ([] for none)"}
	}
	r.Tables = nil
	for _, ti := range *in.Tables {
		t := ti.Table
		t.Rows = make([]Row, len(ti.Rows))
		for i, ri := range ti.Rows {
			t.Rows[i] = ri.row()
		}
		if len(ti.Rows) == 0 {
			t.Rows = nil
		}
		r.Tables = append(r.Tables, t)
	}
	return r, nil
}

// row converts ri: null reads as NaN, and empty lists as nil.
func (ri rowIn) row() Row {
	r := Row{Metrics: fromPointers(ri.Metrics)}
	if len(ri.Labels) > 0 {
		r.Labels = ri.Labels
	}
	if len(ri.Samples) > 0 {
		r.Samples = make(map[string][]float64, len(ri.Samples))
		for k, v := range ri.Samples {
			r.Samples[k] = fromPointers(v)
		}
	}
	return r
}

// fromPointers converts decoded values, nil (null) as NaN; an empty list
// becomes nil.
func fromPointers(vals []*float64) []float64 {
	if len(vals) == 0 {
		return nil
	}
	out := make([]float64, len(vals))
	for i, v := range vals {
		out[i] = math.NaN()
		if v != nil {
			out[i] = *v
		}
	}
	return out
}
