package cliflag

import (
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// textValue is a plain string option for the OneOf tests.
type textValue struct{ s *string }

func (v textValue) String() string     { return *v.s }
func (v textValue) Set(s string) error { *v.s = s; return nil }
func (v textValue) Type() string       { return "format" }

func TestOneOf(t *testing.T) {
	for _, c := range []struct {
		args    []string
		want    string // the format chosen when fine
		wantErr string // "" when fine
	}{
		{nil, "human", ""},
		{[]string{"--format", "json"}, "json", ""},
		{[]string{"--csv"}, "csv", ""},
		{[]string{"--format", "json", "--json"}, "json", ""}, // the same choice twice
		{[]string{"--json", "--csv=false"}, "json", ""},
		{[]string{"--format", "json", "--csv"}, "", "--format json and --csv: choose one"},
		{[]string{"--csv", "--format", "json"}, "", "--csv and --format json: choose one"},
		{[]string{"--json", "--csv"}, "", "--json and --csv: choose one"},
		{[]string{"--format", "json", "--format", "csv"}, "", "--format json and --format csv: choose one"},
	} {
		format := "human"
		var o OneOf
		fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
		v := textValue{&format}
		fs.Var(o.Value("--format", v), "format", "")
		fs.Var(o.Implied("--json", "json", v), "json", "")
		fs.Lookup("json").NoOptDefVal = "true"
		fs.Var(o.Implied("--csv", "csv", v), "csv", "")
		fs.Lookup("csv").NoOptDefVal = "true"
		if err := fs.Parse(c.args); err != nil {
			t.Fatalf("%q: %v", c.args, err)
		}
		err := o.Err()
		switch {
		case c.wantErr == "" && err != nil:
			t.Errorf("%q: %v", c.args, err)
		case c.wantErr == "" && format != c.want:
			t.Errorf("%q: format %s, want %s", c.args, format, c.want)
		case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
			t.Errorf("%q: error %v, want %q", c.args, err, c.wantErr)
		}
	}
}
