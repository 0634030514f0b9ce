package parser

import (
	"os"
	"testing"
)

func parseFile(t *testing.T, path string) *File {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return ParseString(path, string(b))
}
