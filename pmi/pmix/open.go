//go:build !nopmix

package pmix

import (
	"fmt"

	"github.com/ebitengine/purego"

	"github.com/hpcbench/hpcbench/internal/dlib"
)

// Built reports whether this build can load the library at all (false
// with -tags nopmix).
const Built = true

// Open loads OpenPMIx (libpmix.so.2, else libpmix.so) and the C library's
// free. It fails with an error naming the files tried, dlopen's reason and
// the Debian package, or the version it refuses. Open does not initialize
// PMIx: Init does.
func Open() (*Lib, error) {
	h, path, err := dlib.Open(libraryNames)
	if err != nil {
		return nil, fmt.Errorf("pmix: cannot load OpenPMIx (%v) (Debian: apt-get install libpmix2)", err)
	}
	libc, err := purego.Dlopen("libc.so.6", purego.RTLD_NOW|purego.RTLD_GLOBAL)
	if err != nil {
		return nil, fmt.Errorf("pmix: cannot load the C library: %w", err)
	}
	l := &Lib{path: path}
	if err := l.register(h, libc); err != nil {
		return nil, err
	}
	l.version = l.getVersion()
	if err := checkVersion(l.version); err != nil {
		return nil, fmt.Errorf("pmix: %s: %w", path, err)
	}
	return l, nil
}

// register binds every function the client calls, failing on the first
// symbol the library lacks.
func (l *Lib) register(h, libc uintptr) (err error) {
	bind := func(fn any, lib uintptr, name string) {
		if err != nil {
			return
		}
		if _, e := purego.Dlsym(lib, name); e != nil {
			err = fmt.Errorf("pmix: %s has no %s: %w", l.path, name, e)
			return
		}
		purego.RegisterLibFunc(fn, lib, name)
	}
	bind(&l.initialize, h, "PMIx_Init")
	bind(&l.get, h, "PMIx_Get")
	bind(&l.put, h, "PMIx_Put")
	bind(&l.commit, h, "PMIx_Commit")
	bind(&l.fence, h, "PMIx_Fence")
	bind(&l.abort, h, "PMIx_Abort")
	bind(&l.finalize, h, "PMIx_Finalize")
	bind(&l.valueLoad, h, "PMIx_Value_load")
	bind(&l.infoLoad, h, "PMIx_Info_load")
	bind(&l.valueFree, h, "PMIx_Value_destruct")
	bind(&l.errString, h, "PMIx_Error_string")
	bind(&l.getVersion, h, "PMIx_Get_version")
	bind(&l.free, libc, "free")
	return err
}
