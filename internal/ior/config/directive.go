package config

import (
	"fmt"
	"strings"
	"unicode"
)

// Directive is one key=value setting of -O or of a script line, such as
// blockSize=4m or posix.odirect=1.
type Directive struct {
	// Key names the setting; it is matched without regard to case.
	Key string
	// Value is the setting's text, parsed by the option it names.
	Value string
}

// String returns the directive as key=value.
func (d Directive) String() string { return d.Key + "=" + d.Value }

// ParseDirectives splits the text of -O (or a script line) into
// directives, with IOR's syntax: "#" starts a comment that runs to the
// end; the rest is a comma-separated list of key=value pieces, each at
// least 3 characters long; spaces around the key and value are ignored.
// It checks the syntax only: Parse looks the keys up. The error is one
// line quoting the bad piece.
func ParseDirectives(s string) ([]Directive, error) {
	if i := strings.IndexByte(s, '#'); i >= 0 {
		s = s[:i]
	}
	pieces := strings.Split(s, ",")
	ds := make([]Directive, 0, len(pieces))
	for _, piece := range pieces {
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
	"numtasksonnode0": "numTasksOnNode0", "memorypertask": "memoryPerTask",
	"hintsfilename": "hintsFileName", "setalignment": "setAlignment",
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
