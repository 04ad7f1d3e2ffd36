package io500

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// kind is an option's type, as IO500's INI parser checks it.
type kind int

const (
	kindString kind = iota
	kindBool        // TRUE/FALSE, 1/0, any case
	kindInt         // an optional minus and digits
	kindUint        // digits
	kindFloat       // digits, '.', 'e', '+', '-'
)

// option is one key of a section.
type option struct {
	Name      string
	Kind      kind
	Help      string // the comment --list prints above it; "" for none
	Default   string // "" for unset
	Mandatory bool
	// EmptyDefault: the default is the empty string rather than unset
	// (it counts in the config-hash).
	EmptyDefault bool
	// Legacy keys come from older IO500 releases: accepted, never listed.
	Legacy bool
}

// section is one [name] of the INI file: a phase's or [global]/[debug].
type section struct {
	Name    string
	Options []option
}

// legacyOptions are keys of older IO500 releases' files that the current
// application refuses but configurations still carry: [ior-easy]
// posix.odirect (IO500 ISC20), which asks the ior-easy phases for O_DIRECT.
var legacyOptions = map[string][]option{
	"ior-easy": {{Name: "posix.odirect", Kind: kindBool, Legacy: true}},
}

// Config is a parsed IO500 INI file: the values set in it over the
// option table's defaults.
type Config struct {
	// Data is the file as read, kept in the results dir (config-orig.ini).
	Data string
	set  map[string]map[string]string // section → option (table spelling) → value
}

// The INI grammar of IO500's parser (src/ini-parse.c): a section line, a
// key = value line with an optional trailing comment, an empty or comment
// line.
var (
	reSection = regexp.MustCompile(`^[[:space:]]*\[[[:space:]]*([0-9a-zA-Z_-]+)[[:space:]]*\][[:space:]]*([[:space:]][#;].*)?$`)
	reKey     = regexp.MustCompile(`^[[:space:]]*([0-9a-zA-Z_.-]+)[[:space:]]*=[[:space:]]*([^#;]*)[[:space:]]*([[:space:]][#;].*)?$`)
	reEmpty   = regexp.MustCompile(`^[[:space:]]*([#;].*)?$`)
	reInt     = regexp.MustCompile(`^[-]?[0-9]+$`)
	reUint    = regexp.MustCompile(`^[0-9]+$`)
	reFloat   = regexp.MustCompile(`^([0-9e.+-]+)$`)
)

// ParseConfig parses an IO500 INI file named name (for errors). It refuses,
// in one line naming the file, line, section and key, what IO500 refuses:
// an unknown section or key, a value of the wrong type, a key outside a
// section, a line that is none of the above, a mandatory key unset.
func ParseConfig(name, data string) (*Config, error) {
	c := &Config{Data: data, set: map[string]map[string]string{}}
	var sec *section
	for i, line := range strings.Split(data, "\n") {
		where := fmt.Sprintf("%s line %d", name, i+1)
		if strings.TrimSpace(line) == "" {
			continue
		}
		if m := reSection.FindStringSubmatch(line); m != nil {
			sec = lookupSection(m[1])
			if sec == nil {
				return nil, fmt.Errorf("%s: unknown section [%s] (IO500's sections: %s)", where, m[1], strings.Join(sectionNames(), ", "))
			}
			continue
		}
		if m := reKey.FindStringSubmatch(line); m != nil {
			key, val := m[1], strings.TrimRight(m[2], " \t\r")
			if val == "" {
				continue // IO500: a key without a value stays unset
			}
			if sec == nil {
				return nil, fmt.Errorf("%s: %s = %s is outside any section: put it under [global] or a phase's [section]", where, key, val)
			}
			o := sec.lookup(key)
			if o == nil {
				return nil, fmt.Errorf("%s: unknown option %q in [%s] (it takes: %s)", where, key, sec.Name, strings.Join(sec.names(), ", "))
			}
			v, err := checkValue(o, val)
			if err != nil {
				return nil, fmt.Errorf("%s: [%s] %s: %w", where, sec.Name, o.Name, err)
			}
			if c.set[sec.Name] == nil {
				c.set[sec.Name] = map[string]string{}
			}
			c.set[sec.Name][o.Name] = v
			continue
		}
		if !reEmpty.MatchString(strings.TrimRight(line, "\r")) {
			in := "outside any section"
			if sec != nil {
				in = "in [" + sec.Name + "]"
			}
			return nil, fmt.Errorf("%s: %s: not a [section], key = value or comment line: %q", where, in, line)
		}
	}
	for _, s := range optionTable {
		for _, o := range s.Options {
			if o.Mandatory && c.value(s.Name, o.Name) == "" {
				return nil, fmt.Errorf("%s: [%s] %s is mandatory and not set", name, s.Name, o.Name)
			}
		}
	}
	return c, nil
}

// checkValue checks val against o's type and returns it as IO500 keeps
// it (booleans as TRUE or FALSE).
func checkValue(o *option, val string) (string, error) {
	switch o.Kind {
	case kindBool:
		switch {
		case strings.EqualFold(val, "true") || val == "1":
			return "TRUE", nil
		case strings.EqualFold(val, "false") || val == "0":
			return "FALSE", nil
		}
		return "", fmt.Errorf("%q is not a boolean (TRUE or FALSE)", val)
	case kindInt:
		if !reInt.MatchString(val) {
			return "", fmt.Errorf("%q is not an integer", val)
		}
		if _, err := strconv.ParseInt(val, 10, 32); err != nil {
			return "", fmt.Errorf("%q is out of range (a 32-bit integer)", val)
		}
	case kindUint:
		if !reUint.MatchString(val) {
			return "", fmt.Errorf("%q is not an integer >= 0", val)
		}
		if _, err := strconv.ParseUint(val, 10, 63); err != nil {
			return "", fmt.Errorf("%q is out of range (at most %d)", val, int64(1<<63-1))
		}
	case kindFloat:
		if !reFloat.MatchString(val) {
			return "", fmt.Errorf("%q is not a number", val)
		}
		if _, err := strconv.ParseFloat(val, 64); err != nil {
			return "", fmt.Errorf("%q is not a number", val)
		}
	}
	return val, nil
}

func lookupSection(name string) *section {
	for i := range optionTable {
		if strings.EqualFold(optionTable[i].Name, name) {
			return &optionTable[i]
		}
	}
	return nil
}

func sectionNames() []string {
	var n []string
	for _, s := range optionTable {
		n = append(n, s.Name)
	}
	return n
}

// lookup returns the option key names in s (case-insensitive, as IO500),
// legacy keys included, or nil.
func (s *section) lookup(key string) *option {
	for _, list := range [][]option{s.Options, legacyOptions[s.Name]} {
		for i := range list {
			if strings.EqualFold(list[i].Name, key) {
				return &list[i]
			}
		}
	}
	return nil
}

func (s *section) names() []string {
	var n []string
	for _, o := range s.Options {
		n = append(n, o.Name)
	}
	if len(n) == 0 {
		return []string{"no option"}
	}
	return n
}

// value returns the value of sec's key: the file's, else the default, else
// "" (unset).
func (c *Config) value(sec, key string) string {
	if v, ok := c.set[sec][key]; ok {
		return v
	}
	s := lookupSection(sec)
	if s == nil {
		panic("io500: no section " + sec)
	}
	o := s.lookup(key)
	if o == nil {
		panic("io500: no option " + sec + "." + key)
	}
	return o.Default
}

// Str returns sec's key ("" when unset).
func (c *Config) Str(sec, key string) string { return c.value(sec, key) }

// IsSet reports whether sec's key has a value, the file's or a default.
func (c *Config) IsSet(sec, key string) bool { return c.value(sec, key) != "" }

// Bool returns sec's boolean key; unset is false.
func (c *Config) Bool(sec, key string) bool { return c.value(sec, key) == "TRUE" }

// Int returns sec's integer key; unset is 0.
func (c *Config) Int(sec, key string) int64 {
	v, _ := strconv.ParseInt(c.value(sec, key), 10, 64)
	return v
}

// WriteList writes every option as an INI file, as `io500 --list` does
// with help (the file's values over the defaults when c is not nil) or as
// the results dir's config.ini without.
func WriteList(w io.Writer, c *Config, help bool) error {
	var b strings.Builder
	if help {
		b.WriteString("# Supported and current values of the ini file:\n")
	}
	for _, s := range optionTable {
		fmt.Fprintf(&b, "[%s]\n", s.Name)
		for _, o := range s.Options {
			if help && o.Help != "" {
				fmt.Fprintf(&b, "# %s\n", o.Help)
			}
			v := o.Default
			if c != nil {
				v = c.value(s.Name, o.Name)
			}
			fmt.Fprintf(&b, "%s = %s\n", o.Name, v)
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Hash is IO500's config-hash: every set option's name and value, each
// hashed alone and combined with XOR (so the order does not matter).
func (c *Config) Hash() uint32 {
	var h uint32
	for _, s := range optionTable {
		for _, o := range s.Options {
			if v := c.value(s.Name, o.Name); v != "" || o.EmptyDefault {
				h = hashKeyVal(h, o.Name, v)
			}
		}
	}
	return h
}

// SetKeys lists "section.key" for every key the file set, sorted (tests).
func (c *Config) SetKeys() []string {
	var out []string
	for s, m := range c.set {
		for k := range m {
			out = append(out, s+"."+k)
		}
	}
	slices.Sort(out)
	return out
}

// setValue returns the value the file gave "section.key" (SetKeys' form).
func (c *Config) setValue(k string) string {
	for s, m := range c.set {
		for key, v := range m {
			if s+"."+key == k {
				return v
			}
		}
	}
	return ""
}

// Check refuses what the file asks that hpcbench does not do, in one
// line naming the key: an external find script, I/O buffers on a GPU.
// It returns IO500's warnings for what it ignores, as IO500 does.
func (c *Config) Check() (warnings []string, err error) {
	if v := c.Str("find", "external-script"); v != "" {
		return nil, fmt.Errorf("[find] external-script = %s: hpcbench runs its own parallel find (leave external-script unset)", v)
	}
	if c.Bool("global", "io-buffers-on-gpu") {
		return nil, fmt.Errorf("[global] io-buffers-on-gpu = TRUE: hpcbench has no GPU buffers (set it FALSE)")
	}
	if c.Str("find", "external-mpi-args") != "" || c.Str("find", "external-extra-args") != "" {
		warnings = append(warnings, "Using internal pfind, will ignore any arguments to the external script")
	}
	return warnings, nil
}

// WriteConfigHash prints the configuration's hash as `io500 --config-hash`.
func WriteConfigHash(w io.Writer, c *Config) error {
	_, err := fmt.Fprintf(w, "%-15s = %s\n", "config-hash", hashHex(c.Hash()))
	return err
}
