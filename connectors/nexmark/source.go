package nexmark

import (
	"context"
	"errors"
	"fmt"
	"github.com/streamsql/streamsql/civil"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/streamsql/streamsql/changelogmode"
	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/settings"
	"github.com/streamsql/streamsql/types"
)

func init() {
	connector.RegisterSource("nexmark", func(spec connector.Spec) (connector.Source, error) { return NewSource(spec) })
}

// MaxBatch is the most rows one Read returns.
const MaxBatch = 1024

// Columns of each table, in Nexmark's order.
var columns = [...][]string{
	Person:  {"id", "name", "emailAddress", "creditCard", "city", "state", "dateTime", "extra"},
	Auction: {"id", "itemName", "description", "initialBid", "reserve", "dateTime", "expires", "seller", "category", "extra"},
	Bid:     {"auction", "bidder", "price", "channel", "url", "dateTime", "extra"},
}

// Columns returns the columns of table kind k, in Nexmark's order.
func Columns(k Kind) []string { return append([]string(nil), columns[k]...) }

// colClass is the SQL type a Nexmark column needs.
type colClass uint8

const (
	classInt colClass = iota
	classString
	classTime
)

func classOf(name string) colClass {
	switch name {
	case "dateTime", "expires":
		return classTime
	case "id", "initialBid", "reserve", "seller", "category", "auction", "bidder", "price":
		return classInt
	default:
		return classString
	}
}

// Source generates one Nexmark table. See the package comment.
type Source struct {
	gen  *Generator
	kind Kind
	// slot[i] is the Nexmark column (index into columns[kind]) of schema
	// column i.
	slot  []int
	trunc []int64 // per schema column: TIMESTAMP(p < 3) unit in ms, else 1
	width int
	next  int64 // next event id to look at
	end   int64 // events of the whole stream; math.MaxInt64: unbounded
	// limited: hold events until their event time has passed in wall time.
	limited bool
	start   time.Time
	vals    [10]row.Value // one event's values in Nexmark order
	ids     []int64
	// all: Nexmark's own DDL, one table of every event (event_type INT,
	// person ROW<...>, auction ROW<...>, bid ROW<...>); see allColumn.
	all  bool
	nest []allColumn // per schema column, when all
	p    PersonEvent
	a    AuctionEvent
	b    BidEvent
}

// NewSource returns a source for spec.
func NewSource(spec connector.Spec) (*Source, error) {
	if spec.Options == nil {
		return nil, errors.New("nexmark: the table has no connector configuration")
	}
	c := spec.Options
	fail := func(format string, args ...any) error {
		return fmt.Errorf("nexmark: table %s: "+format, append([]any{spec.Table}, args...)...)
	}
	cfg, err := ConfigFrom(c)
	if err != nil {
		return nil, fail("%v", err)
	}
	s := &Source{gen: NewGenerator(cfg), end: math.MaxInt64, width: len(spec.Schema)}
	s.all = !c.Has("nexmark.table") && hasColumn(spec.Schema, "event_type")
	switch c.Get("nexmark.table") {
	case "person":
		s.kind = Person
	case "auction":
		s.kind = Auction
	case "bid", "":
		s.kind = Bid
	default:
		return nil, fail("'nexmark.table' must be person, auction or bid")
	}
	if n, err := strconv.ParseInt(c.Get("events.num"), 10, 64); err == nil && n > 0 {
		s.end = n
	}
	s.limited = c.Get("rate.limited") == "true"
	if s.all {
		return s.allEvents(spec, fail)
	}
	for _, col := range spec.Schema {
		if col.MetadataKey != "" {
			return nil, fail("nexmark has no metadata, but column %s reads '%s'", col.Name, col.MetadataKey)
		}
		j, unit, err := columnOf(s.kind, col.Name, col.Type)
		if err != nil {
			return nil, fail("%v", err)
		}
		s.slot = append(s.slot, j)
		s.trunc = append(s.trunc, unit)
	}
	return s, nil
}

// columnOf finds the Nexmark column of table kind k called name (any
// case) and checks its type t; unit is the TIMESTAMP(p < 3) unit in ms
// (else 1).
func columnOf(k Kind, name string, t types.T) (j int, unit int64, err error) {
	cols := columns[k]
	j = -1
	for i, c := range cols {
		if strings.EqualFold(c, name) {
			j = i
		}
	}
	if j < 0 {
		return 0, 0, fmt.Errorf("column %s is not a column of the Nexmark %s table (%s)", name, k, strings.Join(cols, ", "))
	}
	unit = 1
	switch classOf(cols[j]) {
	case classInt:
		if !t.IsIntegral() {
			return 0, 0, fmt.Errorf("column %s must be BIGINT, not %s", name, t)
		}
	case classString:
		if !t.IsString() {
			return 0, 0, fmt.Errorf("column %s must be STRING, not %s", name, t)
		}
	case classTime:
		if t.Kind != types.Timestamp && t.Kind != types.TimestampLTZ {
			return 0, 0, fmt.Errorf("column %s must be TIMESTAMP(3), not %s", name, t)
		}
		for p := t.Precision; p < 3; p++ {
			unit *= 10
		}
	}
	return j, unit, nil
}

// maxEventSize bounds an average event size: the generator builds each
// event in memory.
const maxEventSize = 1 << 30

// eventSize reads an average event size: a memory size as every size is
// read (settings.ParseMemorySize), below 1gb.
func eventSize(v string) (int, error) {
	n, err := settings.ParseMemorySize(v)
	if err != nil {
		return 0, err
	}
	if n >= maxEventSize {
		return 0, fmt.Errorf("'%s' is too large for an event (at most 1023mb)", v)
	}
	return int(n), nil
}

// ConfigFrom reads the generator settings from a table's options.
func ConfigFrom(c connector.Options) (Config, error) {
	cfg := DefaultConfig()
	ints := []struct {
		key string
		dst *int64
		min int64
	}{
		{"person.proportion", &cfg.PersonProportion, 0},
		{"auction.proportion", &cfg.AuctionProportion, 0},
		{"bid.proportion", &cfg.BidProportion, 0},
		{"num.active.people", &cfg.NumActivePeople, 1},
		{"num.in.flight.auctions", &cfg.NumInFlightAuctions, 1},
	}
	for _, o := range ints {
		if v := c.Get(o.key); v != "" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < o.min {
				return cfg, fmt.Errorf("'%s' must be a whole number of at least %d", o.key, o.min)
			}
			*o.dst = n
		}
	}
	if cfg.total() == 0 {
		return cfg, errors.New("the proportions of people, auctions and bids are all 0")
	}
	ratios := []struct {
		key string
		dst *int
	}{
		{"bid.hot-ratio.auctions", &cfg.HotAuctionRatio},
		{"bid.hot-ratio.bidders", &cfg.HotBiddersRatio},
		{"auction.hot-ratio.sellers", &cfg.HotSellersRatio},
	}
	for _, o := range ratios {
		if v := c.Get(o.key); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return cfg, fmt.Errorf("'%s' must be a whole number of at least 1", o.key)
			}
			*o.dst = n
		}
	}
	sizes := []struct {
		key string
		dst *int
	}{
		{"person.avg-size", &cfg.AvgPersonSize},
		{"auction.avg-size", &cfg.AvgAuctionSize},
		{"bid.avg-size", &cfg.AvgBidSize},
	}
	for _, o := range sizes {
		if v := c.Get(o.key); v != "" {
			n, err := eventSize(v)
			if err != nil {
				return cfg, fmt.Errorf("'%s': %w", o.key, err)
			}
			*o.dst = n
		}
	}
	if v := c.Get("first-event.rate"); v != "" {
		r, err := strconv.ParseFloat(v, 64)
		if err != nil || r <= 0 {
			return cfg, errors.New("'first-event.rate' must be a whole number of at least 1")
		}
		cfg.Rate = r
	}
	if v := c.Get("first-event.timestamp"); v != "" {
		ms, err := parseTimestamp(v)
		if err != nil {
			return cfg, fmt.Errorf("'first-event.timestamp': %w", err)
		}
		cfg.BaseTime = ms
	}
	if v := c.Get("nexmark.seed"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return cfg, errors.New("'nexmark.seed' must be a whole number")
		}
		cfg.Seed = n
	}
	return cfg, nil
}

// parseTimestamp reads milliseconds since the epoch or a date-time as
// CAST reads one (civil.Lenient: UTC unless it has a zone).
func parseTimestamp(v string) (int64, error) {
	v = strings.TrimSpace(v)
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		return n, nil
	}
	if ms, err := civil.ParseTimestamp(v, civil.Lenient); err == nil {
		return ms, nil
	}
	return 0, fmt.Errorf("'%s' is neither milliseconds since the epoch nor 'YYYY-MM-DD HH:MM:SS'", v)
}

// Open starts the wall clock of 'rate.limited'.
func (s *Source) Open(context.Context) error {
	s.start = time.Now()
	return nil
}

// Splits is 1.
func (s *Source) Splits() int { return 1 }

// Close does nothing.
func (s *Source) Close() error { return nil }

// Read returns the next events of the table's kind, up to MaxBatch; io.EOF
// once 'events.num' events of the whole stream have been passed.
func (s *Source) Read(ctx context.Context) (int, row.Batch, error) {
	if err := ctx.Err(); err != nil {
		return 0, nil, err
	}
	c := s.gen.Config()
	// Event ids of this kind in [s.next, s.end), at most MaxBatch.
	first := s.next
	if !s.all {
		first = c.NextOfKind(s.next, s.kind)
	}
	if first < 0 || first >= s.end {
		s.next = s.end
		return 0, nil, io.EOF
	}
	ids := s.ids[:0]
	if s.all {
		first = s.next
		for id := first; id < s.end && len(ids) < MaxBatch; id++ {
			ids = append(ids, id)
		}
	} else {
		for id := first; id >= 0 && id < s.end && len(ids) < MaxBatch; id = c.NextOfKind(id+1, s.kind) {
			ids = append(ids, id)
		}
	}
	s.ids = ids
	last := ids[len(ids)-1]
	// s.next moves only once the batch is returned: a Read that ends on its
	// context's deadline while waiting for the rate loses no event.
	if s.limited {
		due := s.start.Add(time.Duration(c.Timestamp(last)-c.BaseTime) * time.Millisecond)
		if wait := time.Until(due); wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return 0, nil, ctx.Err()
			case <-t.C:
			}
		}
	}
	s.next = last + 1
	return 0, s.rows(ids), nil
}

// rows builds the rows of events ids: one slice of values for the batch.
func (s *Source) rows(ids []int64) row.Batch {
	if s.all {
		return s.allRows(ids)
	}
	batch := make(row.Batch, len(ids))
	vals := make([]row.Value, len(ids)*s.width)
	for i, id := range ids {
		s.event(id)
		v := vals[i*s.width : (i+1)*s.width : (i+1)*s.width]
		for k, j := range s.slot {
			x := s.vals[j]
			if u := s.trunc[k]; u > 1 {
				x = row.IntValue(floorDiv(x.Int(), u) * u)
			}
			v[k] = x
		}
		batch[i] = row.Row{Kind: changelogmode.Insert, Vals: v}
	}
	return batch
}

// event generates event id into s.vals, in Nexmark column order.
func (s *Source) event(id int64) {
	g, v := s.gen, &s.vals
	switch s.kind {
	case Person:
		p := &s.p
		g.Person(id, p)
		v[0], v[1], v[2], v[3] = row.IntValue(p.ID), row.StrValue(p.Name), row.StrValue(p.Email), row.StrValue(p.CreditCard)
		v[4], v[5], v[6], v[7] = row.StrValue(p.City), row.StrValue(p.State), row.IntValue(p.DateTime), row.StrValue(p.Extra)
	case Auction:
		a := &s.a
		g.Auction(id, a)
		v[0], v[1], v[2], v[3], v[4] = row.IntValue(a.ID), row.StrValue(a.ItemName), row.StrValue(a.Description),
			row.IntValue(a.InitialBid), row.IntValue(a.Reserve)
		v[5], v[6], v[7], v[8], v[9] = row.IntValue(a.DateTime), row.IntValue(a.Expires), row.IntValue(a.Seller),
			row.IntValue(a.Category), row.StrValue(a.Extra)
	case Bid:
		b := &s.b
		g.Bid(id, b)
		v[0], v[1], v[2], v[3] = row.IntValue(b.Auction), row.IntValue(b.Bidder), row.IntValue(b.Price), row.StrValue(b.Channel)
		v[4], v[5], v[6] = row.StrValue(b.URL), row.IntValue(b.DateTime), row.StrValue(b.Extra)
	}
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}
