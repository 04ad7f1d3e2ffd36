package config

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/hpcbench/hpcbench/internal/cliflag"
)

// Directive is one setting of -O or of a script line: key=value, such as
// blockSize=4m or posix.odirect=1, or, for a piece that starts with '-',
// command-line options such as "-a POSIX" or "--dummy.delay-create=1000".
type Directive struct {
	// Key names the setting; it is matched without regard to case.
	Key string
	// Value is the setting's text, parsed by the option it names.
	Value string
	// Args are the words of a piece in command-line style, parsed as a
	// command line is; Key and Value are then empty.
	Args []string
}

// String returns the directive as key=value, or its command-line words.
func (d Directive) String() string {
	if d.Args != nil {
		return strings.Join(d.Args, " ")
	}
	return d.Key + "=" + d.Value
}

// ParseDirectives splits the text of -O (or a script line) into
// directives, with IOR's syntax (parse_options.c, ParseLine and
// DecodeDirective): "#" starts a comment that runs to the end; the rest
// is a comma-separated list of pieces. A piece that starts with '-' (after
// spaces) is command-line options, split at spaces: IOR hands such a
// piece to its command-line parser ("--posix.odirect=1", "-a=POSIX"), and
// hpcbench also takes an option and its value as two words ("-a POSIX"),
// which IOR calls a syntax error. Any other piece is key=value, at least 3
// characters long, spaces around the key and value ignored. It checks the
// syntax only: Parse looks the keys up. The error is one line quoting the
// bad piece.
func ParseDirectives(s string) ([]Directive, error) {
	if i := strings.IndexByte(s, '#'); i >= 0 {
		s = s[:i]
	}
	pieces := strings.Split(s, ",")
	ds := make([]Directive, 0, len(pieces))
	for _, piece := range pieces {
		if args := strings.Fields(piece); len(args) > 0 && strings.HasPrefix(args[0], "-") {
			ds = append(ds, Directive{Args: args})
			continue
		}
		if len(piece) < 3 {
			return nil, fmt.Errorf("directive %q: shorter than 3 characters: want key=value", piece)
		}
		key, value, ok := strings.Cut(piece, "=")
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		switch {
		case !ok:
			return nil, fmt.Errorf("directive %q: want key=value", piece)
		case key == "":
			return nil, fmt.Errorf("directive %q: missing key before =", piece)
		case value == "":
			return nil, fmt.Errorf("directive %q: missing value after =", piece)
		case strings.IndexFunc(key, unicode.IsSpace) >= 0 || strings.IndexFunc(value, unicode.IsSpace) >= 0:
			return nil, fmt.Errorf("directive %q: spaces inside the key or value", piece)
		}
		ds = append(ds, Directive{Key: key, Value: value})
	}
	return ds, nil
}

// directiveAliases maps IOR's other spellings (lower case) to flag names.
var directiveAliases = map[string]string{
	"reordertasksconstant": "reorderTasks",
	"useo_direct":          "posix.odirect", // IOR maps it the same way
}

// notDirectives are flags that -O and scripts cannot set.
var notDirectives = map[string]bool{"help": true, "scriptFile": true, "directive": true}

// Reasons for the IOR options hpcbench refuses, shared by several.
const (
	whyMPIIO   = "IOR 4 moved it to its MPIIO backend (--mpiio.*), and hpcbench has no MPI-IO backend"
	whyHDF5    = "it is for IOR's HDF5 backend, which hpcbench does not have"
	whyIOR3    = "it was IOR 3's and IOR 4 refuses it too"
	whyGPU     = "hpcbench has no GPU (CUDA) buffers; IOR needs a CUDA build for it too"
	whyStripes = "hpcbench's POSIX backend sets no striping; set it on the directory beforehand (lfs setstripe, mmchattr, beegfs-ctl)"
)

// unsupportedIOR names the IOR directives (by -O key, lower case) that
// hpcbench does not implement, with the reason, so that they get a clear
// error instead of "unknown".
var unsupportedIOR = map[string]struct{ name, why string }{
	"allocatebufferongpu":  {"allocateBufferOnGPU", whyGPU},
	"gpuid":                {"GPUid", whyGPU},
	"gpudirect":            {"GPUDirect", whyGPU},
	"showhints":            {"showHints", whyMPIIO},
	"preallocate":          {"preallocate", whyMPIIO},
	"usefileview":          {"useFileView", whyMPIIO},
	"usestrideddatatype":   {"useStridedDatatype", whyMPIIO},
	"usesharedfilepointer": {"useSharedFilePointer", whyIOR3 + " (an MPI-IO option)"},
	"setalignment":         {"setAlignment", whyHDF5},
	"nofill":               {"noFill", whyHDF5},
	"individualdatasets":   {"individualDataSets", whyIOR3 + " (an HDF5 and NCMPI option)"},
	"storefileoffset":      {"storeFileOffset", whyIOR3 + "; -l offset stamps the offsets"},
	"quitonerror":          {"quitOnError", whyIOR3 + "; hpcbench stops at the first I/O error"},
	"testnum":              {"testNum", whyIOR3 + "; tests are numbered from 0 in order"},
	"lustrestripecount":    {"lustreStripeCount", whyStripes},
	"lustrestripesize":     {"lustreStripeSize", whyStripes},
	"lustrestartost":       {"lustreStartOST", whyStripes},
	"lustreignorelocks":    {"lustreIgnoreLocks", whyStripes},
	"gpfshintaccess":       {"gpfsHintAccess", whyStripes},
	"gpfsreleasetoken":     {"gpfsReleaseToken", whyStripes},
	"beegfsnumtargets":     {"beegfsNumTargets", whyStripes},
	"beegfschunksize":      {"beegfsChunkSize", whyStripes},
}

// unsupportedShort names the short flags of IOR 3 that IOR 4 and hpcbench
// do not have, with what to use instead.
var unsupportedShort = map[byte]struct{ name, why string }{
	'B': {"useO_DIRECT", "use --posix.odirect, as in IOR 4"},
	'H': {"showHints", whyMPIIO},
	'I': {"individualDataSets", whyIOR3},
	'J': {"setAlignment", whyHDF5},
	'n': {"noFill", whyHDF5},
	'p': {"preallocate", whyMPIIO},
	'P': {"useSharedFilePointer", whyIOR3},
	'q': {"quitOnError", whyIOR3 + "; hpcbench stops at the first I/O error"},
	'S': {"useStridedDatatype", whyMPIIO},
	'V': {"useFileView", whyMPIIO},
}

// applyDirective sets the option d names: an IOR option by its -O key or
// a backend option by its flag name (posix.odirect), in any case.
func (p *parser) applyDirective(d Directive) error {
	if d.Args != nil {
		return p.applyArgs(d.Args)
	}
	k := strings.ToLower(d.Key)
	name, ok := directiveAliases[k]
	if !ok {
		name, ok = p.keys[k]
	}
	f := p.fs.Lookup(name)
	if !ok || f == nil {
		if u, unsupported := unsupportedIOR[k]; unsupported {
			return fmt.Errorf("directive %q: IOR's %s is not supported: %s", d.Key, u.name, u.why)
		}
		return fmt.Errorf("unknown directive %q", d.Key)
	}
	if err := f.Value.Set(d.Value); err != nil {
		return fmt.Errorf("%s: %w", d.Key, err)
	}
	f.Changed = true
	return nil
}

// maxNesting bounds -O pieces that give -O again ("-O -O=-O=..."), each
// level of which parses with a flag set of its own.
const maxNesting = 8

// applyArgs parses the command-line words of a directive into p. It uses
// a flag set of its own, bound to the same options, because -O applies
// directives while the command line's flag set is parsing. A script or -O
// cannot give -f or -h, nor words that are not options.
func (p *parser) applyArgs(args []string) error {
	if p.depth >= maxNesting {
		return fmt.Errorf("%q: -O inside -O more than %d deep", strings.Join(args, " "), maxNesting)
	}
	p.depth++
	defer func() { p.depth-- }()
	fs := cliflag.NewFlagSet("ior")
	p.fs.VisitAll(fs.AddFlag)
	words, err := cliflag.ExpandGroups(fs, args)
	if err != nil {
		return err
	}
	script, help := p.script, p.help
	err = fs.Parse(words)
	switch {
	case err != nil:
		return p.flagError(err)
	case p.script != script:
		p.script = script
		return fmt.Errorf("%q: -f cannot be given in a script or -O", strings.Join(args, " "))
	case p.help != help:
		p.help = help
		return fmt.Errorf("%q: -h cannot be given in a script or -O", strings.Join(args, " "))
	case len(fs.Args()) > 0:
		return fmt.Errorf("unexpected word %q in %q: options start with - (such as -a POSIX)", fs.Args()[0], strings.Join(args, " "))
	}
	return nil
}
