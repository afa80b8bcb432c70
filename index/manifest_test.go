package index

import (
	"bytes"
	"encoding/binary"
	"encoding/gob"
	"hash/crc32"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/vaultd/vaultd/vault"
)

func sampleManifest() *manifest {
	m := newManifest()
	m.Files["1_Projekte/Garten.md"] = fileEntry{Size: 1234, MTime: 1764590000123456789, Note: true,
		Version: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
		Aliases: []string{"Gartenplan", "Beete"}, Titles: []string{"Garten"}, Sections: 4, SectionDocs: 3}
	m.Files["Bilder/plan.png"] = fileEntry{Size: 99, MTime: -1}
	m.Files["ä/ü ß.md"] = fileEntry{Note: true, Version: "x", Titles: []string{""}}
	m.Folders = map[string]vault.FolderListing{
		"1_Projekte":  {Ino: 4242, MTime: 1764590000123456789, CTime: 1764590000123456790, Files: []string{"Garten.md"}},
		"Bilder/leer": {Ino: 7, MTime: -2},
	}
	return m
}

// TestManifest_RoundTrip: what is saved is what is loaded, in the binary
// form and from a gob manifest saved before it.
func TestManifest_RoundTrip(t *testing.T) {
	want := sampleManifest()
	dir := t.TempDir()
	name := filepath.Join(dir, "m")
	if err := os.WriteFile(name, encodeManifest(nil, want), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := loadManifest(name)
	if err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(name); got.file == nil || !os.SameFile(got.file, fi) {
		t.Errorf("the manifest does not know the file it was read from: %v", got.file)
	}
	got.file = nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("binary round trip:\n got %+v\nwant %+v", got, want)
	}
	var g bytes.Buffer
	if err := gob.NewEncoder(&g).Encode(want); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, g.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err = loadManifest(name); err != nil || !got.gob || !reflect.DeepEqual(got.Files, want.Files) || got.Version != want.Version {
		t.Errorf("gob manifest: %+v, %v", got, err)
	}
	if !bytes.Equal(encodeManifest(nil, want), encodeManifest(nil, got)) {
		t.Error("the same manifest encodes to other bytes")
	}
}

// TestManifest_ReadsTheFormerForm: a manifest saved in the form before the
// folders' listings is read, its files all there and no listing with them
// (the next walk reads every folder and keeps theirs).
func TestManifest_ReadsTheFormerForm(t *testing.T) {
	m := sampleManifest()
	m.Folders = nil
	b := encodeManifest(nil, m)
	// The former form: its magic, no count of folders after the files.
	old := append([]byte(manifestMagic3), b[len(manifestMagic):len(b)-5]...)
	old = binary.BigEndian.AppendUint32(old, crc32.ChecksumIEEE(old))
	got, err := decodeManifest(old)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Files, m.Files) || got.Folders != nil {
		t.Errorf("the former form read as %+v", got)
	}
}

// TestManifest_Damaged: a truncated or altered manifest is refused (the
// index is then rebuilt), never read as fewer or other files.
func TestManifest_Damaged(t *testing.T) {
	b := encodeManifest(nil, sampleManifest())
	for _, bad := range [][]byte{b[:len(b)-1], b[:len(manifestMagic)+2], append(append([]byte{}, b[:40]...), b[41:]...)} {
		if _, err := decodeManifest(bad); err == nil {
			t.Errorf("a damaged manifest of %d bytes was read", len(bad))
		}
	}
	flipped := append([]byte{}, b...)
	flipped[len(manifestMagic)+10] ^= 0x40
	if _, err := decodeManifest(flipped); err == nil {
		t.Error("a manifest with a flipped bit was read")
	}
}

func FuzzManifestDecode(f *testing.F) {
	f.Add(encodeManifest(nil, sampleManifest()))
	f.Add([]byte(manifestMagic))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := decodeManifest(b)
		if err != nil {
			return
		}
		if again, err := decodeManifest(encodeManifest(nil, m)); err != nil || !reflect.DeepEqual(again, m) {
			t.Fatalf("decoded, re-encoded and decoded differs: %v", err)
		}
	})
}
