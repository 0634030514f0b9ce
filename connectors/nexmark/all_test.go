package nexmark

import (
	"strings"
	"testing"

	"github.com/streamsql/streamsql/connectors/conntest"
	"github.com/streamsql/streamsql/row"
)

// TestAllEventsTable: Nexmark's own DDL (event_type and a ROW per kind)
// holds, in event order, exactly the rows of the three flat tables (each
// generated on its own), the ROW of the event's kind filled with its
// columns, the other two NULL; ROW fields may come in any order and
// subset, as flat columns may.
func TestAllEventsTable(t *testing.T) {
	const events = 2600
	row2 := func(cols string) string { return "ROW<" + cols + ">" }
	cols := "event_type INT, person " + row2(personCols) + ", auction " + row2(auctionCols) +
		", bid ROW<price BIGINT, auction BIGINT, dateTime TIMESTAMP(3)>"
	all := readAll(t, newSource(t, cols, ", 'events.num' = '"+itoa(events)+"'"))
	if len(all) != events {
		t.Fatalf("%d rows, want one per event, %d", len(all), events)
	}
	flat := map[int64]row.Batch{0: table(t, "person", events), 1: table(t, "auction", events),
		2: readAll(t, newSource(t, "price BIGINT, auction BIGINT, dateTime TIMESTAMP(3)", ", 'nexmark.table' = 'bid', 'events.num' = '"+itoa(events)+"'"))}
	next := map[int64]int{}
	for i, r := range all {
		k := r.Vals[0].Int()
		want := flat[k][next[k]]
		next[k]++
		got, err := row.DecodeList(nil, r.Vals[1+k].Str())
		if err != nil || len(got) != len(want.Vals) {
			t.Fatalf("event %d (kind %d): %v, %v", i, k, got, err)
		}
		for j := range got {
			if !got[j].Equal(want.Vals[j]) {
				t.Fatalf("event %d (kind %d) field %d: %v, want %v", i, k, j, got[j], want.Vals[j])
			}
		}
		for o := int64(0); o < 3; o++ {
			if o != k && !r.Vals[1+o].IsNull() {
				t.Fatalf("event %d of kind %d has a %d row", i, k, o)
			}
		}
	}
	for k, b := range flat {
		if next[k] != len(b) {
			t.Errorf("kind %d: %d events, the flat table has %d", k, next[k], len(b))
		}
	}
	for _, bad := range []struct{ cols, want string }{
		{"event_type INT, bid STRING", "must be a ROW"},
		{"event_type INT, bid ROW<price STRING>", "must be BIGINT"},
		{"event_type INT, buyer ROW<id BIGINT>", "not a column of Nexmark's event table"},
	} {
		spec := conntest.SourceSpec(t, "CREATE TABLE t ("+bad.cols+") WITH ('connector' = 'nexmark')", "")
		if _, err := NewSource(spec); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: error %v, want one with %q", bad.cols, err, bad.want)
		}
	}
}
