package report

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// keyWidth is the width of the key field in "key : value" lines, as IOR's.
const keyWidth = 20

// maxHostnames is how many host names the text header lists before it
// summarises the rest; the JSON keeps them all.
const maxHostnames = 8

// WriteText writes r for people: a header block describing the run, an
// "Options:" block of "name : value" lines as IOR prints, and each table
// under its name as plain ASCII columns with no borders, labels
// left-aligned (right-aligned when every value is a number) and metrics
// right-aligned in their Display unit with a fixed number of decimals per
// unit (see the package doc). Output has no trailing spaces and depends
// only on r, so it suits golden files.
func WriteText(w io.Writer, r *Result) error {
	if err := r.Validate(); err != nil {
		return err
	}
	var b bytes.Buffer
	writeRunHeader(&b, r)
	if len(r.Params) > 0 {
		b.WriteString("\nOptions:\n")
		for _, p := range r.Params {
			writeKeyValue(&b, p.Name, p.Value)
		}
	}
	for i := range r.Tables {
		t := &r.Tables[i]
		fmt.Fprintf(&b, "\n%s:\n\n", printable(t.Name))
		if err := writeTextTable(&b, t); err != nil {
			return fmt.Errorf("report: rendering table %q: %w", t.Name, err)
		}
		// The archive's own text view shows everything it holds: the
		// stragglers too, which the C tools' layouts leave off.
		notes := append(append([]string(nil), t.Notes...), t.Stragglers...)
		if len(notes) > 0 {
			b.WriteByte('\n')
		}
		for _, n := range notes {
			fmt.Fprintf(&b, "%s\n", printable(n))
		}
	}
	if _, err := bytes.NewBuffer(trimTrailingSpace(b.Bytes())).WriteTo(w); err != nil {
		return fmt.Errorf("report: writing text: %w", err)
	}
	return nil
}

// writeRunHeader writes the "key : value" lines describing r.Run; empty
// fields are left out.
func writeRunHeader(b *bytes.Buffer, r *Result) {
	run := &r.Run
	writeKeyValue(b, "Benchmark", run.Benchmark)
	if run.Version != "" {
		writeKeyValue(b, "Version", run.Version)
	}
	if len(run.Command) > 0 {
		writeKeyValue(b, "Command line", commandLine(run.Command))
	}
	if !run.Start.IsZero() {
		writeKeyValue(b, "Began", run.Start.Format("2006-01-02T15:04:05Z07:00"))
	}
	if !run.End.IsZero() {
		writeKeyValue(b, "Finished", run.End.Format("2006-01-02T15:04:05Z07:00"))
	}
	if !run.Start.IsZero() && !run.End.IsZero() {
		// Wall clock only (Round(0) drops the monotonic reading), which
		// is all the archive keeps: a re-render prints the same.
		writeKeyValue(b, "Elapsed", run.End.Round(0).Sub(run.Start.Round(0)).String())
	}
	if run.Ranks > 0 {
		writeKeyValue(b, "Ranks", strconv.Itoa(run.Ranks))
	}
	if run.Hosts > 0 || len(run.Hostnames) > 0 {
		writeKeyValue(b, "Hosts", hostsLine(run.Hosts, run.Hostnames))
	}
	keys := make([]string, 0, len(run.Env))
	for k := range run.Env {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		writeKeyValue(b, k, run.Env[k])
	}
}

// writeKeyValue writes one "key                : value" line.
func writeKeyValue(b *bytes.Buffer, key, value string) {
	fmt.Fprintf(b, "%-*s: %s\n", keyWidth, printable(key), printable(value))
}

// hostsLine describes the hosts: the count, then up to maxHostnames names.
func hostsLine(n int, names []string) string {
	if n == 0 {
		n = len(names)
	}
	if len(names) == 0 {
		return strconv.Itoa(n)
	}
	shown := names
	if len(shown) > maxHostnames {
		shown = shown[:maxHostnames]
	}
	list := strings.Join(shown, ", ")
	if more := len(names) - len(shown); more > 0 {
		list += fmt.Sprintf(", and %d more", more)
	}
	return fmt.Sprintf("%d (%s)", n, list)
}

// commandLine joins argv for display, quoting arguments as a POSIX shell
// would need them so the line can be pasted back.
func commandLine(argv []string) string {
	quoted := make([]string, len(argv))
	for i, a := range argv {
		quoted[i] = shellQuote(a)
	}
	return strings.Join(quoted, " ")
}

// shellQuote returns a unchanged when a shell would read it as one word,
// else single-quoted.
func shellQuote(a string) string {
	safe := a != "" && strings.IndexFunc(a, func(r rune) bool {
		return !(r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("_@%+=:,./-", r)))
	}) < 0
	if safe {
		return a
	}
	return "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
}

// printable returns s, or s quoted Go-style if it holds characters that
// would break a line-oriented layout (newlines, tabs, other controls).
func printable(s string) string {
	if strings.IndexFunc(s, func(r rune) bool { return !unicode.IsPrint(r) && r != ' ' }) >= 0 {
		return strconv.Quote(s)
	}
	return s
}

// writeTextTable renders t with tablewriter: a heading row, a row of
// dashes under each heading as IOR and mdtest print, then the rows.
func writeTextTable(b *bytes.Buffer, t *Table) error {
	cols := len(t.Columns)
	headings := make([]any, cols)
	dashes := make([]string, cols)
	align := make([]tw.Align, cols)
	cells := make([][]string, len(t.Rows))
	for i := range cells {
		cells[i] = make([]string, cols)
	}
	li, mi := 0, 0 // index among label, metric columns
	for c, col := range t.Columns {
		if col.Kind == KindLabel {
			numeric := len(t.Rows) > 0
			for r, row := range t.Rows {
				cells[r][c] = printable(row.Labels[li])
				if _, err := strconv.ParseFloat(row.Labels[li], 64); err != nil {
					numeric = false
				}
			}
			headings[c] = printable(col.Name)
			align[c] = tw.AlignLeft
			if numeric {
				align[c] = tw.AlignRight
			}
			li++
		} else {
			unit := col.displayUnit()
			scale, _ := displayScale(col.Unit, col.Display) // checked by Validate
			vals := make([]float64, len(t.Rows))
			for r, row := range t.Rows {
				vals[r] = row.Metrics[mi] * scale
			}
			prec := precision(unit, vals)
			for r, v := range vals {
				cells[r][c] = formatDisplay(v, prec)
			}
			headings[c] = printable(heading(col.Name, unit))
			align[c] = tw.AlignRight
			mi++
		}
		dashes[c] = strings.Repeat("-", max(1, displayWidth(headings[c].(string))))
	}

	table := tablewriter.NewTable(b,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{
			Borders: tw.BorderNone,
			Symbols: tw.NewSymbols(tw.StyleASCII),
			Settings: tw.Settings{
				Lines:      tw.LinesNone,
				Separators: tw.SeparatorsNone,
			},
		})),
		tablewriter.WithPadding(tw.Padding{Left: "", Right: "  ", Overwrite: true}),
		tablewriter.WithTrimSpace(tw.Off),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAutoWrap(tw.WrapNone),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithHeaderAlignmentConfig(tw.CellAlignment{PerColumn: align}),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{PerColumn: align}),
	)
	table.Header(headings...)
	if err := table.Append(dashes); err != nil {
		return err
	}
	for _, row := range cells {
		if err := table.Append(row); err != nil {
			return err
		}
	}
	return table.Render()
}

// displayWidth approximates the terminal width of s, one column per rune;
// it only sizes the dashes under a heading.
func displayWidth(s string) int {
	return len([]rune(s))
}

// trimTrailingSpace removes spaces at the ends of lines.
func trimTrailingSpace(b []byte) []byte {
	lines := bytes.SplitAfter(b, []byte("\n"))
	out := make([]byte, 0, len(b))
	for _, l := range lines {
		nl := bytes.HasSuffix(l, []byte("\n"))
		l = bytes.TrimRight(bytes.TrimSuffix(l, []byte("\n")), " ")
		out = append(out, l...)
		if nl {
			out = append(out, '\n')
		}
	}
	return out
}
