package faker

import (
	"context"
	"errors"
	"io"
	"net/netip"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/types"
)

type fixedClock struct{ t time.Time }

func (c *fixedClock) Now() time.Time { return c.t }
func (c *fixedClock) Sleep(_ context.Context, d time.Duration) error {
	c.t = c.t.Add(d)
	return nil
}

// opts is a map of options as connector.Options.
type opts map[string]string

func (o opts) Get(k string) string                   { return o[k] }
func (o opts) Has(k string) bool                     { _, ok := o[k]; return ok }
func (o opts) Prefixed(string) map[string]string     { return nil }
func (o opts) Duration(string) (time.Duration, bool) { return 0, false }
func (o opts) Keys() []string {
	var out []string
	for k := range o {
		out = append(out, k)
	}
	return out
}

var now = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

func newSource(t *testing.T, cols []connector.Column, o opts) *Source {
	t.Helper()
	s, err := NewSource(connector.Spec{Table: "t", Schema: cols, Options: o}, &fixedClock{t: now})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	return s
}

func readAll(t *testing.T, s *Source) []row.Row {
	t.Helper()
	var out []row.Row
	for {
		_, b, err := s.Read(context.Background())
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b...)
	}
}

var testCols = []connector.Column{
	{Name: "ip", Type: types.StringType()},
	{Name: "n", Type: types.New(types.Int)},
	{Name: "ts", Type: types.TimestampOf(3)},
	{Name: "method", Type: types.StringType()},
	{Name: "code", Type: types.New(types.Int)},
	{Name: "price", Type: types.DecimalOf(10, 2)},
	{Name: "who", Type: types.StringType()},
	{Name: "plan", Type: types.StringType()},
	{Name: "d", Type: types.New(types.Date)},
}

func testOpts() opts {
	return opts{
		"seed": "42", "number-of-rows": "500", "rows-per-second": "10000",
		"fields.ip.expression":     "#{Internet.publicIpV4Address}",
		"fields.n.expression":      "#{number.numberBetween '10','20'}",
		"fields.ts.expression":     "#{date.past '15','5','SECONDS'}",
		"fields.method.expression": "#{regexify '(GET|POST|PUT|PATCH){1}'} /x",
		"fields.code.expression":   "#{regexify '(200|201|404){1}'}",
		"fields.price.expression":  "#{Number.randomDouble '2','1','150'}",
		"fields.who.expression":    "#{Name.firstName} #{Name.last_name}",
		"fields.who.null-rate":     "0.25",
		"fields.plan.expression":   "#{Options.option 'basic','premium','it''s'}",
		"fields.d.expression":      "#{date.future '3','DAYS'}",
	}
}

// TestValuesKeepTheirPromises: every value is in the range or set its
// expression promises, and the null rate is roughly kept.
func TestValuesKeepTheirPromises(t *testing.T) {
	rows := readAll(t, newSource(t, testCols, testOpts()))
	if len(rows) != 500 {
		t.Fatalf("%d rows, want 500", len(rows))
	}
	method := regexp.MustCompile(`^(GET|POST|PUT|PATCH) /x$`)
	nulls := 0
	seen := map[string]bool{}
	for _, r := range rows {
		v := r.Vals
		ip, err := netip.ParseAddr(v[0].Str())
		if err != nil || !ip.Is4() || ip.IsPrivate() || ip.IsLoopback() || ip.IsMulticast() || ip.IsLinkLocalUnicast() || ip.IsUnspecified() {
			t.Errorf("publicIpV4Address gave %q", v[0].Str())
		}
		if n := v[1].Int(); n < 10 || n >= 20 {
			t.Errorf("numberBetween 10, 20 gave %d", n)
		}
		if d := now.UnixMilli() - v[2].Int(); d <= 5000 || d >= 15000 {
			t.Errorf("date.past 15, 5 SECONDS gave %d ms ago", d)
		}
		if !method.MatchString(v[3].Str()) {
			t.Errorf("method %q", v[3].Str())
		}
		if c := v[4].Int(); c != 200 && c != 201 && c != 404 {
			t.Errorf("code %d", c)
		}
		if p := v[5].Int(); p < 100 || p > 15000 {
			t.Errorf("price %d hundredths", p)
		}
		if v[6].IsNull() {
			nulls++
		} else if f := strings.Fields(v[6].Str()); len(f) < 2 {
			t.Errorf("who %q", v[6].Str())
		}
		seen[v[7].Str()] = true
		today := now.UnixMilli() / 86_400_000
		if d := v[8].Int(); d < today || d > today+3 {
			t.Errorf("date.future 3 DAYS gave day %d, today is %d", d, today)
		}
	}
	if nulls < 75 || nulls > 175 {
		t.Errorf("%d NULLs of 500 at a null rate of 0.25", nulls)
	}
	if len(seen) != 3 || !seen["it's"] {
		t.Errorf("Options.option gave %v", seen)
	}
}

// TestSeedAndResume: the same seed gives the same rows; a source resumed
// from the position after some rows makes the rows the first made next.
func TestSeedAndResume(t *testing.T) {
	all := readAll(t, newSource(t, testCols, testOpts()))
	again := readAll(t, newSource(t, testCols, testOpts()))
	for i := range all {
		if !sameRow(all[i], again[i]) {
			t.Fatalf("row %d differs between runs with one seed: %v, %v", i, all[i].Vals, again[i].Vals)
		}
	}
	o := testOpts()
	o["rows-per-second"] = "1000" // batches of 10
	s := newSource(t, testCols, o)
	var first []row.Row
	for range 3 {
		_, b, err := s.Read(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		first = append(first, b...)
	}
	pos, err := s.Position()
	if err != nil {
		t.Fatal(err)
	}
	o2 := testOpts()
	delete(o2, "seed") // the position carries it
	r := newSource(t, testCols, o2)
	if err := r.Seek(pos); err != nil {
		t.Fatal(err)
	}
	rest := readAll(t, r)
	got := append(first, rest...)
	if len(got) != len(all) {
		t.Fatalf("%d rows before and after the resume, want %d", len(got), len(all))
	}
	for i := range all {
		if !sameRow(all[i], got[i]) {
			t.Fatalf("row %d after the resume differs: %v, want %v", i, got[i].Vals, all[i].Vals)
		}
	}
	o3 := testOpts()
	o3["seed"] = "43"
	other := readAll(t, newSource(t, testCols, o3))
	if sameRow(other[0], all[0]) && sameRow(other[1], all[1]) {
		t.Error("seeds 42 and 43 gave the same rows")
	}
}

// sameRow compares rows but for the dates (columns ts and d), which follow
// the clock.
func sameRow(a, b row.Row) bool {
	if len(a.Vals) != len(b.Vals) {
		return false
	}
	for i := range a.Vals {
		if i == 2 || i == 8 {
			continue
		}
		if !a.Vals[i].Equal(b.Vals[i]) {
			return false
		}
	}
	return true
}

func TestParseErrors(t *testing.T) {
	for src, want := range map[string]string{
		"#{harry_potter.spell}":               "not a supported faker expression",
		"#{number.numberBetween '1'}":         "takes 2 arguments",
		"#{number.numberBetween 'a','b'}":     "not a whole number",
		"#{date.past '10','WEEKS'}":           "none of MILLISECONDS",
		"#{regexify '[a-z]+'}":                "repeats without bound",
		"#{regexify '(a'}":                    "does not parse",
		"#{Name.firstName":                    "no closing }",
		"#{Options.option a}":                 "single quotes",
		"#{date.past '5','10','SECONDS'}":     "above the maximum",
		"#{Number.randomDouble '2','10','1'}": "below the minimum",
		"":                                    "empty",
	} {
		_, err := Parse(src)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) = %v, want an error containing %q", src, err, want)
		}
	}
	var u *UnknownError
	if _, err := Parse("x #{Space.star} y"); !errors.As(err, &u) || u.Call != "#{Space.star}" {
		t.Errorf("Parse of an unknown provider = %v", err)
	}
}

func TestTextThatDoesNotFitStopsTheJob(t *testing.T) {
	s := newSource(t, []connector.Column{{Name: "n", Type: types.New(types.Int)}},
		opts{"number-of-rows": "5", "rows-per-second": "10", "fields.n.expression": "#{Name.firstName}"})
	_, _, err := s.Read(context.Background())
	if err == nil || !strings.Contains(err.Error(), "column n") || !strings.Contains(err.Error(), "not a INT") {
		t.Errorf("err = %v", err)
	}
}
