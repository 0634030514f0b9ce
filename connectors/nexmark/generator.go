package nexmark

import (
	"math"
	"math/bits"
	"strconv"
)

// The generator proper: a port of the Nexmark reference generator
// (github.com/nexmark/nexmark, nexmark-flink: GeneratorConfig,
// NexmarkGenerator and the Person, Auction, Bid, Strings and Price
// generators). It knows nothing of rows or connectors; source.go turns its
// events into rows.

// Reference constants.
const (
	FirstPersonID   = 1000 // ids start here so that small runs still join
	FirstAuctionID  = 1000
	FirstCategoryID = 10
	numCategories   = 5

	// PersonIDLead and AuctionIDLead: how far ahead of the last generated
	// person or auction a random reference may point (so that a bid may
	// name an auction a little before it appears).
	PersonIDLead  = 10
	AuctionIDLead = 10

	// Hot sellers, bidders and auctions are the first (bidders: the
	// second) of each batch of this many.
	hotSellerBatch  = 100
	hotBidderBatch  = 100
	hotAuctionBatch = 100

	minStringLength = 3
)

// Kind is the kind of an event.
type Kind uint8

// Event kinds.
const (
	Person Kind = iota
	Auction
	Bid
)

func (k Kind) String() string { return [...]string{"person", "auction", "bid"}[k] }

// Config holds the generator's settings (the reference's GeneratorConfig
// and NexmarkConfiguration). The zero value is not usable: start from
// DefaultConfig.
type Config struct {
	PersonProportion, AuctionProportion, BidProportion int64
	// Average sizes in bytes, as the reference counts them: 8 per number,
	// the strings' lengths, and padding in 'extra' to reach the average.
	AvgPersonSize, AvgAuctionSize, AvgBidSize int
	// HotAuctionRatio: all bids but one in this many go to a hot auction
	// (likewise bidders and sellers).
	HotAuctionRatio, HotBiddersRatio, HotSellersRatio int
	NumActivePeople                                   int64
	NumInFlightAuctions                               int64
	// Rate is events per second of event time.
	Rate float64
	// BaseTime is the event time of event 0, in ms since the epoch.
	BaseTime int64
	// Seed is mixed into every event's seed (0 reproduces the defaults).
	Seed uint64
}

// DefaultConfig is the reference's default configuration, with the
// first event on 2026-01-01 00:00:00 UTC.
func DefaultConfig() Config {
	return Config{
		PersonProportion: 1, AuctionProportion: 3, BidProportion: 46,
		AvgPersonSize: 200, AvgAuctionSize: 500, AvgBidSize: 100,
		HotAuctionRatio: 2, HotBiddersRatio: 4, HotSellersRatio: 4,
		NumActivePeople: 1000, NumInFlightAuctions: 100,
		Rate:     10000,
		BaseTime: 1767225600000,
	}
}

func (c *Config) total() int64 { return c.PersonProportion + c.AuctionProportion + c.BidProportion }

// KindOf is the kind of event id: by the id modulo the sum of the
// proportions, people first, then auctions, then bids.
func (c *Config) KindOf(id int64) Kind {
	switch rem := id % c.total(); {
	case rem < c.PersonProportion:
		return Person
	case rem < c.PersonProportion+c.AuctionProportion:
		return Auction
	default:
		return Bid
	}
}

// kindRange is the offsets [lo, hi) within an epoch of total events that
// are of kind k.
func (c *Config) kindRange(k Kind) (lo, hi int64) {
	switch k {
	case Person:
		return 0, c.PersonProportion
	case Auction:
		return c.PersonProportion, c.PersonProportion + c.AuctionProportion
	default:
		return c.PersonProportion + c.AuctionProportion, c.total()
	}
}

// NextOfKind is the smallest event id >= id of kind k, or -1 when k has
// proportion 0.
func (c *Config) NextOfKind(id int64, k Kind) int64 {
	lo, hi := c.kindRange(k)
	if lo == hi {
		return -1
	}
	t := c.total()
	epoch, off := id/t, id%t
	switch {
	case off < lo:
		return epoch*t + lo
	case off < hi:
		return id
	default:
		return (epoch+1)*t + lo
	}
}

// Timestamp is the event time of event number n, in ms: the reference's
// timestampForEvent with one generator and a constant rate.
func (c *Config) Timestamp(n int64) int64 {
	delayUs := 1e6 / c.Rate
	return c.BaseTime + int64(float64(n)*delayUs)/1000
}

// LastBase0PersonID is the last person id (from 0) generated at or
// before event id: the current one if id is a person.
func (c *Config) LastBase0PersonID(id int64) int64 {
	t := c.total()
	epoch, off := id/t, id%t
	if off >= c.PersonProportion {
		off = c.PersonProportion - 1
	}
	return epoch*c.PersonProportion + off
}

// LastBase0AuctionID is the last auction id (from 0) generated at or
// before event id: the current one if id is an auction. It is -1 before
// the first auction.
func (c *Config) LastBase0AuctionID(id int64) int64 {
	t := c.total()
	epoch, off := id/t, id%t
	switch {
	case off < c.PersonProportion:
		epoch--
		off = c.AuctionProportion - 1
	case off >= c.PersonProportion+c.AuctionProportion:
		off = c.AuctionProportion - 1
	default:
		off -= c.PersonProportion
	}
	return epoch*c.AuctionProportion + off
}

// nextBase0PersonID picks a person among the active ones, plus a few
// leads (ids not generated yet).
func (c *Config) nextBase0PersonID(id int64, r *rng) int64 {
	numPeople := c.LastBase0PersonID(id) + 1
	active := min(numPeople, c.NumActivePeople)
	return numPeople - active + r.long(active+PersonIDLead)
}

// nextBase0AuctionID picks an auction among those likely still in flight,
// plus a few leads.
func (c *Config) nextBase0AuctionID(id int64, r *rng) int64 {
	maxA := c.LastBase0AuctionID(id)
	minA := max(maxA-c.NumInFlightAuctions, 0)
	return minA + r.long(maxA-minA+1+AuctionIDLead)
}

// auctionLength is how long an auction runs, in ms: uniform up to twice
// the event time it takes to generate NumInFlightAuctions more auctions.
func (c *Config) auctionLength(n, ts int64, r *rng) int64 {
	events := c.NumInFlightAuctions * c.total() / c.AuctionProportion
	horizon := c.Timestamp(n+events) - ts
	return 1 + r.long(max(horizon*2, 1))
}

// rng is SplitMix64, seeded per event: every event's values depend only on
// its id (and Config.Seed), so runs, splits and restarts agree.
type rng struct{ s uint64 }

func newRNG(id int64, seed uint64) rng {
	r := rng{s: uint64(id)*0x9e3779b97f4a7c15 ^ seed*0xbf58476d1ce4e5b9}
	r.next()
	return r
}

func (r *rng) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// intn is uniform in [0, n), n > 0 (Lemire's multiply-shift).
func (r *rng) intn(n int) int {
	hi, _ := bits.Mul64(r.next(), uint64(n))
	return int(hi)
}

// long is uniform in [0, n), n > 0.
func (r *rng) long(n int64) int64 {
	hi, _ := bits.Mul64(r.next(), uint64(n))
	return int64(hi)
}

// float is uniform in [0, 1).
func (r *rng) float() float64 { return float64(r.next()>>11) / (1 << 53) }

// price is the reference's: 10^(6u) * 100 rounded, so from 100 to 10^8
// with a log-uniform (heavy-tailed) spread.
func (r *rng) price() int64 { return int64(math.Round(math.Exp(r.float()*(6*math.Ln10)) * 100)) }

// appendString appends a random string of 3 to maxLength-1 letters, one in
// 13 of them the special character; with ' ' it is trimmed as Java's trim.
func (r *rng) appendString(b []byte, maxLength int, special byte) []byte {
	n := minStringLength + r.intn(maxLength-minStringLength)
	start := len(b)
	for range n {
		if r.intn(13) == 0 {
			b = append(b, special)
		} else {
			b = append(b, byte('a'+r.intn(26)))
		}
	}
	if special != ' ' {
		return b
	}
	s := b[start:]
	i, j := 0, len(s)
	for i < j && s[i] == ' ' {
		i++
	}
	for j > i && s[j-1] == ' ' {
		j--
	}
	m := copy(b[start:], s[i:j])
	return b[:start+m]
}

// extra is padding such that currentSize plus its length is avg on average
// (uniform within ±20%), cut from one shared random string, so it costs no
// allocation.
func (r *rng) extra(currentSize, avg int) string {
	if currentSize > avg {
		return ""
	}
	want := avg - currentSize
	delta := int(math.Round(float64(want) * 0.2))
	size := want - delta
	if delta > 0 {
		size += r.intn(2 * delta)
	}
	if size > len(padding)/2 {
		size = len(padding) / 2
	}
	off := r.intn(len(padding) - size)
	return padding[off : off+size]
}

// Fixed tables. The reference builds some of them from an unseeded random
// generator; here a fixed seed makes them the same in every run.
var (
	usStates   = []string{"AZ", "CA", "ID", "OR", "WA", "WY"}
	usCities   = []string{"Phoenix", "Los Angeles", "San Francisco", "Boise", "Portland", "Bend", "Redmond", "Seattle", "Kent", "Cheyenne"}
	firstNames = []string{"Peter", "Paul", "Luke", "John", "Saul", "Vicky", "Kate", "Julie", "Sarah", "Deiter", "Walter"}
	lastNames  = []string{"Shultz", "Abrams", "Spencer", "White", "Bartels", "Walton", "Smith", "Jones", "Noris"}

	// fullNames[i*len(lastNames)+j] is first name i and last name j.
	fullNames []string
	// padding: 1 MiB of random letters, the source of every 'extra'.
	padding string

	hotChannels = []string{"Google", "Facebook", "Baidu", "Apple"}
	hotURLs     []string
	// channels and channelURLs: the 10,000 other channels.
	channels, channelURLs []string
)

const numChannels = 10_000

func init() {
	for _, f := range firstNames {
		for _, l := range lastNames {
			fullNames = append(fullNames, f+" "+l)
		}
	}
	r := rng{s: 0x6e65786d61726b} // "nexmark"
	p := make([]byte, 1<<20)
	for i := range p {
		p[i] = byte('a' + r.intn(26))
	}
	padding = string(p)
	for range hotChannels {
		hotURLs = append(hotURLs, baseURL(&r))
	}
	channels = make([]string, numChannels)
	channelURLs = make([]string, numChannels)
	for i := range numChannels {
		u := baseURL(&r)
		if r.intn(10) > 0 {
			rev := int32(bits.Reverse32(uint32(i)))
			if rev < 0 {
				rev = -rev
			}
			u += "&channel_id=" + strconv.Itoa(int(rev))
		}
		channels[i] = "channel-" + strconv.Itoa(i)
		channelURLs[i] = u
	}
}

func baseURL(r *rng) string {
	b := []byte("https://www.nexmark.com/")
	for range 3 {
		b = r.appendString(b, 5, '_')
		b = append(b, '/')
	}
	return string(append(b, "item.htm?query=1"...))
}

// PersonEvent is a person, the reference's Person.
type PersonEvent struct {
	ID                                   int64
	Name, Email, CreditCard, City, State string
	DateTime                             int64
	Extra                                string
}

// AuctionEvent is an auction.
type AuctionEvent struct {
	ID                    int64
	ItemName, Description string
	InitialBid, Reserve   int64
	DateTime, Expires     int64
	Seller, Category      int64
	Extra                 string
}

// BidEvent is a bid.
type BidEvent struct {
	Auction, Bidder, Price int64
	Channel, URL           string
	DateTime               int64
	Extra                  string
}

// Size is the event's size as the reference counts it when padding.
func (p *PersonEvent) Size() int {
	return 8 + len(p.Name) + len(p.Email) + len(p.CreditCard) + len(p.City) + len(p.State) + len(p.Extra)
}

// Size is the event's size as the reference counts it when padding.
func (a *AuctionEvent) Size() int {
	return 8 + len(a.ItemName) + len(a.Description) + 40 + len(a.Extra)
}

// Size is the event's size as the reference counts it when padding
// (channel and url are not counted, as in the reference).
func (b *BidEvent) Size() int { return 32 + len(b.Extra) }

// Generator makes events by id. It holds a scratch buffer, so one
// Generator serves one goroutine.
type Generator struct {
	c   Config
	buf []byte
}

// NewGenerator returns a generator for c.
func NewGenerator(c Config) *Generator { return &Generator{c: c, buf: make([]byte, 0, 256)} }

// Config is the generator's configuration.
func (g *Generator) Config() *Config { return &g.c }

// Person fills p with the person of event id (which must be a person).
// Its strings share one allocation.
func (g *Generator) Person(id int64, p *PersonEvent) {
	c := &g.c
	r := newRNG(id, c.Seed)
	p.ID = c.LastBase0PersonID(id) + FirstPersonID
	p.Name = fullNames[r.intn(len(firstNames))*len(lastNames)+r.intn(len(lastNames))]
	b := g.buf[:0]
	b = r.appendString(b, 7, ' ')
	b = append(b, '@')
	b = r.appendString(b, 5, ' ')
	b = append(b, ".com"...)
	emailEnd := len(b)
	for i := range 4 {
		if i > 0 {
			b = append(b, ' ')
		}
		n := r.intn(10000)
		b = append(b, byte('0'+n/1000), byte('0'+n/100%10), byte('0'+n/10%10), byte('0'+n%10))
	}
	s := string(b)
	g.buf = b
	p.Email, p.CreditCard = s[:emailEnd], s[emailEnd:]
	p.City = usCities[r.intn(len(usCities))]
	p.State = usStates[r.intn(len(usStates))]
	p.DateTime = c.Timestamp(id)
	p.Extra = ""
	p.Extra = r.extra(p.Size(), c.AvgPersonSize)
}

// Auction fills a with the auction of event id (which must be an auction).
func (g *Generator) Auction(id int64, a *AuctionEvent) {
	c := &g.c
	r := newRNG(id, c.Seed)
	ts := c.Timestamp(id)
	a.ID = c.LastBase0AuctionID(id) + FirstAuctionID
	if r.intn(c.HotSellersRatio) > 0 {
		a.Seller = c.LastBase0PersonID(id) / hotSellerBatch * hotSellerBatch
	} else {
		a.Seller = c.nextBase0PersonID(id, &r)
	}
	a.Seller += FirstPersonID
	a.Category = FirstCategoryID + int64(r.intn(numCategories))
	a.InitialBid = r.price()
	a.DateTime = ts
	a.Expires = ts + c.auctionLength(id, ts, &r)
	b := g.buf[:0]
	b = r.appendString(b, 20, ' ')
	nameEnd := len(b)
	b = r.appendString(b, 100, ' ')
	s := string(b)
	g.buf = b
	a.ItemName, a.Description = s[:nameEnd], s[nameEnd:]
	a.Reserve = a.InitialBid + r.price()
	a.Extra = ""
	a.Extra = r.extra(a.Size(), c.AvgAuctionSize)
}

// Bid fills b with the bid of event id (which must be a bid). It allocates
// nothing.
func (g *Generator) Bid(id int64, b *BidEvent) {
	c := &g.c
	r := newRNG(id, c.Seed)
	if r.intn(c.HotAuctionRatio) > 0 {
		b.Auction = c.LastBase0AuctionID(id) / hotAuctionBatch * hotAuctionBatch
	} else {
		b.Auction = c.nextBase0AuctionID(id, &r)
	}
	b.Auction += FirstAuctionID
	if r.intn(c.HotBiddersRatio) > 0 {
		// The second of the batch, so that hot bidders are not hot sellers.
		b.Bidder = c.LastBase0PersonID(id)/hotBidderBatch*hotBidderBatch + 1
	} else {
		b.Bidder = c.nextBase0PersonID(id, &r)
	}
	b.Bidder += FirstPersonID
	b.Price = r.price()
	if r.intn(2) > 0 {
		i := r.intn(len(hotChannels))
		b.Channel, b.URL = hotChannels[i], hotURLs[i]
	} else {
		i := r.intn(numChannels)
		b.Channel, b.URL = channels[i], channelURLs[i]
	}
	b.DateTime = c.Timestamp(id)
	b.Extra = ""
	b.Extra = r.extra(b.Size(), c.AvgBidSize)
}
