package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The words of ReadJSON's errors: where in the document a fault is (line,
// column and JSON path), what is there and what was wanted, said without
// Go's type names.

// fieldError is a fault of one field of an archive or a Result, at a JSON
// path such as tables[2].rows[0].metrics (see pathKey and pathIndex).
type fieldError struct {
	path, msg string
}

func (e *fieldError) Error() string {
	return "report: invalid result: " + e.path + ": " + e.msg
}

// pathKey returns the path of the member key of the object at path:
// "run.ranks", or `samples["a b"]` for a key that is not a plain word.
func pathKey(path, key string) string {
	if isWord(key) {
		if path == "" {
			return key
		}
		return path + "." + key
	}
	return path + "[" + strconv.Quote(key) + "]"
}

// pathIndex returns the path of element i of the list at path.
func pathIndex(path string, i int) string {
	return path + "[" + strconv.Itoa(i) + "]"
}

// isWord reports whether key is letters, digits, '_' and '-', starting
// with a letter.
func isWord(key string) bool {
	for i, c := range key {
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
		if !letter && (i == 0 || !(c >= '0' && c <= '9' || c == '-')) {
			return false
		}
	}
	return key != ""
}

// readError says err, from decoding or checking data, in a user's words
// with the line and column of the fault.
func readError(data []byte, err error) error {
	var (
		syntax   *json.SyntaxError
		typ      *json.UnmarshalTypeError
		field    *fieldError
		trailing *trailingError
	)
	switch {
	case errors.As(err, &syntax):
		return fmt.Errorf("%s: not valid JSON: %s", lineCol(data, syntax.Offset-1), syntax.Error())
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("%s: the JSON ends before the document does: is the file cut short?", lineCol(data, int64(len(data))))
	case errors.As(err, &trailing):
		return fmt.Errorf("%s: %s", lineCol(data, trailing.offset), trailing.Error())
	case errors.As(err, &typ):
		path, start := valueEndingAt(data, typ.Offset)
		return fmt.Errorf("%s: %s", lineCol(data, start), typeFault(path, typ))
	case errors.As(err, &field):
		return fmt.Errorf("%s: %s: %s", lineCol(data, valueStart(data, field.path)), field.path, field.msg)
	}
	return err
}

// typeFault says what a value of the wrong JSON type at path is and what
// was wanted there.
func typeFault(path string, e *json.UnmarshalTypeError) string {
	want := describeType(e.Type)
	switch path {
	case "":
		return fmt.Sprintf("the document is %s, want an object {\"schema\": %q, ...}: not an hpcbench archive", jsonWords(e.Value), Schema)
	case "schema":
		want = strconv.Quote(Schema)
	}
	if num, ok := strings.CutPrefix(e.Value, "number "); ok {
		v, err := strconv.ParseFloat(num, 64)
		whole := err == nil && v == math.Trunc(v)
		if k := e.Type.Kind(); k == reflect.Float32 || k == reflect.Float64 || whole {
			return fmt.Sprintf("%s: %s is out of range, want %s", path, num, want)
		}
		return fmt.Sprintf("%s: %s, want %s", path, num, want)
	}
	return fmt.Sprintf("%s: %s, want %s", path, jsonWords(e.Value), want)
}

// jsonWords names a kind of JSON value as encoding/json's errors call it.
func jsonWords(value string) string {
	switch value {
	case "array":
		return "a list"
	case "object":
		return "an object"
	case "string":
		return "a string"
	case "bool":
		return "true or false"
	case "number":
		return "a number"
	}
	return value
}

// describeType says what JSON value decodes into a value of type t. Every
// float in an archive may be null (not measured).
func describeType(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Pointer:
		return describeType(t.Elem())
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number or null"
	case reflect.Slice, reflect.Array:
		return "a list of " + pluralType(t.Elem())
	case reflect.Map:
		return "an object whose values are " + pluralType(t.Elem())
	}
	return "an object"
}

// pluralType is describeType for several values of type t.
func pluralType(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Pointer:
		return pluralType(t.Elem())
	case reflect.String:
		return "strings"
	case reflect.Bool:
		return "booleans"
	case reflect.Float32, reflect.Float64:
		return "numbers or nulls"
	case reflect.Slice, reflect.Array:
		return "lists"
	case reflect.Map, reflect.Struct:
		return "objects"
	}
	return "whole numbers"
}

// lineCol says where offset is in data: "line 3, column 14", both from 1,
// the column in characters.
func lineCol(data []byte, offset int64) string {
	offset = max(0, min(offset, int64(len(data))))
	before := data[:offset]
	line := bytes.Count(before, []byte("\n")) + 1
	col := utf8.RuneCount(before[bytes.LastIndexByte(before, '\n')+1:]) + 1
	return fmt.Sprintf("line %d, column %d", line, col)
}

// valueEndingAt returns the path and start of the value whose first token
// (the value itself, or a list's or object's opening bracket) ends at
// offset, as a *json.UnmarshalTypeError's Offset points; the whole
// document when there is none.
func valueEndingAt(data []byte, offset int64) (string, int64) {
	path, start := "", skipSpace(data, 0)
	walkJSON(data, func(p string, s, end int64) bool {
		if end == offset {
			path, start = p, s
			return false
		}
		return end < offset
	})
	return path, start
}

// valueStart returns where the value at path starts in data, or the
// nearest enclosing value that is there when it is not.
func valueStart(data []byte, path string) int64 {
	start := skipSpace(data, 0)
	walkJSON(data, func(p string, s, _ int64) bool {
		if p == path || strings.HasPrefix(path, p+".") || strings.HasPrefix(path, p+"[") {
			start = s
		}
		return p != path
	})
	return start
}

// walkJSON calls visit with the path, start and first token's end of each
// value of data in document order, until visit returns false or the data
// ends or is not JSON.
func walkJSON(data []byte, visit func(path string, start, end int64) bool) {
	type frame struct {
		object  bool
		path    string
		n       int    // elements seen, in a list
		key     string // the member's key, in an object
		wantKey bool
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var stack []*frame
	for {
		start := skipAny(data, dec.InputOffset(), " \t\r\n,:")
		tok, err := dec.Token()
		if err != nil {
			return
		}
		d, delim := tok.(json.Delim)
		if delim && (d == '}' || d == ']') {
			stack = stack[:len(stack)-1]
			continue
		}
		path := ""
		if len(stack) > 0 {
			top := stack[len(stack)-1]
			switch {
			case top.object && top.wantKey:
				top.key, top.wantKey = tok.(string), false
				continue
			case top.object:
				path, top.wantKey = pathKey(top.path, top.key), true
			default:
				path = pathIndex(top.path, top.n)
				top.n++
			}
		}
		if !visit(path, start, dec.InputOffset()) {
			return
		}
		if delim {
			stack = append(stack, &frame{object: d == '{', path: path, wantKey: d == '{'})
		}
	}
}

// skipSpace returns the offset of the first byte at or after offset that is
// not JSON white space.
func skipSpace(data []byte, offset int64) int64 {
	return skipAny(data, offset, " \t\r\n")
}

// skipAny returns the offset of the first byte at or after offset that is
// not one of the bytes in set.
func skipAny(data []byte, offset int64, set string) int64 {
	for offset < int64(len(data)) && strings.IndexByte(set, data[offset]) >= 0 {
		offset++
	}
	return offset
}
