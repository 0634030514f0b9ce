package expr

import (
	"math/rand/v2"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"testing"

	"github.com/streamsql/streamsql/types"
)

// TestFormatMillisRoundTrips reads EXPLAIN's interval text back (each
// number times its unit) and checks it is the value, with units in
// decreasing order, each at most once and each below the next larger.
func TestFormatMillisRoundTrips(t *testing.T) {
	unit := map[string]int64{"d": 86_400_000, "h": 3_600_000, "min": 60_000, "s": 1000, "ms": 1}
	part := regexp.MustCompile(`(\d+)(d|h|min|ms|s)`)
	rng := rand.New(rand.NewPCG(7, 7))
	cases := []int64{0, 1, 999, 1000, 60_000, 3_600_000, 86_400_000, 90_061_001, -5000, 1<<40 + 17}
	for range 5000 {
		cases = append(cases, rng.Int64N(1<<42)-1<<41)
	}
	for _, ms := range cases {
		s := FormatMillis(ms)
		if ms == 0 {
			if s != "0s" {
				t.Fatalf("FormatMillis(0) = %q", s)
			}
			continue
		}
		body, sign := s, int64(1)
		if body[0] == '-' {
			body, sign = body[1:], -1
		}
		var sum, last int64 = 0, 1 << 62
		rest := part.ReplaceAllStringFunc(body, func(p string) string {
			m := part.FindStringSubmatch(p)
			n, _ := strconv.ParseInt(m[1], 10, 64)
			u := unit[m[2]]
			if u >= last {
				t.Fatalf("FormatMillis(%d) = %q: units not in decreasing order", ms, s)
			}
			if m[2] != "d" && n*u >= last {
				t.Fatalf("FormatMillis(%d) = %q: %s not below the next unit", ms, s, p)
			}
			if n == 0 {
				t.Fatalf("FormatMillis(%d) = %q: a zero part", ms, s)
			}
			last = u
			sum += n * u
			return ""
		})
		if rest != "" || sign*sum != ms {
			t.Fatalf("FormatMillis(%d) = %q reads back as %d (left %q)", ms, s, sign*sum, rest)
		}
	}
}

func col(i int) *Column { return &Column{Index: i, T: types.New(types.Int)} }

func call(fn string, args ...Expr) *Call {
	return &Call{Fn: fn, Args: args, T: types.New(types.Boolean)}
}

func TestConjunctsAndAnd(t *testing.T) {
	a, b, c := call("=", col(0), col(1)), call("<", col(2), col(3)), call("IS_NULL", col(4))
	if And() != nil || And(nil, nil) != nil {
		t.Fatal("And of nothing is not nil")
	}
	if And(nil, a) != a {
		t.Fatal("And of one conjunct is not that conjunct")
	}
	e := And(a, nil, b, c)
	got := Conjuncts(e)
	if len(got) != 3 || got[0] != a || got[1] != b || got[2] != c {
		t.Fatalf("Conjuncts(And(a, b, c)) = %v", got)
	}
	if Conjuncts(nil) != nil {
		t.Fatal("Conjuncts(nil) is not empty")
	}
	// A nested AND on the right is split too.
	if n := len(Conjuncts(call("AND", a, call("AND", b, c)))); n != 3 {
		t.Fatalf("a AND (b AND c) splits into %d, want 3", n)
	}
	// OR is not split.
	if n := len(Conjuncts(call("OR", a, b))); n != 1 {
		t.Fatalf("a OR b splits into %d, want 1", n)
	}
}

func TestColumnsAndRemap(t *testing.T) {
	e := call("AND", call("=", col(3), col(1)), call("<", col(3), col(0)))
	if got := Columns(e); !slices.Equal(got, []int{3, 1, 0}) {
		t.Fatalf("Columns = %v, want first uses in order [3 1 0]", got)
	}
	r := Remap(e, func(i int) int { return i + 10 })
	if got := Columns(r); !slices.Equal(got, []int{13, 11, 10}) {
		t.Fatalf("Columns(Remap(+10)) = %v, want [13 11 10]", got)
	}
	if got := Columns(e); !slices.Equal(got, []int{3, 1, 0}) {
		t.Fatalf("Remap changed its input: Columns = %v", got)
	}
	if got := Format(r, func(c *Column) string { return "c" + strconv.Itoa(c.Index) }); got != "((c13 = c11) AND (c13 < c10))" {
		t.Fatalf("Format = %s", got)
	}
	if got := FormatBare(call("<", col(1), col(2)), func(c *Column) string { return "c" + strconv.Itoa(c.Index) }); got != "c1 < c2" {
		t.Fatalf("FormatBare = %s", got)
	}
}

// Aggregate result types as docs/sql.md and docs/runtime.md state them
// (Flink's, except SUM of an integer, which is BIGINT there).
func TestAggregateTypes(t *testing.T) {
	for _, tc := range []struct {
		fn   string
		arg  types.T
		want string
	}{
		{"SUM", types.New(types.Int), "BIGINT"},
		{"SUM", types.New(types.SmallInt), "BIGINT"},
		{"SUM", types.DecimalOf(10, 2), "DECIMAL(38, 2)"},
		{"SUM", types.New(types.Double), "DOUBLE"},
		{"COUNT", types.New(types.Varchar), "BIGINT"},
		{"MIN", types.New(types.Varchar), types.New(types.Varchar).String()}, // the argument's type
		{"AVG", types.DecimalOf(10, 2), "DECIMAL(38, 6)"},
	} {
		got, msg := AggregateType(tc.fn, []Expr{&Column{T: tc.arg}})
		if msg != "" {
			t.Fatalf("%s(%s): %s", tc.fn, tc.arg, msg)
		}
		if s := got.WithNullable(false).String(); s != tc.want && s != tc.want+" NOT NULL" {
			t.Errorf("%s(%s) = %s, want %s", tc.fn, tc.arg, got, tc.want)
		}
	}
	if _, msg := AggregateType("MEDIANX", nil); msg == "" {
		t.Fatal("an unknown aggregate has a type")
	}
	names := FunctionNames()
	if !sort.StringsAreSorted(names) {
		t.Fatal("FunctionNames is not sorted")
	}
	for _, n := range []string{"SUM", "COUNT", "TIMESTAMPADD", "REGEXP_REPLACE", "DATE_FORMAT"} {
		if !slices.Contains(names, n) {
			t.Errorf("FunctionNames lacks %s", n)
		}
	}
	if !IsAggregate("SUM") || IsAggregate("UPPER") {
		t.Fatal("IsAggregate: SUM is one, UPPER is not")
	}
}
