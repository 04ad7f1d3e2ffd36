package pmix

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"
)

// Client is one process's PMIx session: PMIx_Init done, PMIx_Finalize
// not yet. OpenPMIx is thread-safe, and so is a Client.
type Client struct {
	lib       *Lib
	me        *proc
	wildcard  *proc
	singleton bool

	finalizeOnce sync.Once
	finalizeErr  error
}

// Init initializes PMIx (PMIx_Init) and returns this process's session.
// With no PMIx server to reach, OpenPMIx still initializes, as a
// singleton (PMIX_ERR_UNREACH): Init returns that session with
// Singleton true, and the caller decides whether a singleton will do.
func (l *Lib) Init() (*Client, error) {
	var me proc
	st := l.initialize(unsafe.Pointer(&me[0]), nil, 0)
	if st != statusSuccess && st != statusUnreach {
		return nil, l.statusError("PMIx_Init", st)
	}
	c := &Client{lib: l, me: &me, singleton: st == statusUnreach}
	c.wildcard = newProc(me.nspace(), rankWildcard)
	return c, nil
}

// Singleton reports whether PMIx_Init found no server to join.
func (c *Client) Singleton() bool { return c.singleton }

// Namespace returns the job's namespace ("slurm.pmix.42.0", a numeric
// job id under Open MPI).
func (c *Client) Namespace() string { return c.me.nspace() }

// Rank returns this process's rank in its namespace.
func (c *Client) Rank() int { return int(c.me.rank()) }

// JobInt gets a job-level integer key (rank wildcard), such as
// KeyJobSize: what the bootstrap reads of the job (its peers' cards it
// gets with Get).
func (c *Client) JobInt(key string) (int64, error) {
	return c.getInt(c.wildcard, key)
}

func (c *Client) getInt(p *proc, key string) (int64, error) {
	v, err := c.getValue(p, key, 0)
	if err != nil {
		return 0, err
	}
	if !v.isNum {
		return 0, fmt.Errorf("pmix: PMIx_Get %s: type %d, want an integer", key, v.typ)
	}
	return v.num, nil
}

// Put publishes key=val with global scope (PMIx_Put); other processes may
// get it after the next Commit and Fence.
func (c *Client) Put(key string, val []byte) error {
	if err := checkKey(key); err != nil {
		return err
	}
	var pin runtime.Pinner
	defer pin.Unpin()
	var bo [byteObjSize]byte
	if len(val) > 0 {
		pin.Pin(&val[0])
		*(*unsafe.Pointer)(unsafe.Pointer(&bo[0])) = unsafe.Pointer(&val[0])
	}
	*(*uint64)(unsafe.Pointer(&bo[8])) = uint64(len(val))
	var v [valueSize]byte
	if st := c.lib.valueLoad(unsafe.Pointer(&v[0]), unsafe.Pointer(&bo[0]), typeByteObj); st != statusSuccess {
		return c.lib.statusError("PMIx_Value_load", st)
	}
	defer c.lib.valueFree(unsafe.Pointer(&v[0]))
	if st := c.lib.put(scopeGlobal, key, unsafe.Pointer(&v[0])); st != statusSuccess {
		return fmt.Errorf("put %s: %w", key, c.lib.statusError("PMIx_Put", st))
	}
	return nil
}

// Commit sends the puts made since the last commit to the local server
// (PMIx_Commit).
func (c *Client) Commit() error {
	if st := c.lib.commit(); st != statusSuccess {
		return c.lib.statusError("PMIx_Commit", st)
	}
	return nil
}

// Fence waits until every process of the job has entered it
// (PMIx_Fence over the whole namespace); with collect, it also brings
// every process's committed puts here, so that Get answers from local
// memory. A timeout > 0 is passed as PMIX_TIMEOUT (whole seconds, at
// least 1): the library's own deadline, since a blocking C call cannot be
// interrupted.
func (c *Client) Fence(collect bool, timeout time.Duration) error {
	info := newInfos(2)
	n := 0
	if collect {
		if err := c.loadInfo(info, n, keyCollect, true); err != nil {
			return err
		}
		n++
	}
	if timeout > 0 {
		if err := c.loadInfo(info, n, keyTimeout, seconds(timeout)); err != nil {
			return err
		}
		n++
	}
	var ip unsafe.Pointer
	if n > 0 {
		ip = unsafe.Pointer(&info[0])
	}
	if st := c.lib.fence(unsafe.Pointer(&c.wildcard[0]), 1, ip, uint64(n)); st != statusSuccess {
		return c.lib.statusError("PMIx_Fence", st)
	}
	return nil
}

// Get returns the value process rank put under key (PMIx_Get). timeout >
// 0 bounds the wait for a value not yet here (PMIX_TIMEOUT). A missing
// key gives an *Error whose NotFound is true.
func (c *Client) Get(rank int, key string, timeout time.Duration) ([]byte, error) {
	if err := checkKey(key); err != nil {
		return nil, err
	}
	v, err := c.getValue(newProc(c.Namespace(), uint32(rank)), key, timeout)
	if err != nil {
		return nil, fmt.Errorf("get %s of rank %d: %w", key, rank, err)
	}
	if v.isNum {
		return []byte(strconv.FormatInt(v.num, 10)), nil
	}
	return v.bytes, nil
}

func (c *Client) getValue(p *proc, key string, timeout time.Duration) (value, error) {
	var ip unsafe.Pointer
	var ninfo uint64
	if timeout > 0 {
		info := newInfos(1)
		if err := c.loadInfo(info, 0, keyTimeout, seconds(timeout)); err != nil {
			return value{}, err
		}
		ip, ninfo = unsafe.Pointer(&info[0]), 1
	}
	var v unsafe.Pointer
	if st := c.lib.get(unsafe.Pointer(&p[0]), key, ip, ninfo, &v); st != statusSuccess {
		return value{}, c.lib.statusError("PMIx_Get", st)
	}
	if v == nil {
		return value{}, fmt.Errorf("pmix: PMIx_Get %s: success with no value", key)
	}
	defer func() {
		c.lib.valueFree(v)
		c.lib.free(v)
	}()
	out, err := decodeValue(v)
	if err != nil {
		return value{}, fmt.Errorf("pmix: PMIx_Get %s: %w", key, err)
	}
	return out, nil
}

// Abort asks the launcher to end the job with exit status code
// (PMIx_Abort over the whole namespace); msg is what the launcher prints.
// OpenPMIx returns once the server has the request.
func (c *Client) Abort(code int, msg string) error {
	if st := c.lib.abort(int32(code), msg, nil, 0); st != statusSuccess {
		return c.lib.statusError("PMIx_Abort", st)
	}
	return nil
}

// Finalize ends the session (PMIx_Finalize). Calling it again returns the
// first call's result.
func (c *Client) Finalize() error {
	c.finalizeOnce.Do(func() {
		if st := c.lib.finalize(nil, 0); st != statusSuccess {
			c.finalizeErr = c.lib.statusError("PMIx_Finalize", st)
		}
	})
	return c.finalizeErr
}

// infos is an array of pmix_info_t in Go memory, holding no pointers: the
// keys are inline and the values loaded here are booleans and integers.
type infos []byte

func newInfos(n int) infos { return make(infos, n*infoSize) }

func (c *Client) loadInfo(in infos, i int, key string, v any) error {
	var data unsafe.Pointer
	var typ uint16
	switch x := v.(type) {
	case bool:
		b := new(byte)
		if x {
			*b = 1
		}
		data, typ = unsafe.Pointer(b), typeBool
	case int32:
		data, typ = unsafe.Pointer(&x), typeInt
	default:
		return fmt.Errorf("pmix: info %s: unsupported value %T", key, v)
	}
	if st := c.lib.infoLoad(unsafe.Pointer(&in[i*infoSize]), key, data, typ); st != statusSuccess {
		return c.lib.statusError("PMIx_Info_load "+key, st)
	}
	return nil
}

// seconds is d in whole seconds for PMIX_TIMEOUT, rounded up, at least 1.
func seconds(d time.Duration) int32 {
	s := math.Ceil(d.Seconds())
	return int32(max(1, min(s, math.MaxInt32)))
}

// errKey is a key the library would refuse or truncate.
var errKey = errors.New("key must be 1 to 511 bytes with no NUL")

func checkKey(key string) error {
	if key == "" || len(key) > maxKeyLen || strings.IndexByte(key, 0) >= 0 {
		return fmt.Errorf("pmix: key %q: %w", key, errKey)
	}
	return nil
}
