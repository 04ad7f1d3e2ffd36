// Package dlib loads the field's C libraries at run time, through purego,
// so that a CGO_ENABLED=0 build speaks PMIx, UCX and libfabric wherever a
// site installed them: the one place that tries a library's file names in
// order.
package dlib

import (
	"fmt"
	"strings"

	"github.com/ebitengine/purego"
)

// Open dlopens the first of names that loads (RTLD_NOW|RTLD_GLOBAL: every
// symbol bound now, and visible to the libraries it loads in turn), as
// dlopen finds them (LD_LIBRARY_PATH applies), and returns its handle and
// the name that loaded. dlopen counts its opens of a library, so a second
// Open of one is a lookup. When none loads, the error names the files
// tried and dlopen's reason for each.
func Open(names []string) (uintptr, string, error) {
	var errs []string
	for _, name := range names {
		h, err := purego.Dlopen(name, purego.RTLD_NOW|purego.RTLD_GLOBAL)
		if err == nil {
			return h, name, nil
		}
		errs = append(errs, err.Error())
	}
	return 0, "", fmt.Errorf("tried %s: %s", strings.Join(names, ", "), strings.Join(errs, "; "))
}
