package report

import (
	"bytes"
	"testing"
)

// FuzzRender checks, for whatever ReadJSON accepts, every view of its
// benchmark: it never panics, writes nothing when it fails, and renders
// the result read back from its own archive byte for byte as it renders
// the result itself, which is what `hpcbench report` relies on.
func FuzzRender(f *testing.F) {
	for _, r := range viewFixtures() {
		var b bytes.Buffer
		if err := WriteJSON(&b, r); err != nil {
			f.Fatal(err)
		}
		f.Add(b.Bytes())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := ReadJSON(bytes.NewReader(data))
		if err != nil {
			return
		}
		var archive bytes.Buffer
		if err := WriteJSON(&archive, r); err != nil {
			t.Fatalf("WriteJSON of an accepted result: %v", err)
		}
		back, err := ReadJSON(&archive)
		if err != nil {
			t.Fatalf("ReadJSON of WriteJSON's output: %v", err)
		}
		for _, v := range Views(r.Run.Benchmark) {
			var first, again bytes.Buffer
			err := Render(&first, r, v.Name)
			if err != nil {
				if first.Len() > 0 {
					t.Fatalf("view %s failed (%v) after writing %q", v.Name, err, first.Bytes())
				}
				continue
			}
			if err := Render(&again, back, v.Name); err != nil {
				t.Fatalf("view %s of the archive: %v", v.Name, err)
			}
			if !bytes.Equal(first.Bytes(), again.Bytes()) {
				t.Fatalf("view %s of the archive differs:\n%s\nfrom:\n%s", v.Name, again.Bytes(), first.Bytes())
			}
		}
	})
}
