package nexmark

import (
	"context"
	"errors"
	"io"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/connectors/conntest"
	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/exec"
	"github.com/streamsql/streamsql/frontend"
	"github.com/streamsql/streamsql/internal/plantest"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/row"
)

const (
	personCols  = "id BIGINT, name STRING, emailAddress STRING, creditCard STRING, city STRING, state STRING, dateTime TIMESTAMP(3), extra STRING"
	auctionCols = "id BIGINT, itemName STRING, description STRING, initialBid BIGINT, reserve BIGINT, dateTime TIMESTAMP(3), expires TIMESTAMP(3), seller BIGINT, category BIGINT, extra STRING"
	bidCols     = "auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING, dateTime TIMESTAMP(3), extra STRING"
)

func colsOf(table string) string {
	return map[string]string{"person": personCols, "auction": auctionCols, "bid": bidCols}[table]
}

func newSource(t *testing.T, cols, opts string) *Source {
	t.Helper()
	spec := conntest.SourceSpec(t, "CREATE TABLE t ("+cols+") WITH ('connector' = 'nexmark'"+opts+")", "")
	s, err := NewSource(spec)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	return s
}

func readAll(t *testing.T, s connector.Source) row.Batch {
	t.Helper()
	var all row.Batch
	for range 1 << 20 {
		split, b, err := s.Read(context.Background())
		if errors.Is(err, io.EOF) {
			return all
		}
		if err != nil {
			t.Fatal(err)
		}
		if split != 0 || len(b) == 0 || len(b) > MaxBatch {
			t.Fatalf("split %d, batch of %d", split, len(b))
		}
		all = append(all, b...)
	}
	t.Fatal("no io.EOF")
	return nil
}

func table(t *testing.T, name string, events int) row.Batch {
	t.Helper()
	return readAll(t, newSource(t, colsOf(name), ", 'nexmark.table' = '"+name+"', 'events.num' = '"+itoa(events)+"'"))
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestDeterministic(t *testing.T) {
	for _, name := range []string{"person", "auction", "bid"} {
		a, b := table(t, name, 20000), table(t, name, 20000)
		if len(a) != len(b) || len(a) == 0 {
			t.Fatalf("%s: %d vs %d rows", name, len(a), len(b))
		}
		for i := range a {
			for j := range a[i].Vals {
				if !a[i].Vals[j].Equal(b[i].Vals[j]) {
					t.Fatalf("%s row %d column %d: %v vs %v", name, i, j, a[i].Vals[j], b[i].Vals[j])
				}
			}
		}
	}
	// Another seed gives other values, with the same ids.
	a := table(t, "auction", 5000)
	c := readAll(t, newSource(t, auctionCols, ", 'nexmark.table' = 'auction', 'events.num' = '5000', 'nexmark.seed' = '9'"))
	same := 0
	for i := range a {
		if a[i].Vals[0] != c[i].Vals[0] {
			t.Fatalf("ids differ with the seed: %v vs %v", a[i].Vals[0], c[i].Vals[0])
		}
		if a[i].Vals[1] == c[i].Vals[1] {
			same++
		}
	}
	if same > 5 {
		t.Errorf("%d of %d item names agree across seeds", same, len(a))
	}
}

func TestProportions(t *testing.T) {
	const n = 50000
	p, a, b := table(t, "person", n), table(t, "auction", n), table(t, "bid", n)
	if len(p) != n/50 || len(a) != 3*n/50 || len(b) != 46*n/50 {
		t.Fatalf("person %d, auction %d, bid %d of %d events; want 1:3:46", len(p), len(a), len(b), n)
	}
	// Ids are consecutive from 1000, in event order.
	for i, r := range p {
		if r.Vals[0].Int() != FirstPersonID+int64(i) {
			t.Fatalf("person %d has id %d", i, r.Vals[0].Int())
		}
	}
	for i, r := range a {
		if r.Vals[0].Int() != FirstAuctionID+int64(i) {
			t.Fatalf("auction %d has id %d", i, r.Vals[0].Int())
		}
	}
	// Other proportions.
	q := readAll(t, newSource(t, "id BIGINT", ", 'nexmark.table' = 'person', 'events.num' = '1000', 'person.proportion' = '5', 'bid.proportion' = '2'"))
	if len(q) != 500 {
		t.Errorf("5:3:2 gave %d people of 1000 events", len(q))
	}
	none := readAll(t, newSource(t, "id BIGINT", ", 'nexmark.table' = 'person', 'events.num' = '1000', 'person.proportion' = '0'"))
	if len(none) != 0 {
		t.Errorf("proportion 0 gave %d people", len(none))
	}
}

// TestBounds checks the reference's id bounds and the hot ratios on the
// generator directly, event by event.
func TestBounds(t *testing.T) {
	c := DefaultConfig()
	g := NewGenerator(c)
	var p PersonEvent
	var a AuctionEvent
	var b BidEvent
	var bids, hotAuction, hotBidder, auctions, hotSeller int
	var expirySum float64
	cats := map[int64]int{}
	for id := int64(0); id < 100000; id++ {
		lastP := c.LastBase0PersonID(id) + FirstPersonID
		lastA := c.LastBase0AuctionID(id) + FirstAuctionID
		switch c.KindOf(id) {
		case Person:
			g.Person(id, &p)
			if p.ID != lastP {
				t.Fatalf("event %d: person id %d, want %d", id, p.ID, lastP)
			}
			if p.DateTime != c.Timestamp(id) {
				t.Fatalf("person time %d", p.DateTime)
			}
		case Auction:
			g.Auction(id, &a)
			auctions++
			if a.ID != lastA {
				t.Fatalf("event %d: auction id %d, want %d", id, a.ID, lastA)
			}
			if a.Seller < FirstPersonID || a.Seller > lastP+PersonIDLead {
				t.Fatalf("event %d: seller %d beyond the last person %d plus the lead", id, a.Seller, lastP)
			}
			if (a.Seller-FirstPersonID)%100 == 0 {
				hotSeller++
			}
			if a.Expires <= a.DateTime {
				t.Fatalf("event %d: auction expires at %d, not after %d", id, a.Expires, a.DateTime)
			}
			expirySum += float64(a.Expires - a.DateTime)
			if a.InitialBid < 100 || a.InitialBid > 100_000_000 || a.Reserve < a.InitialBid {
				t.Fatalf("event %d: prices %d, %d", id, a.InitialBid, a.Reserve)
			}
			cats[a.Category]++
		case Bid:
			g.Bid(id, &b)
			bids++
			if b.Auction < FirstAuctionID || b.Auction > lastA+AuctionIDLead {
				t.Fatalf("event %d: bid for auction %d beyond the last %d plus the lead", id, b.Auction, lastA)
			}
			if b.Auction < lastA-c.NumInFlightAuctions-100 {
				t.Fatalf("event %d: bid for auction %d, long before the last %d", id, b.Auction, lastA)
			}
			if b.Bidder < FirstPersonID || b.Bidder > lastP+PersonIDLead {
				t.Fatalf("event %d: bidder %d beyond the last person %d plus the lead", id, b.Bidder, lastP)
			}
			if b.Auction == (lastA-FirstAuctionID)/100*100+FirstAuctionID {
				hotAuction++
			}
			if b.Bidder == (lastP-FirstPersonID)/100*100+1+FirstPersonID {
				hotBidder++
			}
			if b.Price < 100 || b.Price > 100_000_000 || b.Channel == "" || !strings.HasPrefix(b.URL, "https://www.nexmark.com/") {
				t.Fatalf("event %d: bid %+v", id, b)
			}
		}
	}
	// Hot shares: 1 - 1/ratio, plus the random picks that land on the hot one.
	share := func(n, of int) float64 { return float64(n) / float64(of) }
	if s := share(hotAuction, bids); s < 0.49 || s > 0.53 {
		t.Errorf("hot auction share %.3f, want about 1 - 1/2", s)
	}
	if s := share(hotBidder, bids); s < 0.74 || s > 0.77 {
		t.Errorf("hot bidder share %.3f, want about 1 - 1/4", s)
	}
	if s := share(hotSeller, auctions); s < 0.74 || s > 0.77 {
		t.Errorf("hot seller share %.3f, want about 1 - 1/4", s)
	}
	// Auctions last on average the time of 100 more auctions: 1666 events
	// at 10,000 events per second.
	if m := expirySum / float64(auctions); m < 150 || m > 183 {
		t.Errorf("auctions last %.1f ms on average, want about 166", m)
	}
	if len(cats) != 5 {
		t.Errorf("categories %v", cats)
	}
}

func TestSizes(t *testing.T) {
	c := DefaultConfig()
	g := NewGenerator(c)
	var p PersonEvent
	var a AuctionEvent
	var b BidEvent
	var sum [3]float64
	var n [3]int
	for id := int64(0); id < 50000; id++ {
		k := c.KindOf(id)
		switch k {
		case Person:
			g.Person(id, &p)
			sum[k] += float64(p.Size())
			if len(p.CreditCard) != 19 || !strings.Contains(p.Email, "@") || !strings.HasSuffix(p.Email, ".com") {
				t.Fatalf("person %+v", p)
			}
		case Auction:
			g.Auction(id, &a)
			sum[k] += float64(a.Size())
			if len(a.ItemName) > 19 || len(a.Description) > 99 {
				t.Fatalf("auction %+v", a)
			}
		case Bid:
			g.Bid(id, &b)
			sum[k] += float64(b.Size())
		}
		n[k]++
	}
	for k, want := range []float64{200, 500, 100} {
		if avg := sum[k] / float64(n[k]); avg < want*0.97 || avg > want*1.03 {
			t.Errorf("%s: average size %.1f, want about %.0f", Kind(k), avg, want)
		}
	}
	// Other averages are honoured too.
	c.AvgBidSize = 1000
	g = NewGenerator(c)
	g.Bid(10, &b)
	if b.Size() < 800 || b.Size() > 1200 {
		t.Errorf("bid.avg-size 1000: size %d", b.Size())
	}
}

func TestTimeAndSchema(t *testing.T) {
	// Columns by name, in the table's order; 1000 events per second from
	// a given base time.
	s := newSource(t, "dateTime TIMESTAMP(3), price BIGINT, auction BIGINT",
		", 'events.num' = '200', 'first-event.rate' = '1000', 'first-event.timestamp' = '2025-06-01 12:00:00'")
	rows := readAll(t, s)
	if len(rows) != 4*46 {
		t.Fatalf("%d bids", len(rows))
	}
	const base = 1748779200000 // 2025-06-01T12:00:00Z
	// The first bid is event 4.
	if got := rows[0].Vals[0].Int(); got != base+4 {
		t.Errorf("first bid at %d, want %d", got, base+4)
	}
	for i := 1; i < len(rows); i++ {
		if rows[i].Vals[0].Int() < rows[i-1].Vals[0].Int() {
			t.Fatal("event time goes back")
		}
	}
	full := table(t, "bid", 200)
	if full[7].Vals[2] != rows[7].Vals[1] || full[7].Vals[0] != rows[7].Vals[2] {
		t.Errorf("reordered columns: %v vs %v", rows[7].Vals, full[7].Vals)
	}
	// The default base time is 2026-01-01.
	if got := table(t, "person", 50)[0].Vals[6].Int(); got != 1767225600000 {
		t.Errorf("default first event at %d", got)
	}
	for _, c := range []struct{ cols, opts, want string }{
		{"bidder BIGINT, seller BIGINT", "", "seller is not a column of the Nexmark bid table"},
		{"id STRING", ", 'nexmark.table' = 'person'", "id must be BIGINT"},
		{"dateTime BIGINT", "", "dateTime must be TIMESTAMP(3)"},
		{"price BIGINT", ", 'first-event.timestamp' = 'soon'", "'first-event.timestamp'"},
	} {
		spec := conntest.SourceSpec(t, "CREATE TABLE t ("+c.cols+") WITH ('connector' = 'nexmark'"+c.opts+")", "")
		if _, err := NewSource(spec); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: %v, want %q", c.cols, c.opts, err, c.want)
		}
	}
}

// captureSink keeps the rows a query produces.
type captureSink struct {
	mu   sync.Mutex
	rows []row.Row
}

func (s *captureSink) Open(context.Context) error { return nil }
func (s *captureSink) Write(_ context.Context, b row.Batch) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rows = append(s.rows, b...)
	return nil
}
func (s *captureSink) Flush(context.Context) error { return nil }
func (s *captureSink) Close() error                { return nil }

// TestJoinJob runs bid ⋈ auction through the planner and the executor, as
// streamsql run does, and checks the count against the generator.
func TestJoinJob(t *testing.T) {
	const events = 20000
	ddl := func(name string) string {
		return "CREATE TABLE " + name + " (" + colsOf(name) + ",\n  WATERMARK FOR dateTime AS dateTime - INTERVAL '4' SECOND\n) WITH ('connector' = 'nexmark', 'nexmark.table' = '" + name + "', 'events.num' = '" + itoa(events) + "');\n"
	}
	sql := ddl("auction") + ddl("bid") + `
SELECT b.auction, b.price, a.seller, a.category
FROM bid b JOIN auction a ON b.auction = a.id;
SELECT b.auction, b.price
FROM bid b JOIN auction a ON b.auction = a.id
 AND b.dateTime BETWEEN a.dateTime AND a.dateTime + INTERVAL '1' SECOND;
`
	j := frontend.CheckJob(diag.NewSource("job.sql", sql))
	if j.Diags.HasErrors() {
		t.Fatal(j.Diags.Err())
	}
	var plans []*planner.Plan
	for _, p := range j.Session.Plans {
		if p.Explain == nil {
			plans = append(plans, p)
		}
	}
	var sinks []*captureSink
	job, err := exec.Build(context.Background(), plantest.Lower(t, plans), exec.Options{
		Settings:    j.Session.Settings,
		Parallelism: 2,
		QuerySink: func(string, []connector.Column) connector.Sink {
			s := &captureSink{}
			sinks = append(sinks, s)
			return s
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := job.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(sinks) != 2 {
		t.Fatalf("%d sinks", len(sinks))
	}

	// Expected, from the generator.
	c := DefaultConfig()
	g := NewGenerator(c)
	auctions := map[int64][2]int64{}
	var a AuctionEvent
	for id := c.NextOfKind(0, Auction); id < events; id = c.NextOfKind(id+1, Auction) {
		g.Auction(id, &a)
		auctions[a.ID] = [2]int64{a.Seller, a.DateTime}
	}
	var b BidEvent
	wantJoin, wantInterval := 0, 0
	for id := c.NextOfKind(0, Bid); id < events; id = c.NextOfKind(id+1, Bid) {
		g.Bid(id, &b)
		if x, ok := auctions[b.Auction]; ok {
			wantJoin++
			if b.DateTime >= x[1] && b.DateTime <= x[1]+1000 {
				wantInterval++
			}
		}
	}
	if wantJoin < 18000 || wantInterval < 9000 {
		t.Fatalf("only %d joined bids, %d within a second, of %d events", wantJoin, wantInterval, events)
	}
	if got := len(sinks[0].rows); got != wantJoin {
		t.Errorf("regular join: %d rows, want %d", got, wantJoin)
	}
	if got := len(sinks[1].rows); got != wantInterval {
		t.Errorf("interval join: %d rows, want %d", got, wantInterval)
	}
	for _, r := range sinks[0].rows {
		if x := auctions[r.Vals[0].Int()]; r.Vals[2].Int() != x[0] {
			t.Fatalf("row %v: seller of auction %d is %d", r.Vals, r.Vals[0].Int(), x[0])
		}
	}
}

func TestRegistered(t *testing.T) {
	f, ok := connector.LookupSource("nexmark")
	if !ok {
		t.Fatal("nexmark not registered")
	}
	src, err := f(conntest.SourceSpec(t, "CREATE TABLE b ("+bidCols+") WITH ('connector' = 'nexmark', 'events.num' = '100')", ""))
	if err != nil {
		t.Fatal(err)
	}
	if err := src.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	if rows := readAll(t, src); len(rows) != 92 {
		t.Errorf("%d bids in 100 events", len(rows))
	}
	if err := src.Close(); err != nil {
		t.Error(err)
	}
}

func BenchmarkGenerate(b *testing.B) {
	for _, name := range []string{"person", "auction", "bid"} {
		b.Run(name, func(b *testing.B) {
			spec := conntest.SourceSpec(b, "CREATE TABLE t ("+colsOf(name)+") WITH ('connector' = 'nexmark', 'nexmark.table' = '"+name+"')", "")
			s, err := NewSource(spec)
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			rows := 0
			for rows < b.N {
				_, batch, err := s.Read(ctx)
				if err != nil {
					b.Fatal(err)
				}
				rows += len(batch)
			}
		})
	}
}

func TestFirstEventTimestamp(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64 // -1: refused
	}{
		{"1767225600000", 1767225600000},
		{"2026-01-01 00:00:00", 1767225600000},
		{"2026-01-01T01:00:00+01:00", 1767225600000},
		{"2026-01-01", 1767225600000},
		{"2026-01-01 00:00", 1767225600000},
		{"yesterday", -1},
		{"0000-01-01 00:00:00", -1},
	} {
		spec := conntest.SourceSpec(t, "CREATE TABLE b ("+bidCols+") WITH ('connector' = 'nexmark', 'first-event.timestamp' = '"+c.in+"')", "")
		cfg, err := ConfigFrom(spec.Options)
		switch {
		case c.want < 0 && err == nil:
			t.Errorf("%q: accepted as %d", c.in, cfg.BaseTime)
		case c.want >= 0 && (err != nil || cfg.BaseTime != c.want):
			t.Errorf("%q: %d, %v; want %d", c.in, cfg.BaseTime, err, c.want)
		}
	}
}

// TestAvgSize: an average event size is a memory size as every size is
// read (settings.ParseMemorySize): what it refuses, check refuses with the
// same words; a size of 1gb or more is refused by the generator.
func TestAvgSize(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int    // bytes, when accepted
		err  string // else what the refusal says
	}{
		{"200", 200, ""},
		{"1 kb", 1024, ""},
		{"2MB", 2 << 20, ""},
		{"1023mb", 1023 << 20, ""},
		{"1gb", 0, "'1gb' is too large for an event"},
		{"1.5kb", 0, "a memory size is a whole number; use a smaller unit"},
		{"lots", 0, "a memory size starts with a whole number"},
		{"5 parsecs", 0, "unknown memory unit 'parsecs'"},
	} {
		ddl := "CREATE TABLE b (" + bidCols + ") WITH ('connector' = 'nexmark', 'bid.avg-size' = '" + c.in + "')"
		j := frontend.CheckJob(diag.NewSource("job.sql", ddl+";"))
		checked := j.Diags.Err()
		if c.err != "" && !strings.Contains(c.err, "too large") {
			if checked == nil || !strings.Contains(checked.Error(), c.err) {
				t.Errorf("%q: check says %v, want %q", c.in, checked, c.err)
			}
			continue
		}
		if checked != nil {
			t.Errorf("%q: refused at check: %v", c.in, checked)
			continue
		}
		cfg, err := ConfigFrom(conntest.SourceSpec(t, ddl, "").Options)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%q: %d, %v; want %q", c.in, cfg.AvgBidSize, err, c.err)
		case c.err == "" && (err != nil || cfg.AvgBidSize != c.want):
			t.Errorf("%q: %d, %v; want %d", c.in, cfg.AvgBidSize, err, c.want)
		}
	}
}
