package format

import (
	"testing"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/types"
)

// A source's schema marks the columns the plan never reads Unused
// (projection pruning): decoders leave them NULL without converting them.
// The reference is the decode of the full schema: every used column must
// come out the same, every unused one NULL; a value of the wrong type in an
// unused column is no error (as with Flink's projection push-down), a
// malformed record still is.
func TestUnusedColumns(t *testing.T) {
	full := []connector.Column{
		col("id", types.New(types.BigInt)),
		col("name", types.StringType()),
		col("price", types.DecimalOf(10, 2)),
		{Name: "must", Type: types.New(types.Int).WithNullable(false)},
	}
	pruned := append([]connector.Column(nil), full...)
	pruned[1].Unused, pruned[3].Unused = true, true
	cases := []struct {
		format    string
		good      []string // records both schemas decode
		badUnused []string // records with a bad value only in an unused column
		malformed []string // records neither decodes
	}{
		{JSON,
			[]string{`{"id": 1, "name": "a", "price": 1.5, "must": 3}`, `{"must": 4, "price": "2.25", "id": 2, "name": null}`},
			[]string{`{"id": 1, "name": {"x": [1, 2]}, "price": 1}`, `{"id": 1, "price": 1, "must": "not a number"}`},
			[]string{`{"id": 1, "name": "a", "price": 1.5, "must": 3`, `{"id": 1, "name": [1, }`}},
		{DebeziumJSON,
			[]string{`{"before": null, "after": {"id": 1, "name": "a", "price": 1.5, "must": 3}, "op": "c"}`},
			[]string{`{"before": null, "after": {"id": 1, "name": true, "price": 1.5}, "op": "c"}`},
			[]string{`{"before": null, "after": {"id": 1, "name": , "price": 1.5}, "op": "c"}`}},
		{CSV,
			[]string{`1,a,1.5,3`, `2,,2.25,4`},
			[]string{`1,a,1.5,x`, `1,a,1.5,`},
			[]string{`1,a,1.5`, `1,"a,1.5,3`}},
	}
	for _, c := range cases {
		df, err := NewDecoder(c.format, full, nil)
		if err != nil {
			t.Fatal(err)
		}
		dp, err := NewDecoder(c.format, pruned, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, rec := range c.good {
			want, err := df.Decode(nil, []byte(rec))
			if err != nil {
				t.Fatalf("%s %s: full schema: %v", c.format, rec, err)
			}
			got, err := dp.Decode(nil, []byte(rec))
			if err != nil {
				t.Fatalf("%s %s: pruned schema: %v", c.format, rec, err)
			}
			if len(got) != len(want) {
				t.Fatalf("%s %s: %d rows, want %d", c.format, rec, len(got), len(want))
			}
			for i := range want {
				for j, v := range want[i].Vals {
					exp := v
					if pruned[j].Unused {
						exp = row.NullValue
					}
					if got[i].Vals[j] != exp {
						t.Errorf("%s %s: column %s = %v, want %v", c.format, rec, full[j].Name, got[i].Vals[j], exp)
					}
				}
			}
		}
		for _, rec := range c.badUnused {
			if _, err := df.Decode(nil, []byte(rec)); err == nil {
				t.Errorf("%s %s: the full schema must refuse it", c.format, rec)
			}
			if _, err := dp.Decode(nil, []byte(rec)); err != nil {
				t.Errorf("%s %s: the bad value is in an unused column: %v", c.format, rec, err)
			}
		}
		for _, rec := range c.malformed {
			if _, err := dp.Decode(nil, []byte(rec)); err == nil {
				t.Errorf("%s %s: a malformed record must fail with unused columns too", c.format, rec)
			}
		}
	}
	// raw: its one column unused is NULL.
	raw := []connector.Column{{Name: "line", Type: types.StringType(), Unused: true}}
	d, err := NewDecoder(Raw, raw, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := d.Decode(nil, []byte("hello"))
	if err != nil || len(got) != 1 || !got[0].Vals[0].IsNull() {
		t.Errorf("raw, unused: %v, %v", got, err)
	}
}
