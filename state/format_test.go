package state

import (
	"strings"
	"testing"

	badger "github.com/dgraph-io/badger/v4"
)

// A state directory records its layout; one written without a layout
// stamp (an older streamsql) or in another layout is refused, not misread.
func TestStateDirLayout(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.Table("t", TableOptions{}).Append([]byte("k"), Record{Expiry: 5})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s, err = Open(dir, Options{}); err != nil {
		t.Fatalf("reopening a directory of this layout: %v", err)
	}
	if n := s.Table("t", TableOptions{}).Len(); n != 1 {
		t.Fatalf("reopened Len %d", n)
	}
	s.Close()

	old := t.TempDir()
	db, err := badger.Open(badger.DefaultOptions(old).WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(txn *badger.Txn) error { return txn.Set([]byte("d\x01tk"), []byte{1, 0, 0, 0}) }); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := Open(old, Options{}); err == nil || !strings.Contains(err.Error(), "layout 1") {
		t.Fatalf("opening an unstamped directory with data: %v, want a layout error", err)
	}
}
