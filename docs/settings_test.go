package docs

import (
	"os"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/settings"
)

// TestEverySettingDocumented: every key SET takes has a row in sql.md's
// table of settings, and every row names a key SET takes.
func TestEverySettingDocumented(t *testing.T) {
	b, err := os.ReadFile("sql.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	start := strings.Index(text, "### SET and RESET")
	end := strings.Index(text[start+1:], "\n### ")
	if start < 0 || end < 0 {
		t.Fatal("sql.md has no section SET and RESET")
	}
	section := text[start : start+1+end]
	documented := map[string]bool{}
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cell := strings.SplitN(line, "|", 3)[1]
		for _, part := range strings.Split(cell, ",") {
			k := strings.Trim(strings.TrimSpace(part), "`")
			documented[k] = true
			if !settings.Known(k) {
				t.Errorf("sql.md documents setting %q, which SET does not take", k)
			}
		}
	}
	for _, k := range settings.Names() {
		if !documented[k] {
			t.Errorf("setting %q has no row in sql.md's SET and RESET table", k)
		}
	}
}
