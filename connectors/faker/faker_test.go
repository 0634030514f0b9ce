package faker

import (
	"context"
	"errors"
	"io"
	mrand "math/rand/v2"
	"net/netip"
	"regexp"
	"slices"
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
		"#{harry_potter.wand}":                "not a supported faker expression",
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
	if _, err := Parse("x #{Space.warpDrive} y"); !errors.As(err, &u) || u.Call != "#{Space.warpDrive}" {
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

// TestLists: every list provider resolves by its Java method and by its
// YAML key, in the spellings the cookbook uses, and gives an element of
// its list; superhero.name's patterns give prefix, descriptor and suffix
// words.
func TestLists(t *testing.T) {
	lists, err := parseLists(listsText)
	if err != nil {
		t.Fatal(err)
	}
	g := &gen{r: mrand.New(mrand.NewPCG(1, 2))}
	in := func(key, v string) bool { return slices.Contains(lists[key], v) }
	for src, key := range map[string]string{
		"#{harry_potter.character}":                "harry_potter.characters",
		"#{harry_potter.characters}":               "harry_potter.characters",
		"#{harry_potter.spell}":                    "harry_potter.spells",
		"#{harry_potter.spells}":                   "harry_potter.spells",
		"#{HarryPotter.house}":                     "harry_potter.houses",
		"#{RickAndMorty.character}":                "rick_and_morty.characters",
		"#{RickAndMorty.location}":                 "rick_and_morty.locations",
		"#{rick_and_morty.locations}":              "rick_and_morty.locations",
		"#{Space.nasaSpaceCraft}":                  "space.nasa_space_craft",
		"#{space.nasa_space_craft}":                "space.nasa_space_craft",
		"#{Space.star}":                            "space.star",
		"#{Space.agencyAbbreviation}":              "space.agency_abv",
		"#{dr_who.the_doctors}":                    "dr_who.the_doctors",
		"#{DrWho.theDoctor}":                       "dr_who.the_doctors",
		"#{superhero.power}":                       "superhero.power",
		"#{HitchhikersGuideToTheGalaxy.character}": "hitchhikers_guide_to_the_galaxy.characters",
		"#{HitchhikersGuideToTheGalaxy.starship}":  "hitchhikers_guide_to_the_galaxy.starships",
	} {
		e, err := Parse(src)
		if err != nil {
			t.Errorf("Parse(%q): %v", src, err)
			continue
		}
		seen := map[string]bool{}
		for range 200 {
			v := e.eval(g).s
			if !in(key, v) {
				t.Fatalf("%s gave %q, which is not in [%s]", src, v, key)
			}
			seen[v] = true
		}
		if len(seen) < min(3, len(lists[key])) {
			t.Errorf("%s gave only %v in 200 draws", src, seen)
		}
	}
	for method, key := range listMethods {
		if _, err := Parse("#{" + method + "}"); err != nil || len(lists[key]) == 0 {
			t.Errorf("%s -> [%s]: %v, %d values", method, key, err, len(lists[key]))
		}
	}
	e, err := Parse("#{superhero.name}")
	if err != nil {
		t.Fatal(err)
	}
	words := map[string]bool{}
	for _, k := range []string{"superhero.prefix", "superhero.descriptor", "superhero.suffix"} {
		for _, v := range lists[k] {
			for _, w := range strings.Fields(v) {
				words[w] = true
			}
		}
	}
	for range 200 {
		v := e.eval(g).s
		if strings.Contains(v, "#{") || v == "" {
			t.Fatalf("superhero.name gave %q", v)
		}
		for _, w := range strings.Fields(v) {
			if !words[w] {
				t.Fatalf("superhero.name gave %q: %q is no prefix, descriptor or suffix word", v, w)
			}
		}
	}
}

// TestCollections: 'fields.<col>.length' elements in an ARRAY column, each
// generated anew; entries of a MAP from its key and value expressions.
func TestCollections(t *testing.T) {
	lists, _ := parseLists(listsText)
	cols := []connector.Column{
		{Name: "spells", Type: types.ArrayOf(types.StringType())},
		{Name: "ages", Type: types.MapOf(types.StringType(), types.New(types.Int))},
		{Name: "one", Type: types.ArrayOf(types.New(types.Int))},
	}
	rows := readAll(t, newSource(t, cols, opts{
		"seed": "7", "number-of-rows": "50", "rows-per-second": "10000",
		"fields.spells.expression": "#{harry_potter.spell}", "fields.spells.length": "3",
		"fields.ages.key.expression":   "#{regexify '(a|b|c|d|e|f|g|h){1}'}",
		"fields.ages.value.expression": "#{number.numberBetween '10','100'}",
		"fields.ages.length":           "2",
		"fields.one.expression":        "#{number.numberBetween '1','4'}",
	}))
	if len(rows) != 50 {
		t.Fatalf("%d rows", len(rows))
	}
	differ := 0
	for _, r := range rows {
		spells := list(t, r.Vals[0], 1)
		if len(spells) != 3 {
			t.Fatalf("spells %v: %d elements, want 3", spells, len(spells))
		}
		for _, s := range spells {
			if !slices.Contains(lists["harry_potter.spells"], s.Str()) {
				t.Fatalf("spell %q", s.Str())
			}
		}
		if !spells[0].Equal(spells[1]) || !spells[1].Equal(spells[2]) {
			differ++
		}
		entries := list(t, r.Vals[1], 2)
		// 2 draws of 8 keys: one or two entries (the same key twice is one).
		if n := len(entries) / 2; n < 1 || n > 2 || len(entries)%2 != 0 {
			t.Fatalf("map %v", entries)
		}
		for i := 0; i < len(entries); i += 2 {
			if k, v := entries[i].Str(), entries[i+1].Int(); len(k) != 1 || k < "a" || k > "h" || v < 10 || v >= 100 {
				t.Fatalf("map entry %q -> %d", k, v)
			}
		}
		if one := list(t, r.Vals[2], 1); len(one) != 1 || one[0].Int() < 1 || one[0].Int() > 3 {
			t.Fatalf("length 1 (the default) gave %v", one)
		}
	}
	if differ < 40 {
		t.Errorf("only %d of 50 arrays have elements that differ: elements must be generated anew", differ)
	}
	_, err := NewSource(connector.Spec{Table: "t", Schema: cols[2:], Options: opts{
		"fields.one.expression": "1", "fields.one.length": "0", "rows-per-second": "1"}}, &fixedClock{t: now})
	if err == nil || !strings.Contains(err.Error(), "at least 1") {
		t.Errorf("length 0: %v", err)
	}
}

// list reads a nested value: per is 1 for an ARRAY, 2 for a MAP (key,
// value).
func list(t *testing.T, v row.Value, per int) []row.Value {
	t.Helper()
	r, n, err := row.NewListReader(v.Str())
	if err != nil {
		t.Fatal(err)
	}
	var out []row.Value
	for range n * per {
		x, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, x)
	}
	return out
}

// TestNameAndAddressParts: the Name and Address providers added for the
// cookbook's JSON recipes (Name.prefix, …) give values of their kind.
func TestNameAndAddressParts(t *testing.T) {
	cases := []struct {
		expr string
		ok   *regexp.Regexp
	}{
		{"#{Name.prefix}", regexp.MustCompile(`^(Mr\.|Mrs\.|Ms\.|Miss|Dr\.)$`)},
		{"#{Name.suffix}", regexp.MustCompile(`^(Jr\.|Sr\.|I|II|III|IV|V|MD|DDS|PhD|DVM)$`)},
		{"#{Name.title}", regexp.MustCompile(`^\S+ \S+ .+$`)},
		{"#{Name.name_with_middle}", regexp.MustCompile(`^\S+ \S+ \S+$`)},
		{"#{Address.buildingNumber}", regexp.MustCompile(`^[0-9]+$`)},
		{"#{Address.street_name}", regexp.MustCompile(`^\S+ [A-Z][a-z]+$`)},
		{"#{Address.streetSuffix}", regexp.MustCompile(`^[A-Z][a-z]+$`)},
		{"#{Address.stateAbbr}", regexp.MustCompile(`^[A-Z]{2}$`)},
		{"#{Address.countryCode}", regexp.MustCompile(`^[A-Z]{2}$`)},
	}
	for _, c := range cases {
		cols := []connector.Column{{Name: "x", Type: types.StringType()}}
		rows := readAll(t, newSource(t, cols, opts{"seed": "7", "number-of-rows": "50", "rows-per-second": "10000", "fields.x.expression": c.expr}))
		distinct := map[string]bool{}
		for _, r := range rows {
			if s := r.Vals[0].Str(); !c.ok.MatchString(s) {
				t.Errorf("%s gave %q", c.expr, s)
			} else {
				distinct[s] = true
			}
		}
		if len(rows) != 50 || len(distinct) < 2 {
			t.Errorf("%s: %d rows, %d distinct values", c.expr, len(rows), len(distinct))
		}
	}
}
