package eval

import (
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/types"
)

// TestStrToMap pins STR_TO_MAP to Flink's SqlFunctionUtils.strToMap, whose
// answers follow from Java's String.split (worked out by hand here): pairs
// split by the list delimiter with trailing empty pairs dropped, each pair
// at its first key-value delimiter, a pair without one a key of NULL, the
// later of two equal keys kept.
func TestStrToMap(t *testing.T) {
	runCases(t, []evalCase{
		{"STR_TO_MAP('a=1,b=2')", "{a=1, b=2}"},
		{"STR_TO_MAP('')", "{}"},
		{"STR_TO_MAP(ns)", "NULL"},
		{"STR_TO_MAP('a=1', ns, '=')", "NULL"},
		{"STR_TO_MAP('a,b=,=c,a=3,,')", "{=c, a=3, b=}"},
		{"STR_TO_MAP(',a=1')", "{=NULL, a=1}"},
		{"STR_TO_MAP('k:v;x:y:z', ';', ':')", "{k=v, x=y:z}"},
		{"STR_TO_MAP('a=1|b=2', '\\|', '=')", "{a=1, b=2}"},
		{"STR_TO_MAP('a -> 1 ;; b -> 2', ' *;+ *', ' *-> *')", "{a=1, b=2}"},
		{"STR_TO_MAP('a=1,b=2')['b']", "2"},
		{"STR_TO_MAP('a=1,b=2')['c']", "NULL"},
		{"CARDINALITY(STR_TO_MAP(s, ' ', 'l'))", "2"},
		{"STR_TO_MAP('abc', '', '=')", "{a=NULL, b=NULL, c=NULL}"},
	})
}

// TestStrToMapRefuses: a delimiter RE2 reads unlike Java is refused when the
// query is compiled; the wrong number of arguments when it is bound.
func TestStrToMapRefuses(t *testing.T) {
	for _, src := range []string{"STR_TO_MAP(s, '(?=,)', '=')", "STR_TO_MAP(s, ',*', '=')"} {
		if _, err := CompileWith(bind(t, src), testOptions()); err == nil {
			t.Errorf("%s compiles; want it refused", src)
		}
	}
}

// TestStrToMapMatchesModel compares STR_TO_MAP over random text with
// one-character literal delimiters against a model written from Java's
// documented split rules with plain string functions.
func TestStrToMapMatchesModel(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	alphabet := []byte("ab,=;:")
	model := func(text, list, kv string) map[string]*string {
		m := map[string]*string{}
		if text == "" {
			return m
		}
		pairs := strings.Split(text, list)
		for len(pairs) > 0 && pairs[len(pairs)-1] == "" {
			pairs = pairs[:len(pairs)-1]
		}
		for _, p := range pairs {
			k, v, ok := strings.Cut(p, kv)
			if !ok {
				m[p] = nil
				continue
			}
			m[k] = &v
		}
		return m
	}
	for i := 0; i < 3000; i++ {
		b := make([]byte, r.Intn(12))
		for j := range b {
			b[j] = alphabet[r.Intn(len(alphabet))]
		}
		text := string(b)
		list, kv := ",", "="
		if r.Intn(2) == 0 {
			list, kv = ";", ":"
		}
		want := showMap(model(text, list, kv))
		src := "STR_TO_MAP('" + text + "', '" + list + "', '" + kv + "')"
		f, err := CompileWith(bind(t, src), testOptions())
		if err != nil {
			t.Fatal(err)
		}
		v, err := f(testRow())
		if err != nil {
			t.Fatal(err)
		}
		if got := FormatValue(v, types.MapOf(types.StringType(), types.StringType())); got != want {
			t.Fatalf("%s = %s, model %s", src, got, want)
		}
	}
}

// showMap prints m as FormatValue prints a MAP: keys in order.
func showMap(m map[string]*string) string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	parts := make([]string, len(ks))
	for i, k := range ks {
		parts[i] = k + "=NULL"
		if m[k] != nil {
			parts[i] = k + "=" + *m[k]
		}
	}
	return "{" + strings.Join(parts, ", ") + "}"
}
