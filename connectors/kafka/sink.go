package kafka

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/streamsql/streamsql/changelogmode"
	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/format"
	"github.com/streamsql/streamsql/row"
)

// DeliveryTimeout is how long the sink's producer keeps retrying a record
// before it fails the job, unless 'properties.delivery.timeout.ms' says
// otherwise (Kafka's own default, two minutes).
var DeliveryTimeout = 2 * time.Minute

// Linger is how long the sink's producer waits for more records before it
// sends a partition's batch, unless 'properties.linger.ms' says otherwise.
// franz-go's own default, 10 ms, is most of the time a row takes through a
// job that keeps up (issue #18; docs/performance.md, "Latency"): with 0 a
// batch leaves as soon as the connection is free, and the records that come
// while up to five requests are in flight still go out together, so bulk
// throughput does not drop.
const Linger = 0 * time.Millisecond

// minDeliveryTimeout is the shortest delivery timeout franz-go takes.
const minDeliveryTimeout = time.Second

// Sink writes one Kafka topic. See the package comment.
type Sink struct {
	set       *settings
	connector string
	topic     string
	enc       format.Encoder
	keyEnc    format.Encoder
	tsCol     int // 'timestamp' metadata column written as the record time; -1
	partition int // 'sink.partitioner' = 'fixed': 0; else -1

	// cl produces: the sink's one client, or, exactly-once, the client of
	// the open transaction (nil while none is open).
	cl      *kgo.Client
	opened  bool
	mu      sync.Mutex
	err     error // the first producer error
	written int64
	buf     []byte

	// The stall watchdog. franz-go fails a record on its delivery timeout
	// only before it writes a request or after a response, and never a
	// record of an idempotent producer whose request was in flight when
	// the connection dropped: with the broker gone, Flush (and Produce,
	// once the buffer is full) would wait forever. The watchdog fails the
	// sink when records wait and none was acknowledged or failed for
	// timeout, and cancels pctx, the context of every Produce.
	timeout  time.Duration // 'properties.delivery.timeout.ms'
	health   health
	pctx     context.Context
	pcancel  context.CancelCauseFunc
	stop     chan struct{}
	stopped  sync.WaitGroup
	produced atomic.Int64 // records handed to Produce
	resolved atomic.Int64 // records acknowledged or failed
	acked    atomic.Int64 // records acknowledged
	progress atomic.Int64 // unix nanoseconds of the last ack or failure, or of the first record after none waited

	// Checkpoints (txn.go).
	guarantee   string // 'sink.delivery-guarantee'
	prefix      string // 'sink.transactional-id-prefix'
	txnTimeout  time.Duration
	produceOpts []kgo.Opt   // the options of a producing client
	adm         *kgo.Client // exactly-once: requests outside a transaction
	txnMu       sync.Mutex  // guards pending
	pending     []pendingTxn
	next, curN  int64 // the number of the next transaction, of the open one
	lineage     string
	discard     bool        // a resumed run whose predecessor committed everything: write nothing
	aborting    atomic.Bool // Close aborts the open transaction
	resume      *sinkState  // the state Resume was given
}

// NewSink returns the sink of the table spec describes. It checks the options and
// formats, but does not connect: Open does.
func NewSink(spec connector.Spec) (*Sink, error) {
	set, err := readSettings(spec)
	if err != nil {
		return nil, err
	}
	c := spec.Options
	s := &Sink{set: set, connector: spec.Connector, tsCol: -1, partition: -1}
	fail := func(f string, args ...any) (*Sink, error) {
		return nil, fmt.Errorf("%s: table %s: %s", s.connector, set.table, fmt.Sprintf(f, args...))
	}
	if set.pattern != nil || len(set.topics) != 1 {
		return fail("a sink writes to a single 'topic'")
	}
	s.timeout = DeliveryTimeout
	if v, ok := set.props["delivery.timeout.ms"]; ok {
		n, _ := strconv.ParseInt(v, 10, 64) // clientOptions checked it
		s.timeout = time.Duration(n) * time.Millisecond
	}
	s.topic = set.topics[0]
	s.guarantee = c.Get("sink.delivery-guarantee")
	switch s.guarantee {
	case "none", "at-least-once":
	case "exactly-once":
		s.prefix = c.Get("sink.transactional-id-prefix")
		if s.prefix == "" {
			return fail("'sink.delivery-guarantee' = 'exactly-once' needs 'sink.transactional-id-prefix'")
		}
		if v, ok := set.props["acks"]; ok && v != "all" && v != "-1" {
			return fail("'sink.delivery-guarantee' = 'exactly-once' needs 'properties.acks' = 'all'")
		}
	default:
		return fail("'sink.delivery-guarantee' = '%s': want none, at-least-once or exactly-once", s.guarantee)
	}
	s.txnTimeout = set.txnTimeout
	if set.upsert && (c.Get("sink.buffer-flush.max-rows") != "0" || c.Get("sink.buffer-flush.interval") != "0") {
		return fail("'sink.buffer-flush.*' is not supported yet; the producer batches records itself")
	}
	if s.enc, err = format.NewEncoder(set.valueFormat, set.valueSchema(spec.Schema, false), set.valueOpts); err != nil {
		return fail("value format: %v", err)
	}
	if set.keyFormat != "" {
		if s.keyEnc, err = format.NewEncoder(set.keyFormat, set.keySchema(spec.Schema), set.keyOpts); err != nil {
			return fail("key format: %v", err)
		}
	}
	for i, col := range spec.Schema {
		switch col.MetadataKey {
		case "":
		case "timestamp":
			s.tsCol = i
		default:
			return fail("metadata '%s' of column %s cannot be written; declare it VIRTUAL", col.MetadataKey, col.Name)
		}
	}
	switch c.Get("sink.partitioner") {
	case "fixed":
		s.partition = 0
	case "round-robin":
		set.opts = append(set.opts, kgo.RecordPartitioner(kgo.RoundRobinPartitioner()))
	}
	if s.partition == 0 {
		set.opts = append(set.opts, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	}
	return s, nil
}

// Topic is the topic the sink writes.
func (s *Sink) Topic() string { return s.topic }

// Open creates the producer. It does not wait for the brokers: the first
// records do. ctx bounds the life of the sink: records still waiting when
// it ends are failed.
func (s *Sink) Open(ctx context.Context) error {
	base, err := s.set.clientOpts()
	if err != nil {
		return fmt.Errorf("%s: table %s: %w", s.connector, s.set.table, err)
	}
	opts := append([]kgo.Opt{kgo.RecordDeliveryTimeout(DeliveryTimeout), kgo.ProducerLinger(Linger)}, base...)
	opts = append(opts, kgo.DefaultProduceTopic(s.topic), kgo.WithHooks(&s.health))
	s.produceOpts = opts
	s.health.sec = s.set.sec
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return fmt.Errorf("%s: table %s: %w", s.connector, s.set.table, err)
	}
	if err := s.probe(ctx, cl); err != nil {
		cl.Close()
		return fmt.Errorf("%s: table %s: topic %s: %w", s.connector, s.set.table, s.topic, err)
	}
	if s.guarantee == "exactly-once" {
		// Each transaction gets a client of its own (txn.go); this one
		// only talks to the coordinators.
		s.adm = cl
		if err := s.recover(ctx); err != nil {
			cl.Close()
			return err
		}
	} else {
		s.cl = cl
		if st := s.resume; st != nil && st.Guarantee == "exactly-once" {
			// 'sink.delivery-guarantee' changed since the checkpoint: its
			// transactions still hold rows the resumed job does not write
			// again.
			s.adm = cl
			err := s.commitPending(ctx, st.Pending)
			s.adm = nil
			if err != nil {
				cl.Close()
				s.cl = nil
				return err
			}
		}
	}
	s.opened = true
	s.pctx, s.pcancel = context.WithCancelCause(ctx)
	s.health.watchFatal(func(err error) {
		s.fail(err)
		s.pcancel(err)
	})
	s.stop = make(chan struct{})
	s.stopped.Add(1)
	go s.watch()
	return nil
}

// probe asks the brokers about the topic once, so that what would fail
// every record (wrong credentials, an untrusted certificate, a topic the
// principal may not even describe) fails the job at start. A topic that
// does not exist is not an error here (brokers may create it on the first
// record), and neither are brokers that do not answer within OpenTimeout:
// the delivery timeout bounds those, as it does later.
func (s *Sink) probe(ctx context.Context, cl *kgo.Client) error {
	pctx, cancel := context.WithTimeout(ctx, OpenTimeout)
	defer cancel()
	fctx, stop := context.WithCancelCause(pctx)
	defer stop(nil)
	s.health.watchFatal(stop)
	defer s.health.watchFatal(nil)
	req := kmsg.NewPtrMetadataRequest()
	t := kmsg.NewMetadataRequestTopic()
	t.Topic = kmsg.StringPtr(s.topic)
	req.Topics = append(req.Topics, t)
	resp, err := req.RequestWith(fctx, cl)
	var fe *fatalError
	switch {
	case errors.As(context.Cause(fctx), &fe):
		return fe
	case err != nil:
		if fatal := s.set.sec.classify(err, connState{}); fatal != nil {
			return fatal
		}
		return nil
	}
	for _, rt := range resp.Topics {
		if err := kerr.ErrorForCode(rt.ErrorCode); errors.Is(err, kerr.TopicAuthorizationFailed) {
			return s.set.sec.aclAdvice(err, "write", []string{s.topic}, "")
		}
	}
	return nil
}

// watch fails the sink when records wait and the brokers acknowledged or
// failed none of them for the delivery timeout.
func (s *Sink) watch() {
	defer s.stopped.Done()
	t := time.NewTicker(min(max(s.timeout/4, 10*time.Millisecond), time.Second))
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-s.pctx.Done():
			return
		case <-t.C:
		}
		waiting := s.produced.Load() - s.resolved.Load()
		if waiting <= 0 || time.Since(time.Unix(0, s.progress.Load())) <= s.timeout {
			continue
		}
		err := fmt.Errorf("%d records not acknowledged within %s ('properties.delivery.timeout.ms'): %s",
			waiting, s.timeout, s.health.reason())
		s.fail(err)
		s.pcancel(err)
		return
	}
}

func (s *Sink) failed() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

func (s *Sink) fail(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		err = s.set.sec.aclAdvice(err, "write", []string{s.topic}, "")
		s.err = fmt.Errorf("%s: table %s: producing to topic %s: %w", s.connector, s.set.table, s.topic, err)
	}
}

// Write hands each row to the producer: +I (and, for debezium-json, every
// kind) as a record; for upsert-kafka +I and +U as the row keyed by its
// primary key, -D as a tombstone for the key, -U not at all. It returns
// the first producer error seen so far; Flush waits for every record.
// When the producer's buffer is full Write waits for room, at most until
// the context given to Open ends or the watchdog gives up.
func (s *Sink) Write(_ context.Context, rows row.Batch) error {
	if !s.opened {
		return errors.New("kafka: Write before Open")
	}
	if err := s.failed(); err != nil {
		return err
	}
	if s.discard {
		return nil
	}
	if s.cl == nil { // exactly-once, between transactions
		if err := s.begin(); err != nil {
			return err
		}
	}
	if s.produced.Load() == s.resolved.Load() {
		s.progress.Store(time.Now().UnixNano()) // the first record after none waited
	}
	for _, r := range rows {
		rec := &kgo.Record{Topic: s.topic}
		if s.partition >= 0 {
			rec.Partition = int32(s.partition)
		}
		if s.keyEnc != nil {
			key, err := s.keyEnc.Encode(nil, row.Row{Kind: changelogmode.Insert, Vals: r.Vals})
			if err != nil {
				return fmt.Errorf("%s: table %s: row %d: key: %w", s.connector, s.set.table, s.written+1, err)
			}
			rec.Key = key
		}
		if s.set.upsert {
			switch r.Kind {
			case changelogmode.UpdateBefore:
				continue // the +U that follows replaces the row
			case changelogmode.Delete:
				rec.Value = nil // a tombstone
			default:
				v, err := s.enc.Encode(s.buf[:0], row.Row{Kind: changelogmode.Insert, Vals: r.Vals})
				if err != nil {
					return fmt.Errorf("%s: table %s: row %d: %w", s.connector, s.set.table, s.written+1, err)
				}
				s.buf = v
				rec.Value = slices.Clone(v)
			}
		} else {
			v, err := s.enc.Encode(s.buf[:0], r)
			if err != nil {
				return fmt.Errorf("%s: table %s: row %d: %w", s.connector, s.set.table, s.written+1, err)
			}
			s.buf = v
			rec.Value = slices.Clone(v)
		}
		if s.tsCol >= 0 && !r.Vals[s.tsCol].IsNull() {
			rec.Timestamp = time.UnixMilli(r.Vals[s.tsCol].Int())
		}
		s.written++
		s.produced.Add(1)
		s.cl.Produce(s.pctx, rec, s.promise)
	}
	return s.failed()
}

// promise is called by the producer for every record, in order per
// partition, once it is acknowledged or failed.
func (s *Sink) promise(_ *kgo.Record, err error) {
	s.progress.Store(time.Now().UnixNano())
	switch {
	case err == nil:
		s.acked.Add(1)
	case !s.aborting.Load():
		s.fail(err)
	}
	s.resolved.Add(1)
}

// Acknowledged is the number of records the brokers acknowledged: the
// rows the summary counts as written (connector.Acknowledger). upsert-kafka
// writes one record per row it is given (the runtime drops -U first).
func (s *Sink) Acknowledged() int64 { return s.acked.Load() }

// Flush is called at the end of the input: it waits until the brokers
// acknowledged every record written, or one failed, or the watchdog gave
// up on them; exactly-once, it commits every transaction (txn.go).
func (s *Sink) Flush(ctx context.Context) error {
	if s.guarantee == "exactly-once" && s.opened {
		if err := s.failed(); err != nil {
			return err
		}
		return s.finish(ctx)
	}
	return s.flush(ctx)
}

// flush waits until the brokers acknowledged every record written, or one
// failed, or the watchdog gave up on them.
func (s *Sink) flush(ctx context.Context) error {
	if s.cl == nil {
		return nil
	}
	if err := s.failed(); err != nil {
		return err
	}
	fctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(s.pctx, cancel) // the watchdog gave up
	defer stop()
	if err := s.cl.Flush(fctx); err != nil {
		if ferr := s.failed(); ferr != nil {
			return ferr
		}
		return fmt.Errorf("%s: table %s: flushing topic %s: %w", s.connector, s.set.table, s.topic, err)
	}
	return s.failed()
}

// Close flushes and closes the producer; records still waiting are
// failed. It returns the first error of any record.
func (s *Sink) Close() error {
	if !s.opened {
		return nil
	}
	s.opened = false
	var err error
	switch {
	case s.cl == nil:
	case s.guarantee == "exactly-once":
		// Stopped or failed with a transaction open: a resumed run writes
		// its rows again. Pre-committed ones are left to their checkpoint.
		s.abortOpen()
	case s.cl.BufferedProduceRecords() > 0:
		err = s.flush(context.Background())
	}
	close(s.stop)
	s.stopped.Wait()
	if s.cl != nil {
		s.cl.Close()
		s.cl = nil
	}
	s.txnMu.Lock()
	for _, p := range s.pending {
		p.cl.Close()
	}
	s.pending = nil
	s.txnMu.Unlock()
	if s.adm != nil {
		s.adm.Close()
		s.adm = nil
	}
	s.pcancel(nil)
	if ferr := s.failed(); ferr != nil {
		err = ferr
	}
	return err
}
