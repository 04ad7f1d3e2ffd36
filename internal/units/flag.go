package units

// SizeFlag is a size in bytes that implements pflag.Value (and flag.Value),
// so a flag set can parse "-b 4m" straight into an int64. Bind it to an
// options field with a pointer conversion:
//
//	fs.VarP((*units.SizeFlag)(&o.BlockSize), "block-size", "b", "bytes per task (k, m, g, t = 1024^n)")
//
// Set reports ParseSize's error; pflag prefixes the flag's name, so the user
// sees which flag was wrong.
type SizeFlag int64

// String returns the size as it is typed (FormatFlag: "1m"), so a help
// text's default reads as the option takes it; "0" for zero, which pflag
// treats as unset.
func (s *SizeFlag) String() string {
	if s == nil {
		return "0"
	}
	return FormatFlag(int64(*s))
}

// Set parses v with ParseSize and stores it.
func (s *SizeFlag) Set(v string) error {
	n, err := ParseSize(v)
	if err != nil {
		return err
	}
	*s = SizeFlag(n)
	return nil
}

// Type names the value kind in pflag's usage text ("-b, --block-size size").
func (s *SizeFlag) Type() string { return "size" }
