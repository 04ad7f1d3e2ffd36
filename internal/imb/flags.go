package imb

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// The pflag.Value types of IMB's options. Each Set returns the accepted
// range in its error; pflag adds the flag's name and the value given.

// msglogValue is -msglog MIN:MAX, or MAX alone (IMB's two forms).
type msglogValue struct{ o *Options }

func (v msglogValue) String() string {
	if v.o == nil {
		return ""
	}
	return fmt.Sprintf("%d:%d", v.o.MinLog, v.o.MaxLog)
}

func (v msglogValue) Set(s string) error {
	lo, hi, pair := strings.Cut(s, ":")
	minLog, maxLog := v.o.MinLog, 0
	var err error
	if pair {
		if minLog, err = strconv.Atoi(lo); err != nil {
			return fmt.Errorf("want MIN:MAX with 0 <= MIN < MAX <= %d", MaxLog)
		}
	} else {
		hi = lo
	}
	if maxLog, err = strconv.Atoi(hi); err != nil || minLog < 0 || maxLog > MaxLog || minLog >= maxLog {
		return fmt.Errorf("want MIN:MAX with 0 <= MIN < MAX <= %d", MaxLog)
	}
	v.o.MinLog, v.o.MaxLog = minLog, maxLog
	return nil
}

func (msglogValue) Type() string { return "min:max" }

// msglenValue is -msglen FILE: Set reads and parses the file.
type msglenValue struct{ o *Options }

func (v msglenValue) String() string {
	if v.o == nil {
		return ""
	}
	return v.o.MsgLenFile
}

func (v msglenValue) Set(s string) error {
	sizes, err := readMsglen(s)
	if err != nil {
		return fmt.Errorf("%s: %w", s, err)
	}
	v.o.MsgLen, v.o.MsgLenFile = sizes, s
	return nil
}

func (msglenValue) Type() string { return "file" }

// iterValue is -iter N[,VOL[,NONAGGR]]: repetitions, overall volume in MiB,
// and IMB's count for non-aggregate modes, which MPI-1 benchmarks ignore.
type iterValue struct{ o *Options }

func (v iterValue) String() string {
	if v.o == nil {
		return ""
	}
	return v.o.iterSpec()
}

func (v iterValue) Set(s string) error {
	parts := strings.Split(s, ",")
	bad := fmt.Errorf("want N[,VOL] with N in [1, %d] repetitions and VOL in [0, %d] MiB", MaxMsgsPerSample, MaxOverallVolMiB)
	if len(parts) > 3 {
		return bad
	}
	var nums [3]int64
	for i, p := range parts {
		if p == "" || strings.TrimLeft(p, "0123456789") != "" {
			return bad
		}
		n, err := strconv.ParseInt(p, 10, 64)
		if err != nil {
			return bad
		}
		nums[i] = n
	}
	if nums[0] < 1 || nums[0] > MaxMsgsPerSample {
		return bad
	}
	v.o.MsgsPerSample = int(nums[0])
	if len(parts) > 1 {
		if nums[1] > MaxOverallVolMiB {
			return bad
		}
		v.o.OverallVol = nums[1] << 20
	}
	return nil
}

func (iterValue) Type() string { return "n[,vol]" }

// secondsValue is -time: seconds as IMB takes them ("10", "0.5"), or a Go
// duration ("500ms").
type secondsValue struct{ d *time.Duration }

func (v secondsValue) String() string {
	if v.d == nil {
		return ""
	}
	return strconv.FormatFloat(v.d.Seconds(), 'f', -1, 64)
}

func (v secondsValue) Set(s string) error {
	bad := fmt.Errorf("want seconds > 0, such as 10 or 0.5, or a duration such as 500ms")
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		if !(f > 0) || math.IsInf(f, 0) || f > float64(math.MaxInt64)/1e9 {
			return bad
		}
		*v.d = time.Duration(f * 1e9)
		if *v.d <= 0 {
			return bad
		}
		return nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return bad
	}
	*v.d = d
	return nil
}

func (secondsValue) Type() string { return "seconds" }

// switchValue is an IMB on/off switch (-sync, -root_shift): enable, yes,
// on or 1; disable, no, off or 0; in any case.
type switchValue struct{ b *bool }

func (v switchValue) String() string {
	if v.b == nil {
		return ""
	}
	return onOff(*v.b)
}

func (v switchValue) Set(s string) error {
	switch strings.ToLower(s) {
	case "enable", "yes", "on", "1":
		*v.b = true
	case "disable", "no", "off", "0":
		*v.b = false
	default:
		return fmt.Errorf("want on or off (or enable, yes, 1; disable, no, 0)")
	}
	return nil
}

func (switchValue) Type() string { return "on|off" }
