package plot

import (
	"path/filepath"
	"strconv"
	"strings"
)

// part is one piece of a series' name: what it tells (key: "file", a
// table's name, a label column's name) and the text it shows.
type part struct{ key, text string }

// filePart is the part naming an archive's file, benchPart the one
// naming a size table's test or benchmark: when every series shares
// them, the chart's title ends with them.
const (
	filePart  = "file"
	benchPart = "bench"
)

// labelPart returns the part of a label column's value: the value alone
// when it says what it is ("write", "PingPong np=2"), else the column's
// name before it ("iter 0", "#bytes 4096").
func labelPart(column, value string) part {
	if _, err := strconv.ParseFloat(value, 64); err == nil || value == "" {
		return part{column, column + " " + value}
	}
	return part{column, value}
}

// nameSeries names c's series from their parts, parts[i] for series i:
// the parts that every series with them has alike are left out, so that a legend
// says what tells its lines apart and not "ior1.json ior series 0 write
// 0"; nor does it repeat what the file's name says ("pingpong.json",
// not "pingpong.json pingpong"). When the file or the benchmark is one
// of the parts all series share, the title ends with it; a series left
// with no part keeps its file.
func nameSeries(c *Chart, parts [][]part) {
	same := map[string]bool{} // keys whose series, all that have them, share one text
	for _, ps := range parts {
		for _, p := range ps {
			if _, ok := same[p.key]; !ok {
				same[p.key] = true
			}
		}
	}
	for key := range same {
		seen := ""
		for _, ps := range parts {
			if t, ok := lookup(ps, key); ok && seen == "" {
				seen = t
			} else if ok && t != seen {
				same[key] = false
				break
			}
		}
	}
	for i, ps := range parts {
		var words []string
		file, showFile := lookup(ps, filePart)
		showFile = showFile && !same[filePart]
		for _, p := range ps {
			if !same[p.key] && (p.key == filePart || !showFile || !hasWord(file, p.text)) {
				words = append(words, p.text)
			}
		}
		if len(words) == 0 {
			words = []string{textOf(ps, filePart)}
		}
		c.Series[i].Name = strings.Join(words, " ")
	}
	if len(parts) < 2 {
		return
	}
	var shared []string
	for _, p := range parts[0] {
		if same[p.key] && (p.key == filePart || p.key == benchPart) {
			shared = append(shared, p.text)
		}
	}
	if len(shared) > 0 {
		c.Title += ": " + strings.Join(shared, " ")
	}
}

// lookup returns the text of ps's part key.
func lookup(ps []part, key string) (string, bool) {
	for _, p := range ps {
		if p.key == key {
			return p.text, true
		}
	}
	return "", false
}

func textOf(ps []part, key string) string {
	t, _ := lookup(ps, key)
	return t
}

// fileNames returns the names of files as a legend shows them: without
// the directories they all share ("runs/a.json" and "runs/b.json" are
// a.json and b.json, "x/run.json" and "y/run.json" stay so), and one
// file alone by its base name.
func fileNames(files []string) []string {
	split := make([][]string, len(files))
	for i, f := range files {
		split[i] = strings.Split(filepath.ToSlash(filepath.Clean(f)), "/")
	}
	common := 0
	for ; ; common++ {
		ok := true
		for _, s := range split {
			// Keep each file's last element, and stop at the first that
			// differs.
			if common >= len(s)-1 || s[common] != split[0][common] {
				ok = false
				break
			}
		}
		if !ok {
			break
		}
	}
	out := make([]string, len(files))
	for i, s := range split {
		out[i] = strings.Join(s[common:], "/")
	}
	return out
}

// hasWord reports whether s holds word with no letter or digit next to
// it: "rma_bw" is in "runs/rma_bw.json" and in "rma_bw-2.json", "bw" is
// not in "rma_bw.json".
func hasWord(s, word string) bool {
	inWord := func(r byte) bool {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_'
	}
	for i := 0; word != ""; {
		k := strings.Index(s[i:], word)
		if k < 0 {
			return false
		}
		at, end := i+k, i+k+len(word)
		if (at == 0 || !inWord(s[at-1])) && (end == len(s) || !inWord(s[end])) {
			return true
		}
		i = at + 1
	}
	return false
}
