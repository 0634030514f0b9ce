package kafka

import (
	"context"
	"errors"
	"fmt"
	"github.com/streamsql/streamsql/civil"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/changelogmode"
	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/format"
	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/types"
)

// BatchRecords is the most records one Read decodes.
const BatchRecords = 1024

// OpenTimeout bounds how long Open waits for the brokers to answer the
// metadata and offset requests that find the partitions and where to start
// and end.
var OpenTimeout = 30 * time.Second

// BrokerTimeout is how long a running source waits while no broker answers
// before Read fails, unless 'scan.broker-timeout' says otherwise.
var BrokerTimeout = 2 * time.Minute

// Source reads Kafka topics. See the package comment.
type Source struct {
	set       *settings
	connector string
	schema    []connector.Column
	width     int
	dec       format.Decoder
	keyDec    format.Decoder
	meta      []metaCol

	startMode, boundMode string
	startMillis          int64
	boundMillis          int64
	startOffsets         map[int32]int64 // 'scan.startup.specific-offsets'
	boundOffsets         map[int32]int64 // 'scan.bounded.specific-offsets'
	brokerTimeout        time.Duration   // 'scan.broker-timeout'
	health               health          // of the consuming client

	cl     *kgo.Client
	base   []kgo.Opt // the client options Open used, to fetch again from a checkpoint (Seek)
	parts  []part
	index  map[string]map[int32]int
	queue  []piece
	doneQ  []int
	left   int // bounded: partitions not done
	opened bool
	keyBuf row.Batch

	groupMu sync.Mutex  // guards groupCl and closed
	groupCl *kgo.Client // commits offsets to 'properties.group.id' (CheckpointComplete)
	closed  bool
	// meters are the splits' figures for metrics (SplitMeter), made by
	// Open and read from any goroutine.
	meters []meter
}

// meter is what a split has read, for metrics: bytes of keys and values
// returned, the offset of the next record Read returns, and the
// partition's high watermark at the last fetch that returned records (-1
// before one).
type meter struct {
	bytes, next, hwm atomic.Int64
}

// part is one split: a partition, where reading started and where it ends.
type part struct {
	topic     string
	partition int32
	start     int64
	end       int64 // exclusive; -1: unbounded
	// next is the offset after the last record Read returned (or skipped):
	// the partition's position in a checkpoint.
	next int64
	done bool
	// paused: watermark alignment holds the partition; its fetched records
	// stay queued until it resumes.
	paused bool
}

// piece is fetched records of one partition not yet returned.
type piece struct {
	split int
	recs  []*kgo.Record
}

type metaCol struct {
	idx int
	key string
	t   types.T
}

// NewSource returns the source of the table spec describes. It checks the options, the
// formats and the metadata columns, but does not connect: Open does.
func NewSource(spec connector.Spec) (*Source, error) {
	set, err := readSettings(spec)
	if err != nil {
		return nil, err
	}
	c := spec.Options
	s := &Source{set: set, connector: spec.Connector, schema: spec.Schema, width: len(spec.Schema),
		startMode: c.Get("scan.startup.mode"), boundMode: c.Get("scan.bounded.mode")}
	fail := func(f string, args ...any) (*Source, error) {
		return nil, fmt.Errorf("%s: table %s: %s", s.connector, set.table, fmt.Sprintf(f, args...))
	}
	if set.upsert {
		// upsert-kafka reads the whole compacted topic, as Flink does.
		s.startMode = "earliest-offset"
	}
	if s.dec, err = format.NewDecoder(set.valueFormat, set.valueSchema(spec.Schema, true), set.valueOpts); err != nil {
		return fail("value format: %v", err)
	}
	if set.keyFormat != "" {
		if s.keyDec, err = format.NewDecoder(set.keyFormat, set.keySchema(spec.Schema), set.keyOpts); err != nil {
			return fail("key format: %v", err)
		}
	}
	for i, col := range spec.Schema {
		switch col.MetadataKey {
		case "":
		case "topic", "partition", "offset", "timestamp", "timestamp-type", "leader-epoch", "key":
			s.meta = append(s.meta, metaCol{idx: i, key: col.MetadataKey, t: col.Type})
		default:
			return fail("metadata '%s' of column %s is not supported yet", col.MetadataKey, col.Name)
		}
	}
	num := func(key string) (int64, error) {
		n, err := strconv.ParseInt(c.Get(key), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("'%s' = '%s' is not a whole number", key, c.Get(key))
		}
		return n, nil
	}
	switch s.startMode {
	case "timestamp":
		if s.startMillis, err = num("scan.startup.timestamp-millis"); err != nil {
			return fail("%v", err)
		}
	case "specific-offsets":
		if s.startOffsets, err = parseOffsets(c.Get("scan.startup.specific-offsets")); err != nil {
			return fail("'scan.startup.specific-offsets': %v", err)
		}
	}
	switch s.boundMode {
	case "timestamp":
		if s.boundMillis, err = num("scan.bounded.timestamp-millis"); err != nil {
			return fail("%v", err)
		}
	case "specific-offsets":
		if s.boundOffsets, err = parseOffsets(c.Get("scan.bounded.specific-offsets")); err != nil {
			return fail("'scan.bounded.specific-offsets': %v", err)
		}
	}
	s.brokerTimeout = BrokerTimeout
	if c.Has("scan.broker-timeout") {
		d, ok := c.Duration("scan.broker-timeout")
		if !ok || d <= 0 {
			return fail("'scan.broker-timeout' = '%s': want a duration such as '2 min'", c.Get("scan.broker-timeout"))
		}
		s.brokerTimeout = d
	}
	if (s.startMode == "specific-offsets" || s.boundMode == "specific-offsets") && len(set.topics) != 1 {
		return fail("'specific-offsets' works with a single 'topic' only")
	}
	if (s.startMode == "group-offsets" && set.resetNo || s.boundMode == "group-offsets") && set.group == "" {
		return fail("'group-offsets' needs 'properties.group.id'")
	}
	return s, nil
}

// parseOffsets reads 'partition:0,offset:42;partition:1,offset:300'.
func parseOffsets(v string) (map[int32]int64, error) {
	out := map[int32]int64{}
	for _, item := range strings.Split(v, ";") {
		if strings.TrimSpace(item) == "" {
			continue
		}
		var p, o int64 = -1, -1
		for _, kv := range strings.Split(item, ",") {
			k, val, ok := strings.Cut(strings.TrimSpace(kv), ":")
			n, err := strconv.ParseInt(strings.TrimSpace(val), 10, 64)
			if !ok || err != nil || n < 0 {
				return nil, fmt.Errorf("%q: want 'partition:N,offset:N'", item)
			}
			switch strings.TrimSpace(k) {
			case "partition":
				p = n
			case "offset":
				o = n
			default:
				return nil, fmt.Errorf("%q: want 'partition:N,offset:N'", item)
			}
		}
		if p < 0 || o < 0 || p > 1<<31-1 {
			return nil, fmt.Errorf("%q: want 'partition:N,offset:N'", item)
		}
		out[int32(p)] = o
	}
	return out, nil
}

// Open finds the partitions, resolves where each starts (and, for a
// bounded read, ends), and starts fetching.
func (s *Source) Open(ctx context.Context) error {
	if s.opened {
		return errors.New("kafka: Open called twice")
	}
	s.opened = true
	tctx, cancel := context.WithTimeout(ctx, OpenTimeout)
	defer cancel()
	// A connection error retrying cannot mend (wrong credentials, an
	// untrusted certificate) ends Open at once, with what to change.
	octx, stop := context.WithCancelCause(tctx)
	defer stop(nil)
	base, err := s.set.clientOpts()
	if err != nil {
		return s.errorf("%v", err)
	}
	admHealth := &health{sec: s.set.sec}
	admHealth.watchFatal(stop)
	admCl, err := kgo.NewClient(append(slices.Clone(base), kgo.WithHooks(admHealth))...)
	if err != nil {
		return s.errorf("%v", err)
	}
	defer admCl.Close()
	adm := kadm.NewClient(admCl)
	if err := s.discover(octx, adm); err != nil {
		return s.wrapOpen(octx, err)
	}
	if err := s.resolve(octx, adm); err != nil {
		return s.wrapOpen(octx, err)
	}
	s.base = base
	s.meters = make([]meter, len(s.parts))
	return s.fetch()
}

// fetch starts fetching every partition that is not done at its start
// offset, with a new consuming client.
func (s *Source) fetch() error {
	if s.cl != nil {
		s.cl.Close()
		s.cl = nil
	}
	s.left = 0
	consume := map[string]map[int32]kgo.Offset{}
	for i := range s.parts {
		p := &s.parts[i]
		p.next = p.start
		s.meters[i].next.Store(p.start)
		s.meters[i].hwm.Store(-1)
		if p.end >= 0 && p.start >= p.end {
			if !p.done {
				p.done = true
				s.doneQ = append(s.doneQ, i)
			}
			continue
		}
		if consume[p.topic] == nil {
			consume[p.topic] = map[int32]kgo.Offset{}
		}
		consume[p.topic][p.partition] = kgo.NewOffset().At(p.start)
		if p.end >= 0 {
			s.left++
		}
	}
	if len(consume) == 0 {
		return nil
	}
	s.health.sec = s.set.sec
	opts := append(slices.Clone(s.base), kgo.ConsumePartitions(consume), kgo.KeepControlRecords(),
		kgo.WithHooks(&s.health))
	var err error
	s.cl, err = kgo.NewClient(opts...)
	if err != nil {
		return s.errorf("%v", err)
	}
	return nil
}

func (s *Source) errorf(f string, args ...any) error {
	return fmt.Errorf("%s: table %s: %s", s.connector, s.set.table, fmt.Sprintf(f, args...))
}

func (s *Source) wrapOpen(ctx context.Context, err error) error {
	var fe *fatalError
	if cause := context.Cause(ctx); errors.As(cause, &fe) {
		return s.errorf("%v", fe)
	}
	if fatal := s.set.sec.classify(err, connState{}); fatal != nil {
		return s.errorf("%v", fatal)
	}
	if errors.As(s.set.sec.aclAdvice(err, "read", s.topicNames(), s.set.group), &fe) {
		return s.errorf("%v", fe)
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return s.errorf("no answer from the brokers %s within %s: %v", s.set.props["bootstrap.servers"], OpenTimeout, err)
	}
	return s.errorf("%v", err)
}

// discover lists the partitions of the topics read. Split numbers follow
// topics in name order, then partitions in number order, so a split is the
// same (topic, partition) in every run over the same topics.
func (s *Source) discover(ctx context.Context, adm *kadm.Client) error {
	var tds kadm.TopicDetails
	var err error
	if s.set.pattern != nil {
		tds, err = adm.ListTopics(ctx)
	} else {
		tds, err = adm.ListTopics(ctx, s.set.topics...)
	}
	if err != nil {
		return fmt.Errorf("listing topics: %w", err)
	}
	var names []string
	if s.set.pattern != nil {
		for _, n := range tds.Names() {
			if s.set.pattern.MatchString(n) {
				names = append(names, n)
			}
		}
		if len(names) == 0 {
			return fmt.Errorf("no topic matches 'topic-pattern' %s", s.set.pattern)
		}
	} else {
		for _, n := range s.set.topics {
			td, ok := tds[n]
			if !ok {
				return fmt.Errorf("topic %s: it does not exist", n)
			}
			if td.Err != nil {
				return fmt.Errorf("topic %s: %w", n, td.Err)
			}
			names = append(names, n)
		}
		slices.Sort(names)
		names = slices.Compact(names)
	}
	s.index = map[string]map[int32]int{}
	for _, n := range names {
		ps := tds[n].Partitions.Numbers()
		slices.Sort(ps)
		s.index[n] = map[int32]int{}
		for _, p := range ps {
			s.index[n][p] = len(s.parts)
			s.parts = append(s.parts, part{topic: n, partition: p, start: -1, end: -1})
		}
	}
	return nil
}

// resolve sets each partition's start and end offsets.
func (s *Source) resolve(ctx context.Context, adm *kadm.Client) error {
	topics := make([]string, 0, len(s.index))
	for t := range s.index {
		topics = append(topics, t)
	}
	var starts, ends, committed map[string]map[int32]int64
	list := func(what string, f func() (kadm.ListedOffsets, error)) (map[string]map[int32]int64, error) {
		l, err := f()
		if err == nil {
			err = l.Error()
		}
		if err != nil {
			return nil, fmt.Errorf("listing %s offsets: %w", what, err)
		}
		out := map[string]map[int32]int64{}
		l.Each(func(o kadm.ListedOffset) {
			if out[o.Topic] == nil {
				out[o.Topic] = map[int32]int64{}
			}
			out[o.Topic][o.Partition] = o.Offset
		})
		return out, nil
	}
	earliest := func() (map[string]map[int32]int64, error) {
		return list("start", func() (kadm.ListedOffsets, error) { return adm.ListStartOffsets(ctx, topics...) })
	}
	latest := func() (map[string]map[int32]int64, error) {
		return list("end", func() (kadm.ListedOffsets, error) { return adm.ListEndOffsets(ctx, topics...) })
	}
	group := func() (map[string]map[int32]int64, error) {
		if committed != nil || s.set.group == "" {
			return committed, nil
		}
		rs, err := adm.FetchOffsets(ctx, s.set.group)
		if err == nil {
			err = rs.Error()
		}
		if err != nil {
			return nil, fmt.Errorf("fetching the offsets of group %s: %w", s.set.group, err)
		}
		committed = map[string]map[int32]int64{}
		rs.Each(func(o kadm.OffsetResponse) {
			if o.At >= 0 {
				if committed[o.Topic] == nil {
					committed[o.Topic] = map[int32]int64{}
				}
				committed[o.Topic][o.Partition] = o.At
			}
		})
		return committed, nil
	}
	var err error
	var startAt map[string]map[int32]int64
	switch s.startMode {
	case "earliest-offset", "specific-offsets":
		startAt, err = earliest()
	case "latest-offset":
		startAt, err = latest()
	case "timestamp":
		startAt, err = list("start", func() (kadm.ListedOffsets, error) {
			return adm.ListOffsetsAfterMilli(ctx, s.startMillis, topics...)
		})
	case "group-offsets":
		var g map[string]map[int32]int64
		if g, err = group(); err != nil {
			return err
		}
		if s.set.resetEnd {
			startAt, err = latest()
		} else {
			startAt, err = earliest()
		}
		if err == nil {
			for i := range s.parts {
				p := &s.parts[i]
				if o, ok := g[p.topic][p.partition]; ok {
					startAt[p.topic][p.partition] = o
				} else if s.set.resetNo {
					return fmt.Errorf("group %s has no committed offset for %s/%d and 'properties.auto.offset.reset' is 'none'",
						s.set.group, p.topic, p.partition)
				}
			}
		}
	default:
		return fmt.Errorf("'scan.startup.mode' = '%s' is not supported", s.startMode)
	}
	if err != nil {
		return err
	}
	starts = startAt
	if s.startMode == "specific-offsets" {
		for p, o := range s.startOffsets {
			if _, ok := s.index[s.set.topics[0]][p]; !ok {
				return fmt.Errorf("'scan.startup.specific-offsets' names partition %d, but topic %s has %d partitions",
					p, s.set.topics[0], len(s.index[s.set.topics[0]]))
			}
			starts[s.set.topics[0]][p] = o
		}
	}
	switch s.boundMode {
	case "unbounded":
	case "latest-offset":
		ends, err = latest()
	case "timestamp":
		ends, err = list("end", func() (kadm.ListedOffsets, error) {
			return adm.ListOffsetsAfterMilli(ctx, s.boundMillis, topics...)
		})
	case "group-offsets":
		ends, err = group()
		for i := range s.parts {
			p := &s.parts[i]
			if _, ok := ends[p.topic][p.partition]; !ok && err == nil {
				err = fmt.Errorf("'scan.bounded.mode' = 'group-offsets': group %s has no committed offset for %s/%d",
					s.set.group, p.topic, p.partition)
			}
		}
	case "specific-offsets":
		if ends, err = latest(); err == nil {
			for p, o := range s.boundOffsets {
				if _, ok := s.index[s.set.topics[0]][p]; !ok {
					return fmt.Errorf("'scan.bounded.specific-offsets' names partition %d, but topic %s has %d partitions",
						p, s.set.topics[0], len(s.index[s.set.topics[0]]))
				}
				ends[s.set.topics[0]][p] = o
			}
		}
	default:
		return fmt.Errorf("'scan.bounded.mode' = '%s' is not supported", s.boundMode)
	}
	if err != nil {
		return err
	}
	for i := range s.parts {
		p := &s.parts[i]
		o, ok := starts[p.topic][p.partition]
		if !ok || o < 0 {
			return fmt.Errorf("no start offset for %s/%d", p.topic, p.partition)
		}
		p.start = o
		if ends != nil {
			e, ok := ends[p.topic][p.partition]
			if !ok || e < 0 {
				return fmt.Errorf("no end offset for %s/%d", p.topic, p.partition)
			}
			p.end = e
		}
	}
	return nil
}

// Splits is the number of partitions found at Open.
func (s *Source) Splits() int { return len(s.parts) }

// Partition returns the topic and partition of a split.
func (s *Source) Partition(split int) (string, int32) {
	return s.parts[split].topic, s.parts[split].partition
}

// Offsets returns where each split started and where it ends (-1:
// unbounded), as resolved by Open.
func (s *Source) Offsets(split int) (start, end int64) {
	return s.parts[split].start, s.parts[split].end
}

// SplitBytes is the bytes of the keys and values of the records of split
// returned so far (SplitMeter).
func (s *Source) SplitBytes(split int) int64 {
	if split < 0 || split >= len(s.meters) {
		return 0
	}
	return s.meters[split].bytes.Load()
}

// SplitLag is Kafka's consumer lag of split: its high watermark at the
// last fetch that returned records of it, minus the offset of the next
// record Read returns (SplitMeter); false before such a fetch.
func (s *Source) SplitLag(split int) (int64, bool) {
	if split < 0 || split >= len(s.meters) {
		return 0, false
	}
	m := &s.meters[split]
	hwm := m.hwm.Load()
	if hwm < 0 {
		return 0, false
	}
	return max(hwm-m.next.Load(), 0), true
}

// PauseSplits stops fetching partitions (watermark alignment). Records
// already fetched for them stay queued, not returned, until they resume.
func (s *Source) PauseSplits(splits []int) {
	for _, i := range splits {
		if i >= 0 && i < len(s.parts) {
			s.parts[i].paused = true
		}
	}
	if s.cl != nil {
		s.cl.PauseFetchPartitions(s.topicParts(splits, false))
	}
}

// ResumeSplits fetches paused partitions again, except those that have
// reached their end.
func (s *Source) ResumeSplits(splits []int) {
	for _, i := range splits {
		if i >= 0 && i < len(s.parts) {
			s.parts[i].paused = false
		}
	}
	if s.cl != nil {
		s.cl.ResumeFetchPartitions(s.topicParts(splits, true))
	}
}

func (s *Source) topicParts(splits []int, skipDone bool) map[string][]int32 {
	m := map[string][]int32{}
	for _, i := range splits {
		if i < 0 || i >= len(s.parts) || skipDone && s.parts[i].done {
			continue
		}
		p := s.parts[i]
		m[p.topic] = append(m[p.topic], p.partition)
	}
	return m
}

// DoneSplits returns the partitions that reached their end offset since
// the last call.
func (s *Source) DoneSplits() []int {
	d := s.doneQ
	s.doneQ = nil
	return d
}

// Read returns the rows of up to BatchRecords records of one partition.
// See the package comment.
func (s *Source) Read(ctx context.Context) (int, row.Batch, error) {
	if !s.opened {
		return 0, nil, errors.New("kafka: Read before Open")
	}
	for {
		if err := ctx.Err(); err != nil {
			return 0, nil, err
		}
		if i := s.ready(); i >= 0 {
			return s.next(i)
		}
		if s.cl == nil || s.bounded() && s.left == 0 {
			return 0, nil, io.EOF
		}
		// A poll ends at least every pollWait, so that a broker that went
		// away is noticed: franz-go itself retries it forever.
		pctx, cancel := context.WithTimeout(ctx, s.pollWait())
		fetches := s.cl.PollRecords(pctx, 4*BatchRecords)
		cancel()
		// Records fetched when ctx ended are queued before anything else:
		// the runtime wakes a quiet source with a deadline, and a poll that
		// returned records just as it passed must not lose them (the next
		// Read returns them; the loop's first line reports ctx's end).
		var ferr error
		fetches.EachError(func(t string, p int32, err error) {
			if ferr == nil && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
				ferr = fmt.Errorf("%s: table %s: fetching %s/%d: %w", s.connector, s.set.table, t, p, err)
			}
		})
		if ferr != nil && ctx.Err() == nil {
			return 0, nil, s.set.sec.aclAdvice(ferr, "read", s.topicNames(), s.set.group)
		}
		if err := s.health.fatal(); err != nil {
			return 0, nil, s.errorf("%v", err)
		}
		fetches.EachPartition(func(fp kgo.FetchTopicPartition) {
			if len(fp.Records) == 0 {
				return
			}
			split, ok := s.index[fp.Topic][fp.Partition]
			if !ok {
				return
			}
			s.queue = append(s.queue, piece{split: split, recs: fp.Records})
			s.meters[split].hwm.Store(fp.HighWatermark)
		})
		if s.ready() >= 0 || ctx.Err() != nil {
			continue
		}
		// Nothing to return (records of paused partitions wait): have the
		// brokers stopped answering?
		if err := s.health.downFor(s.brokerTimeout); err != nil {
			return 0, nil, s.brokersGone(err)
		}
	}
}

// topicNames are the topics read: those found at Open, or those named.
func (s *Source) topicNames() []string {
	if len(s.index) == 0 {
		if s.set.pattern != nil {
			return []string{"matching " + s.set.pattern.String()}
		}
		return s.set.topics
	}
	out := make([]string, 0, len(s.index))
	for t := range s.index {
		out = append(out, t)
	}
	slices.Sort(out)
	return out
}

// pollWait is how long one poll may wait for records.
func (s *Source) pollWait() time.Duration {
	return min(max(s.brokerTimeout/4, 10*time.Millisecond), time.Second)
}

// brokersGone is the error of a source whose brokers stopped answering.
func (s *Source) brokersGone(err error) error {
	topics := make([]string, 0, len(s.index))
	for t := range s.index {
		topics = append(topics, t)
	}
	slices.Sort(topics)
	what := "topic"
	if len(topics) > 1 {
		what = "topics"
	}
	unread := ""
	if s.bounded() {
		unread = fmt.Sprintf(" with %d of %d partitions not read to their end offsets", s.left, len(s.parts))
	}
	return s.errorf("reading %s %s: no answer from the brokers %s for %s ('scan.broker-timeout')%s: %v",
		what, strings.Join(topics, ", "), s.set.props["bootstrap.servers"], s.brokerTimeout, unread, err)
}

func (s *Source) bounded() bool { return s.boundMode != "unbounded" }

// Buffered reports whether Read has fetched records of a partition that is
// not paused still to return (connector.Buffered): the next Read returns
// them without waiting.
func (s *Source) Buffered() bool { return s.ready() >= 0 }

// ready returns the first queued piece of a partition that is not paused,
// or -1.
func (s *Source) ready() int {
	for i, pc := range s.queue {
		if !s.parts[pc.split].paused {
			return i
		}
	}
	return -1
}

// next decodes records of queued piece i.
func (s *Source) next(i int) (int, row.Batch, error) {
	pc := &s.queue[i]
	split := pc.split
	p := &s.parts[split]
	var batch row.Batch
	n := 0
	bytes := 0 // metrics' figures are updated once per call (measure)
	for n < len(pc.recs) && n < BatchRecords {
		r := pc.recs[n]
		n++
		p.next = r.Offset + 1
		if p.done || p.end >= 0 && r.Offset >= p.end {
			continue
		}
		bytes += len(r.Key) + len(r.Value)
		last := p.end >= 0 && r.Offset >= p.end-1
		if last {
			s.finish(split)
		}
		if r.Attrs.IsControl() {
			continue
		}
		if batch == nil {
			batch = make(row.Batch, 0, min(len(pc.recs), BatchRecords))
		}
		var err error
		batch, err = s.decode(batch, r)
		if err != nil {
			s.advance(i, n)
			s.measure(split, bytes)
			return split, batch, &connector.BadRowError{
				Where: r.Topic + "/" + strconv.Itoa(int(r.Partition)) + "/" + strconv.FormatInt(r.Offset, 10),
				Err:   err,
				Raw:   slices.Clone(r.Value),
			}
		}
	}
	s.advance(i, n)
	s.measure(split, bytes)
	return split, batch, nil
}

// measure adds the bytes of records returned from split, and publishes
// where the split's reading is (p.next) for its lag.
func (s *Source) measure(split, bytes int) {
	m := &s.meters[split]
	m.bytes.Add(int64(bytes))
	m.next.Store(s.parts[split].next)
}

// advance drops the first n records of queued piece i.
func (s *Source) advance(i, n int) {
	pc := &s.queue[i]
	pc.recs = pc.recs[n:]
	if len(pc.recs) == 0 {
		if i == 0 {
			s.queue[0] = piece{}
			s.queue = s.queue[1:]
		} else {
			s.queue = slices.Delete(s.queue, i, i+1)
		}
	}
}

// finish marks a partition done and stops fetching it.
func (s *Source) finish(split int) {
	p := &s.parts[split]
	if p.done {
		return
	}
	p.done = true
	s.left--
	s.doneQ = append(s.doneQ, split)
	s.cl.PauseFetchPartitions(map[string][]int32{p.topic: {p.partition}})
}

// decode appends the rows of record r.
func (s *Source) decode(dst row.Batch, r *kgo.Record) (row.Batch, error) {
	n := len(dst)
	var key []row.Value
	if s.keyDec != nil && r.Key != nil {
		var err error
		s.keyBuf, err = s.keyDec.Decode(s.keyBuf[:0], r.Key)
		if err != nil {
			return dst, fmt.Errorf("record key: %w", err)
		}
		if len(s.keyBuf) != 1 {
			return dst, errors.New("record key: it holds no row")
		}
		key = s.keyBuf[0].Vals
	}
	if s.set.upsert {
		if key == nil {
			return dst, errors.New("an upsert-kafka record needs a key (the primary key), and this one has none")
		}
		if r.Value == nil {
			vals := make([]row.Value, s.width)
			for _, i := range s.set.keyCols {
				vals[i] = key[i]
			}
			dst = append(dst, row.Row{Kind: changelogmode.Delete, Vals: vals})
		} else {
			var err error
			if dst, err = s.dec.Decode(dst, r.Value); err != nil {
				return dst, err
			}
			for k := n; k < len(dst); k++ {
				dst[k].Kind = changelogmode.UpdateAfter
			}
		}
	} else {
		var err error
		if dst, err = s.dec.Decode(dst, r.Value); err != nil {
			if r.Value == nil {
				err = fmt.Errorf("the record has no value (a tombstone), which format '%s' cannot read: %w", s.set.valueFormat, err)
			}
			return dst, err
		}
	}
	for k := n; k < len(dst); k++ {
		vals := dst[k].Vals
		if key != nil {
			for _, i := range s.set.keyCols {
				vals[i] = key[i]
			}
		}
		for _, m := range s.meta {
			vals[m.idx] = metaValue(m, r)
		}
	}
	return dst, nil
}

// metaValue is the value of a metadata column for record r, in the
// column's declared type (text for a string column).
func metaValue(m metaCol, r *kgo.Record) row.Value {
	num := func(n int64) row.Value {
		if m.t.IsString() {
			return row.StrValue(strconv.FormatInt(n, 10))
		}
		return row.IntValue(n)
	}
	switch m.key {
	case "topic":
		return row.StrValue(r.Topic)
	case "partition":
		return num(int64(r.Partition))
	case "offset":
		return num(r.Offset)
	case "leader-epoch":
		return num(int64(r.LeaderEpoch))
	case "timestamp":
		ms := r.Timestamp.UnixMilli()
		if m.t.IsString() {
			return row.StrValue(string(civil.AppendTimestamp(nil, ms, 3, ' ')))
		}
		return row.IntValue(ms)
	case "timestamp-type":
		if r.Attrs.TimestampType() == 1 {
			return row.StrValue("LogAppendTime")
		}
		return row.StrValue("CreateTime")
	case "key":
		if r.Key == nil {
			return row.NullValue
		}
		return row.StrValue(string(r.Key))
	}
	return row.NullValue
}

// Close stops fetching. Offsets are committed only after a checkpoint
// (CheckpointComplete): see the package comment.
func (s *Source) Close() error {
	if s.cl != nil {
		s.cl.Close()
		s.cl = nil
	}
	s.groupMu.Lock()
	defer s.groupMu.Unlock()
	s.closed = true
	if s.groupCl != nil {
		s.groupCl.Close()
		s.groupCl = nil
	}
	return nil
}
