package namespace

import (
	"errors"
	"slices"
	"strings"
	"syscall"
	"testing"
)

func TestSplitPath(t *testing.T) {
	cases := []struct {
		in   string
		want []string
		err  error
	}{
		{"", nil, nil},
		{"/", nil, nil},
		{".", nil, nil},
		{"/a", []string{"a"}, nil},
		{"a", []string{"a"}, nil},
		{"//a///b/", []string{"a", "b"}, nil},
		{"/a/./b/../c", []string{"a", "c"}, nil},
		{"/../a", []string{"a"}, nil},
		{"/" + strings.Repeat("n", maxName), []string{strings.Repeat("n", maxName)}, nil},
		{"/" + strings.Repeat("n", maxName+1), nil, syscall.ENAMETOOLONG},
		{strings.Repeat("a/", maxPath/2+1), nil, syscall.ENAMETOOLONG},
		{"/a\x00b", nil, syscall.EINVAL},
	}
	for _, c := range cases {
		got, err := splitPath(c.in)
		if !errors.Is(err, c.err) || (c.err == nil) != (err == nil) || !slices.Equal(got, c.want) {
			t.Errorf("splitPath(%.20q) = %q, %v; want %q, %v", c.in, got, err, c.want, c.err)
		}
	}
}

func TestSplitParentRoot(t *testing.T) {
	for _, p := range []string{"", "/", "/a/.."} {
		if _, _, err := splitParent(p); !errors.Is(err, syscall.EINVAL) {
			t.Errorf("splitParent(%q): %v, want EINVAL", p, err)
		}
	}
}

func FuzzSplitPath(f *testing.F) {
	for _, s := range []string{"", "/", "/a/b", "a//b/../c", "/./x/", "/a\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		names, err := splitPath(p)
		if err != nil {
			return
		}
		for _, n := range names {
			if n == "" || n == "." || n == ".." || strings.ContainsAny(n, "/\x00") || len(n) > maxName {
				t.Fatalf("splitPath(%q) = %q: bad name %q", p, names, n)
			}
		}
		again, err := splitPath("/" + joinNames(names))
		if err != nil || !slices.Equal(again, names) {
			t.Fatalf("splitPath(%q) = %q, but its join gives %q, %v", p, names, again, err)
		}
	})
}
