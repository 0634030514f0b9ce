package eval

import (
	"context"
	"fmt"
	"math/rand"
	"strconv"
	"strings"
	"testing"
)

// TestJSONPathsAgainstPostgreSQL navigates random documents with random
// strict paths of members and indexes, in JSON_VALUE and JSON_EXISTS, and
// in PostgreSQL's jsonpath (strict mode, errors silenced), which reads such
// paths as Jayway's strict mode does: a missing member, an index out of
// range, a member of a non-object or an index of a non-array is an error.
// JSON_VALUE must give PostgreSQL's scalar (NULL where it finds nothing, a
// JSON null, an array or an object), JSON_EXISTS … UNKNOWN ON ERROR NULL
// where PostgreSQL finds nothing, FALSE for a JSON null, else TRUE. The
// documents hold integers, strings and booleans, whose text both print
// alike.
func TestJSONPathsAgainstPostgreSQL(t *testing.T) {
	pg := pgConn(t)
	r := rand.New(rand.NewSource(11))
	var gen func(depth int) string
	gen = func(depth int) string {
		switch k := r.Intn(8); {
		case depth < 3 && k < 3:
			n := r.Intn(4)
			parts := make([]string, 0, n)
			for i := 0; i < n; i++ {
				parts = append(parts, fmt.Sprintf(`"%c": %s`, 'a'+rune(i), gen(depth+1)))
			}
			return "{" + strings.Join(parts, ", ") + "}"
		case depth < 3 && k < 5:
			n := r.Intn(4)
			parts := make([]string, n)
			for i := range parts {
				parts[i] = gen(depth + 1)
			}
			return "[" + strings.Join(parts, ", ") + "]"
		case k == 5:
			return []string{"true", "false", "null"}[r.Intn(3)]
		case k == 6:
			return strconv.Itoa(r.Intn(200) - 100)
		default:
			return `"` + []string{"x", "hello world", "é", ""}[r.Intn(4)] + `"`
		}
	}
	type tc struct{ doc, path string }
	var cases []tc
	for i := 0; i < 2500; i++ {
		doc := gen(0)
		var path strings.Builder
		path.WriteString("$")
		for n := r.Intn(4); n > 0; n-- {
			if r.Intn(2) == 0 {
				fmt.Fprintf(&path, ".%c", 'a'+rune(r.Intn(3)))
			} else {
				fmt.Fprintf(&path, "[%d]", r.Intn(3))
			}
		}
		cases = append(cases, tc{doc, path.String()})
	}
	q := func(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
	var rows []string
	for i, c := range cases {
		rows = append(rows, fmt.Sprintf("(%d, %s::jsonb, %s::jsonpath)", i, q(c.doc), q("strict "+c.path)))
	}
	sql := `SELECT id, CASE WHEN jsonb_typeof(v) IN ('object', 'array', 'null') THEN NULL ELSE v #>> '{}' END,
	  CASE WHEN v IS NULL THEN NULL ELSE jsonb_typeof(v) <> 'null' END
	FROM (SELECT id, jsonb_path_query_first(doc, path, '{}', true) AS v FROM (VALUES ` + strings.Join(rows, ", ") + `) AS t (id, doc, path)) AS s ORDER BY id`
	res, err := pg.Query(context.Background(), sql)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	n, found, nulls := 0, 0, 0
	for res.Next() {
		var id int
		var val *string
		var exists *bool
		if err := res.Scan(&id, &val, &exists); err != nil {
			t.Fatal(err)
		}
		n++
		c := cases[id]
		wantV, wantE := "NULL", "NULL"
		if val != nil {
			wantV = *val
			found++
		}
		if exists != nil && !*exists {
			nulls++
		}
		if exists != nil {
			wantE = strings.ToUpper(strconv.FormatBool(*exists))
		}
		for src, want := range map[string]string{
			fmt.Sprintf("JSON_VALUE(%s, %s)", q(c.doc), q(c.path)):                   wantV,
			fmt.Sprintf("JSON_EXISTS(%s, %s UNKNOWN ON ERROR)", q(c.doc), q(c.path)): wantE,
		} {
			f, err := CompileWith(bind(t, src), testOptions())
			if err != nil {
				t.Fatalf("%s: %v", src, err)
			}
			v, err := f(testRow())
			if err != nil {
				t.Fatalf("%s: %v", src, err)
			}
			if got := FormatValue(v, bind(t, src).Type()); got != want {
				t.Errorf("%s = %s, PostgreSQL (strict jsonpath) %s", src, got, want)
			}
		}
	}
	if err := res.Err(); err != nil {
		t.Fatal(err)
	}
	if n != len(cases) {
		t.Fatalf("PostgreSQL answered %d of %d cases", n, len(cases))
	}
	// The random cases must reach scalars and JSON nulls, not only errors.
	if found < 60 || nulls < 5 {
		t.Fatalf("only %d scalars and %d JSON nulls found in %d cases: make the documents and paths meet more often", found, nulls, n)
	}
}
