package cliflag

import "github.com/spf13/pflag"

// Usages returns the help lines of fs's visible flags, in fs's order and
// pflag's layout ("  -n, --items int   usage (default 1)"), with every
// switch written one way: as the bare flag ("--posix.odirect"), the way it
// is typed, where pflag writes its bool flags as "--name[=true|false]" and
// its other switches bare. A switch still accepts a value (--name=false).
func Usages(fs *pflag.FlagSet) string {
	out := pflag.NewFlagSet(fs.Name(), pflag.ContinueOnError)
	out.SortFlags = fs.SortFlags
	fs.VisitAll(func(f *pflag.Flag) {
		g := *f
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			// Hiding IsBoolFlag makes pflag print the flag as it prints
			// a switch with NoOptDefVal "true": bare.
			g.Value = switchValue{f.Value}
			g.NoOptDefVal = "true"
		}
		out.AddFlag(&g)
	})
	return out.FlagUsages()
}

// switchValue is a bool pflag.Value without its IsBoolFlag method, for
// Usages only.
type switchValue struct{ pflag.Value }
