package datagen

import (
	"strings"
	"testing"

	"github.com/streamsql/streamsql/connectors/conntest"
	"github.com/streamsql/streamsql/row"
)

// TestNestedValues: ARRAY, MAP and ROW columns are generated as Flink's
// datagen generates them: an ARRAY or MAP of 'length' elements (3 by
// default; a MAP's equal keys collapse), every part with the options of its
// path (fields.<col>.element.*, .key.*, .value.*, .<field>.*).
func TestNestedValues(t *testing.T) {
	s := newSource(t, &fakeClock{now: t0},
		"tags ARRAY<INT>, d ARRAY<STRING>, m MAP<INT, STRING>, r ROW<a INT, b ARRAY<BOOLEAN>>",
		", 'number-of-rows' = '500', 'fields.tags.length' = '5', 'fields.tags.element.min' = '10', 'fields.tags.element.max' = '12',"+
			" 'fields.tags.element.null-rate' = '0.5', 'fields.d.element.length' = '2', 'fields.m.key.min' = '1', 'fields.m.key.max' = '4',"+
			" 'fields.m.value.length' = '3', 'fields.r.a.min' = '-1', 'fields.r.a.max' = '1', 'fields.r.b.length' = '2'")
	rows := readAll(t, s)
	if len(rows) != 500 {
		t.Fatalf("got %d rows", len(rows))
	}
	nulls, mapSizes := 0, map[int]int{}
	for _, r := range rows {
		tags, err := row.DecodeList(nil, r.Vals[0].Str())
		if err != nil || len(tags) != 5 {
			t.Fatalf("tags %v: %v, want 5 elements", tags, err)
		}
		for _, v := range tags {
			if v.IsNull() {
				nulls++
			} else if v.Int() < 10 || v.Int() > 12 {
				t.Fatalf("tag %d outside [10, 12]", v.Int())
			}
		}
		d, err := row.DecodeList(nil, r.Vals[1].Str())
		if err != nil || len(d) != 3 {
			t.Fatalf("d %v: %v, want the default of 3 elements", d, err)
		}
		for _, v := range d {
			if len(v.Str()) != 2 {
				t.Fatalf("d element %q, want 2 characters", v.Str())
			}
		}
		ks, vs, err := row.DecodeMap(nil, nil, r.Vals[2].Str())
		if err != nil || len(ks) < 1 || len(ks) > 3 {
			t.Fatalf("m %v: %v, want 1 to 3 entries", ks, err)
		}
		mapSizes[len(ks)]++
		for i, k := range ks {
			if k.Int() < 1 || k.Int() > 4 || len(vs[i].Str()) != 3 || i > 0 && ks[i-1].Int() >= k.Int() {
				t.Fatalf("m entry %d=%q: keys in [1, 4], distinct and sorted, values of 3 characters", k.Int(), vs[i].Str())
			}
		}
		fs, err := row.DecodeList(nil, r.Vals[3].Str())
		if err != nil || len(fs) != 2 || fs[0].Int() < -1 || fs[0].Int() > 1 {
			t.Fatalf("r %v: %v", fs, err)
		}
		if b, err := row.DecodeList(nil, fs[1].Str()); err != nil || len(b) != 2 {
			t.Fatalf("r.b %v: %v, want 2 elements", b, err)
		}
	}
	// 2500 elements at a null rate of one half: far from 0 and from all.
	if nulls < 1000 || nulls > 1500 {
		t.Errorf("%d of 2500 tags are NULL at a null rate of 0.5", nulls)
	}
	if mapSizes[3] == 0 || mapSizes[2] == 0 {
		t.Errorf("map sizes %v: three keys drawn from four should sometimes collide and sometimes not", mapSizes)
	}
}

// TestNestedOptionNamesNoPart: an option for a part the type does not
// have is refused, naming the paths there are.
func TestNestedOptionNamesNoPart(t *testing.T) {
	spec := conntest.SourceSpec(t, "CREATE TABLE g (tags ARRAY<INT>) WITH ('connector' = 'datagen', 'fields.tags.elem.min' = '1')", "")
	_, err := NewSource(spec, &fakeClock{now: t0})
	if err == nil || !strings.Contains(err.Error(), "tags.element") {
		t.Fatalf("got %v, want an error listing tags.element", err)
	}
}
