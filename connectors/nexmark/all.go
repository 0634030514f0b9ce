package nexmark

import (
	"strings"

	"github.com/streamsql/streamsql/changelogmode"
	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/types"
)

// Nexmark's own DDL (nexmark-flink's ddl_gen.sql) reads every event from
// one table and splits it with views:
//
//	CREATE TABLE datagen (
//	  event_type INT,
//	  person ROW<id BIGINT, name VARCHAR, ..., dateTime TIMESTAMP(3), extra VARCHAR>,
//	  auction ROW<id BIGINT, itemName VARCHAR, ...>,
//	  bid ROW<auction BIGINT, bidder BIGINT, price BIGINT, ...>,
//	  dateTime AS CASE WHEN event_type = 0 THEN person.dateTime
//	                   WHEN event_type = 1 THEN auction.dateTime ELSE bid.dateTime END,
//	  WATERMARK FOR dateTime AS dateTime - INTERVAL '4' SECOND
//	) WITH ('connector' = 'nexmark', ...);
//	CREATE VIEW bid AS SELECT bid.auction, ..., dateTime FROM datagen WHERE event_type = 2;
//
// A table without 'nexmark.table' that has an event_type column is such a
// table: event_type is 0 for a person, 1 for an auction, 2 for a bid; the
// ROW column of the event's kind holds it (its fields are Nexmark columns,
// matched by name as a flat table's columns are), the others are NULL.

// allColumn is one column of an all-events table.
type allColumn struct {
	eventType bool
	kind      Kind
	slot      []int   // per ROW field: the Nexmark column
	trunc     []int64 // per ROW field: TIMESTAMP(p < 3) unit in ms, else 1
}

func hasColumn(schema []connector.Column, name string) bool {
	for _, c := range schema {
		if strings.EqualFold(c.Name, name) {
			return true
		}
	}
	return false
}

// allEvents sets s up for an all-events table.
func (s *Source) allEvents(spec connector.Spec, fail func(string, ...any) error) (*Source, error) {
	s.all = true
	for _, col := range spec.Schema {
		if col.MetadataKey != "" {
			return nil, fail("nexmark has no metadata, but column %s reads '%s'", col.Name, col.MetadataKey)
		}
		if strings.EqualFold(col.Name, "event_type") {
			if !col.Type.IsIntegral() {
				return nil, fail("column event_type must be INT, not %s", col.Type)
			}
			s.nest = append(s.nest, allColumn{eventType: true})
			continue
		}
		var k Kind
		switch strings.ToLower(col.Name) {
		case "person":
			k = Person
		case "auction":
			k = Auction
		case "bid":
			k = Bid
		default:
			return nil, fail("column %s is not a column of Nexmark's event table (event_type, person, auction, bid)", col.Name)
		}
		if col.Type.Kind != types.Row {
			return nil, fail("column %s must be a ROW of Nexmark's %s columns (%s), not %s", col.Name, k, strings.Join(columns[k], ", "), col.Type)
		}
		ac := allColumn{kind: k}
		for _, f := range col.Type.Fields() {
			j, unit, err := columnOf(k, f.Name, f.Type)
			if err != nil {
				return nil, fail("column %s: %v", col.Name, err)
			}
			ac.slot = append(ac.slot, j)
			ac.trunc = append(ac.trunc, unit)
		}
		s.nest = append(s.nest, ac)
	}
	return s, nil
}

// allRows builds the rows of events ids of an all-events table.
func (s *Source) allRows(ids []int64) row.Batch {
	c := s.gen.Config()
	batch := make(row.Batch, len(ids))
	vals := make([]row.Value, len(ids)*s.width)
	for i, id := range ids {
		s.kind = c.KindOf(id)
		s.event(id)
		v := vals[i*s.width : (i+1)*s.width : (i+1)*s.width]
		for k := range s.nest {
			n := &s.nest[k]
			switch {
			case n.eventType:
				v[k] = row.IntValue(int64(s.kind))
			case n.kind == s.kind:
				fields := make([]row.Value, len(n.slot))
				for f, j := range n.slot {
					x := s.vals[j]
					if u := n.trunc[f]; u > 1 {
						x = row.IntValue(floorDiv(x.Int(), u) * u)
					}
					fields[f] = x
				}
				v[k] = row.ListValue(fields)
			}
		}
		batch[i] = row.Row{Kind: changelogmode.Insert, Vals: v}
	}
	return batch
}
