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

// unsupportedIOR names IOR directives (by -O key, lower case) that
// hpcbench does not implement, so they get a clear error instead of
// "unknown".
var unsupportedIOR = map[string]string{
	"debug": "debug", "platform": "platform", "allocatebufferongpu": "allocateBufferOnGPU",
	"gpuid": "GPUid", "gpudirect": "GPUDirect", "numnodes": "numNodes",
	"numtasksonnode0": "numTasksOnNode0",
	"hintsfilename":   "hintsFileName", "setalignment": "setAlignment",
	"individualdatasets": "individualDataSets", "nofill": "noFill", "preallocate": "preallocate",
	"storefileoffset": "storeFileOffset", "usefileview": "useFileView",
	"usesharedfilepointer": "useSharedFilePointer", "usestrideddatatype": "useStridedDatatype",
	"showhints": "showHints", "quitonerror": "quitOnError", "testnum": "testNum",
	"lustrestripecount": "lustreStripeCount", "lustrestripesize": "lustreStripeSize",
	"lustrestartost": "lustreStartOST", "lustreignorelocks": "lustreIgnoreLocks",
	"gpfshintaccess": "gpfsHintAccess", "gpfsreleasetoken": "gpfsReleaseToken",
	"beegfsnumtargets": "beegfsNumTargets", "beegfschunksize": "beegfsChunkSize",
}

// unsupportedShort names IOR's short flags that hpcbench does not
// implement.
var unsupportedShort = map[byte]string{
	'B': "useO_DIRECT (use --posix.odirect)", 'H': "showHints", 'I': "individualDataSets",
	'J': "setAlignment", 'n': "noFill", 'p': "preallocate", 'P': "useSharedFilePointer",
	'q': "quitOnError", 'S': "useStridedDatatype", 'U': "hintsFileName", 'V': "useFileView",
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
		if ior, unsupported := unsupportedIOR[k]; unsupported {
			return fmt.Errorf("directive %q: IOR's %s is not supported by hpcbench", d.Key, ior)
		}
		return fmt.Errorf("unknown directive %q", d.Key)
	}
	if err := f.Value.Set(d.Value); err != nil {
		return fmt.Errorf("%s: %w", d.Key, err)
	}
	f.Changed = true
	return nil
}

// applyArgs parses the command-line words of a directive into p. It uses
// a flag set of its own, bound to the same options, because -O applies
// directives while the command line's flag set is parsing. A script or -O
// cannot give -f or -h, nor words that are not options.
func (p *parser) applyArgs(args []string) error {
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
