package faker

import (
	"context"
	"slices"
	"testing"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/types"
)

// TestLookup: as flink-faker's lookup function, every key asked for gets
// one row whose key columns are the key and whose other columns come from
// their expressions (here a list of options, and a null rate of 1), also
// for a key the expression could never make; 'number-of-rows' does not
// limit lookups.
func TestLookup(t *testing.T) {
	cols := []connector.Column{
		{Name: "spell", Type: types.StringType()},
		{Name: "lang", Type: types.StringType()},
		{Name: "n", Type: types.New(types.Int)},
		{Name: "gone", Type: types.StringType()},
	}
	o := opts{
		"fields.spell.expression": "#{harry_potter.spell}",
		"fields.lang.expression":  "#{regexify '(Rune|Troll|English)'}",
		"fields.n.expression":     "#{number.numberBetween '1','5'}",
		"fields.gone.expression":  "x",
		"fields.gone.null-rate":   "1",
		"number-of-rows":          "1",
		"rows-per-second":         "1",
	}
	l, err := NewLookup(connector.Spec{Table: "t", Schema: cols, Options: o}, []int{0, 2}, &fixedClock{t: now})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	keys := [][]row.Value{
		{row.StrValue("Lumos"), row.IntValue(3)},
		{row.StrValue("not a spell"), row.IntValue(99)},
		{row.StrValue("Lumos"), row.IntValue(4)},
	}
	for range 3 {
		got, err := l.Lookup(context.Background(), keys)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(keys) {
			t.Fatalf("%d rows for %d keys: %v", len(got), len(keys), got)
		}
		for i, r := range got {
			if !r.Vals[0].Equal(keys[i][0]) || !r.Vals[2].Equal(keys[i][1]) {
				t.Errorf("row %v for key %v: the key columns are not the key", r.Vals, keys[i])
			}
			if lang := r.Vals[1]; lang.IsNull() || !slices.Contains([]string{"Rune", "Troll", "English"}, lang.Str()) {
				t.Errorf("row %v: lang %v is none of the expression's options", r.Vals, lang)
			}
			if !r.Vals[3].IsNull() {
				t.Errorf("row %v: a column with null-rate 1 is not NULL", r.Vals)
			}
		}
	}
	if _, err := NewLookup(connector.Spec{Table: "t", Schema: cols, Options: o}, nil, &fixedClock{t: now}); err == nil {
		t.Error("a lookup without key columns was accepted")
	}
}
