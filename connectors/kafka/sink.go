package kafka

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/changelogmode"
	"github.com/streamsql/streamsql/exec"
	"github.com/streamsql/streamsql/format"
	"github.com/streamsql/streamsql/row"
)

// DeliveryTimeout is how long the sink's producer keeps retrying a record
// before it fails the job, unless 'properties.delivery.timeout.ms' says
// otherwise (Kafka's own default, two minutes).
var DeliveryTimeout = 2 * time.Minute

// Sink writes one Kafka topic. See the package comment.
type Sink struct {
	set       *settings
	connector string
	topic     string
	enc       format.Encoder
	keyEnc    format.Encoder
	tsCol     int // 'timestamp' metadata column written as the record time; -1
	partition int // 'sink.partitioner' = 'fixed': 0; else -1

	cl      *kgo.Client
	mu      sync.Mutex
	err     error // the first producer error
	written int64
	buf     []byte
}

// NewSink returns the sink of spec.Table. It checks the options and
// formats, but does not connect: Open does.
func NewSink(spec exec.Spec) (*Sink, error) {
	set, err := readSettings(spec)
	if err != nil {
		return nil, err
	}
	c := spec.Table.Config
	s := &Sink{set: set, connector: c.Spec.Name, tsCol: -1, partition: -1}
	fail := func(f string, args ...any) (*Sink, error) {
		return nil, fmt.Errorf("%s: table %s: %s", s.connector, set.table, fmt.Sprintf(f, args...))
	}
	if set.pattern != nil || len(set.topics) != 1 {
		return fail("a sink writes to a single 'topic'")
	}
	s.topic = set.topics[0]
	if g := c.Get("sink.delivery-guarantee"); g == "exactly-once" {
		return fail("'sink.delivery-guarantee' = 'exactly-once' is not supported yet (it needs checkpoints); use 'at-least-once'")
	}
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
// records do.
func (s *Sink) Open(context.Context) error {
	opts := append([]kgo.Opt{kgo.RecordDeliveryTimeout(DeliveryTimeout)}, s.set.opts...)
	opts = append(opts, kgo.DefaultProduceTopic(s.topic))
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return fmt.Errorf("%s: table %s: %w", s.connector, s.set.table, err)
	}
	s.cl = cl
	return nil
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
		s.err = fmt.Errorf("%s: table %s: producing to topic %s: %w", s.connector, s.set.table, s.topic, err)
	}
}

// Write hands each row to the producer: +I (and, for debezium-json, every
// kind) as a record; for upsert-kafka +I and +U as the row keyed by its
// primary key, -D as a tombstone for the key, -U not at all. It returns
// the first producer error seen so far; Flush waits for every record.
func (s *Sink) Write(ctx context.Context, rows row.Batch) error {
	if s.cl == nil {
		return errors.New("kafka: Write before Open")
	}
	if err := s.failed(); err != nil {
		return err
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
		s.cl.Produce(ctx, rec, func(_ *kgo.Record, err error) {
			if err != nil {
				s.fail(err)
			}
		})
	}
	return s.failed()
}

// Flush waits until the brokers acknowledged every record written.
func (s *Sink) Flush(ctx context.Context) error {
	if s.cl == nil {
		return nil
	}
	if err := s.cl.Flush(ctx); err != nil {
		return fmt.Errorf("%s: table %s: flushing topic %s: %w", s.connector, s.set.table, s.topic, err)
	}
	return s.failed()
}

// Close flushes and closes the producer.
func (s *Sink) Close() error {
	if s.cl == nil {
		return nil
	}
	err := s.Flush(context.Background())
	s.cl.Close()
	s.cl = nil
	return err
}

// Written is the number of records handed to the producer.
func (s *Sink) Written() int64 { return s.written }
