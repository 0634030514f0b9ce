package docs

import (
	"os"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/connectors"
	_ "github.com/streamsql/streamsql/connectors/blackhole"
	_ "github.com/streamsql/streamsql/connectors/datagen"
	_ "github.com/streamsql/streamsql/connectors/faker"
	_ "github.com/streamsql/streamsql/connectors/filesystem"
	_ "github.com/streamsql/streamsql/connectors/jdbc"
	_ "github.com/streamsql/streamsql/connectors/kafka"
	_ "github.com/streamsql/streamsql/connectors/nexmark"
	_ "github.com/streamsql/streamsql/connectors/print"
)

// TestEveryOptionDocumented: every option of every connector and format is
// named in connectors.md or runtime.md (as `key`; `fields.#.kind` as
// `fields.<col>.kind` or, after the first of its family, as `.kind`; a
// prefix family as `properties.*`).
func TestEveryOptionDocumented(t *testing.T) {
	var doc strings.Builder
	for _, f := range []string{"connectors.md", "runtime.md"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		doc.Write(b)
	}
	text := doc.String()
	documented := func(o connectors.OptionSpec) bool {
		switch {
		case o.Prefix:
			return strings.Contains(text, "`"+o.Key+"*`")
		case strings.Contains(o.Key, "#"):
			_, suffix, _ := strings.Cut(o.Key, "#")
			return strings.Contains(text, "`"+strings.Replace(o.Key, "#", "<col>", 1)+"`") || strings.Contains(text, "`"+suffix+"`")
		}
		return strings.Contains(text, "`"+o.Key+"`") || strings.Contains(text, "`'"+o.Key+"'")
	}
	names := connectors.Names()
	if len(names) < 6 {
		t.Fatalf("only %d connectors registered: %v", len(names), names)
	}
	for _, n := range names {
		s, _ := connectors.Lookup(n)
		for _, o := range s.Options {
			if !documented(o) {
				t.Errorf("connector %s: option '%s' is not in docs/connectors.md or docs/runtime.md", n, o.Key)
			}
		}
	}
	for _, n := range connectors.FormatNames() {
		f, _ := connectors.LookupFormat(n)
		for _, o := range f.Options {
			if !documented(o) {
				t.Errorf("format %s: option '%s' is not in docs/connectors.md or docs/runtime.md", n, o.Key)
			}
		}
	}
}
