package kafka

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/format"
)

func init() {
	for _, name := range []string{"kafka", "upsert-kafka"} {
		connector.RegisterSource(name, func(spec connector.Spec) (connector.Source, error) { return NewSource(spec) })
		connector.RegisterSink(name, func(spec connector.Spec) (connector.Sink, error) { return NewSink(spec) })
	}
}

// skip marks a column a format must neither read nor write: formats leave
// columns with a MetadataKey to the connector.
const skip = "\x00kafka-skip"

// settings are what both directions read from the table.
type settings struct {
	table    string
	upsert   bool
	topics   []string       // 'topic', split at ';'
	pattern  *regexp.Regexp // 'topic-pattern'
	group    string
	props    map[string]string
	opts     []kgo.Opt // client options from 'properties.*', security's excepted
	sec      *security // TLS and SASL, from 'properties.*': sec.options() when opening
	resetEnd bool      // 'properties.auto.offset.reset' = 'latest' (the default)
	resetNo  bool      // 'properties.auto.offset.reset' = 'none'
	// txnTimeout is 'properties.transaction.timeout.ms' (TransactionTimeout
	// by default): how long an exactly-once sink's transaction may stay
	// open before the brokers abort it.
	txnTimeout time.Duration

	valueFormat string
	valueOpts   format.Options
	keyFormat   string // "" without a key format
	keyOpts     format.Options
	keyCols     []int  // indexes into the schema of the key columns
	keyPrefix   string // 'key.fields-prefix'
	exceptKey   bool   // 'value.fields-include' = 'EXCEPT_KEY'
}

func readSettings(spec connector.Spec) (*settings, error) {
	c := spec.Options
	if c == nil {
		return nil, errors.New("kafka: the table has no connector configuration")
	}
	s := &settings{table: spec.Table, upsert: spec.Connector == "upsert-kafka", group: c.Get("properties.group.id")}
	fail := func(f string, args ...any) (*settings, error) {
		return nil, fmt.Errorf("%s: table %s: %s", spec.Connector, spec.Table, fmt.Sprintf(f, args...))
	}
	if c.Has("topic") {
		for _, tp := range strings.Split(c.Get("topic"), ";") {
			if tp = strings.TrimSpace(tp); tp != "" {
				s.topics = append(s.topics, tp)
			}
		}
	}
	if c.Has("topic-pattern") {
		re, err := regexp.Compile("^(?:" + c.Get("topic-pattern") + ")$")
		if err != nil {
			return fail("'topic-pattern': %v", err)
		}
		s.pattern = re
	}
	if len(s.topics) == 0 && s.pattern == nil {
		return fail("needs 'topic' or 'topic-pattern'")
	}
	s.props = c.Prefixed("properties.")
	opts, err := clientOptions(s)
	if err != nil {
		return fail("%v", err)
	}
	s.opts = opts

	// Formats: 'format' is short for 'value.format' (kafka only).
	switch {
	case c.Has("value.format"):
		s.valueFormat, s.valueOpts = c.Get("value.format"), format.Prefixed(c, "value.")
	case c.Has("format"):
		s.valueFormat, s.valueOpts = c.Get("format"), c
	default:
		return fail("needs 'format' (or 'value.format')")
	}
	if c.Has("key.format") {
		s.keyFormat, s.keyOpts = c.Get("key.format"), format.Prefixed(c, "key.")
	}
	s.keyPrefix = c.Get("key.fields-prefix")
	s.exceptKey = c.Get("value.fields-include") == "EXCEPT_KEY"
	index := func(name string) int {
		for i, col := range spec.Schema {
			if col.Name == name {
				return i
			}
		}
		return -1
	}
	if s.upsert {
		for _, name := range spec.PrimaryKey {
			j := index(name)
			if j < 0 {
				return fail("primary key column %s is not in the schema", name)
			}
			s.keyCols = append(s.keyCols, j)
		}
		if len(s.keyCols) == 0 {
			return fail("needs a PRIMARY KEY (...) NOT ENFORCED")
		}
	} else if c.Has("key.fields") {
		for _, name := range strings.Split(c.Get("key.fields"), ";") {
			name = strings.TrimSpace(name)
			j := index(name)
			if j < 0 {
				return fail("'key.fields' names %s, which is not a physical column", name)
			}
			s.keyCols = append(s.keyCols, j)
		}
	}
	if len(s.keyCols) > 0 && s.keyFormat == "" {
		return fail("key columns need 'key.format'")
	}
	return s, nil
}

// clientOpts are the client options, the security's included: the files
// and environment variables those name are read now.
func (s *settings) clientOpts() ([]kgo.Opt, error) {
	sec, err := s.sec.options()
	if err != nil {
		return nil, err
	}
	return append(slices.Clone(s.opts), sec...), nil
}

// isKey reports whether schema column i is a key column.
func (s *settings) isKey(i int) bool { return slices.Contains(s.keyCols, i) }

// keySchema is the schema seen by the key format: the key columns only,
// named without 'key.fields-prefix'.
func (s *settings) keySchema(schema []connector.Column) []connector.Column {
	out := slices.Clone(schema)
	for i := range out {
		if !s.isKey(i) {
			out[i].MetadataKey = skip
			continue
		}
		out[i].Name = strings.TrimPrefix(out[i].Name, s.keyPrefix)
	}
	return out
}

// valueSchema is the schema seen by the value format: the physical
// columns, less the key columns when they are not in the value
// ('value.fields-include' = 'EXCEPT_KEY'). With ALL the value holds them
// and is read whole, as Flink reads it (a csv value has a field for each
// column, in order); a reader then takes the key columns from the key
// whenever there is one.
func (s *settings) valueSchema(schema []connector.Column, _ bool) []connector.Column {
	out := slices.Clone(schema)
	for i := range out {
		if out[i].MetadataKey == "" && s.isKey(i) && s.exceptKey {
			out[i].MetadataKey = skip
		}
	}
	return out
}

// clientOptions maps the 'properties.*' options onto franz-go. A property
// that has no meaning here is refused rather than ignored: a security
// setting that silently did nothing would be worse than an error.
func clientOptions(s *settings) ([]kgo.Opt, error) {
	var opts []kgo.Opt
	var servers []string
	for _, hp := range strings.Split(s.props["bootstrap.servers"], ",") {
		if hp = strings.TrimSpace(hp); hp != "" {
			servers = append(servers, hp)
		}
	}
	if len(servers) == 0 {
		return nil, errors.New("'properties.bootstrap.servers' names no broker")
	}
	opts = append(opts, kgo.SeedBrokers(servers...))
	sec, err := readSecurity(s.props)
	if err != nil {
		return nil, err
	}
	s.sec = sec
	ms := func(k, v string) (time.Duration, error) {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("'properties.%s' = '%s': want milliseconds, a whole number", k, v)
		}
		return time.Duration(n) * time.Millisecond, nil
	}
	bytes := func(k, v string) (int32, error) {
		n, err := strconv.ParseInt(v, 10, 32)
		if err != nil || n <= 0 {
			return 0, fmt.Errorf("'properties.%s' = '%s': want a number of bytes", k, v)
		}
		return int32(n), nil
	}
	s.resetEnd = true
	s.txnTimeout = TransactionTimeout
	keys := make([]string, 0, len(s.props))
	for k := range s.props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if slices.Contains(securityProperties, k) {
			continue // readSecurity's
		}
		v := s.props[k]
		switch k {
		case "bootstrap.servers", "group.id":
		case "client.id":
			opts = append(opts, kgo.ClientID(v))
		case "auto.offset.reset":
			switch strings.ToLower(v) {
			case "earliest":
				s.resetEnd = false
				opts = append(opts, kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
			case "latest":
				opts = append(opts, kgo.ConsumeResetOffset(kgo.NewOffset().AtEnd()))
			case "none":
				s.resetNo = true
				opts = append(opts, kgo.ConsumeResetOffset(kgo.NoResetOffset()))
			default:
				return nil, fmt.Errorf("'properties.auto.offset.reset' = '%s': want earliest, latest or none", v)
			}
		case "isolation.level":
			switch strings.ToLower(v) {
			case "read_committed":
				opts = append(opts, kgo.FetchIsolationLevel(kgo.ReadCommitted()))
			case "read_uncommitted":
			default:
				return nil, fmt.Errorf("'properties.isolation.level' = '%s': want read_committed or read_uncommitted", v)
			}
		case "enable.auto.commit":
			// streamsql commits offsets only after a checkpoint (see the
			// package comment); 'false' says so, 'true' would promise
			// commits that do not happen.
			if !strings.EqualFold(v, "false") {
				return nil, errors.New("'properties.enable.auto.commit' can only be 'false': streamsql commits offsets to 'properties.group.id' after each completed checkpoint, never on a timer")
			}
		case "transaction.timeout.ms":
			d, err := ms(k, v)
			if err != nil {
				return nil, err
			}
			if d < time.Second {
				return nil, fmt.Errorf("'properties.transaction.timeout.ms' = '%s': want at least 1000 (one second)", v)
			}
			s.txnTimeout = d
		case "fetch.max.wait.ms", "linger.ms", "request.timeout.ms", "delivery.timeout.ms":
			d, err := ms(k, v)
			if err != nil {
				return nil, err
			}
			switch k {
			case "fetch.max.wait.ms":
				opts = append(opts, kgo.FetchMaxWait(d))
			case "linger.ms":
				opts = append(opts, kgo.ProducerLinger(d))
			case "request.timeout.ms":
				opts = append(opts, kgo.ProduceRequestTimeout(d))
			case "delivery.timeout.ms":
				if d < minDeliveryTimeout {
					return nil, fmt.Errorf("'properties.delivery.timeout.ms' = '%s': want at least %d (one second)", v, minDeliveryTimeout.Milliseconds())
				}
				opts = append(opts, kgo.RecordDeliveryTimeout(d))
			}
		case "fetch.max.bytes", "max.partition.fetch.bytes", "batch.size":
			n, err := bytes(k, v)
			if err != nil {
				return nil, err
			}
			switch k {
			case "fetch.max.bytes":
				opts = append(opts, kgo.FetchMaxBytes(n))
			case "max.partition.fetch.bytes":
				opts = append(opts, kgo.FetchMaxPartitionBytes(n))
			case "batch.size":
				opts = append(opts, kgo.ProducerBatchMaxBytes(n))
			}
		case "acks":
			switch strings.ToLower(v) {
			case "all", "-1":
			case "1":
				opts = append(opts, kgo.RequiredAcks(kgo.LeaderAck()), kgo.DisableIdempotentWrite())
			case "0":
				opts = append(opts, kgo.RequiredAcks(kgo.NoAck()), kgo.DisableIdempotentWrite())
			default:
				return nil, fmt.Errorf("'properties.acks' = '%s': want all, 1 or 0", v)
			}
		case "enable.idempotence":
			if strings.EqualFold(v, "false") {
				opts = append(opts, kgo.DisableIdempotentWrite())
			}
		case "compression.type":
			var codec kgo.CompressionCodec
			switch strings.ToLower(v) {
			case "none":
				codec = kgo.NoCompression()
			case "gzip":
				codec = kgo.GzipCompression()
			case "snappy":
				codec = kgo.SnappyCompression()
			case "lz4":
				codec = kgo.Lz4Compression()
			case "zstd":
				codec = kgo.ZstdCompression()
			default:
				return nil, fmt.Errorf("'properties.compression.type' = '%s': want none, gzip, snappy, lz4 or zstd", v)
			}
			opts = append(opts, kgo.ProducerBatchCompression(codec))
		default:
			return nil, fmt.Errorf("'properties.%s' is not supported (supported: %s)", k, strings.Join(supportedProperties, ", "))
		}
	}
	return opts, nil
}

// supportedProperties are the Kafka client properties clientOptions maps.
var supportedProperties = append([]string{
	"bootstrap.servers", "group.id", "client.id", "auto.offset.reset", "isolation.level",
	"enable.auto.commit", "fetch.max.wait.ms", "fetch.max.bytes", "max.partition.fetch.bytes", "linger.ms",
	"batch.size", "request.timeout.ms", "delivery.timeout.ms", "acks", "enable.idempotence", "compression.type",
	"transaction.timeout.ms",
}, securityProperties...)

// TransactionTimeout is how long an exactly-once sink's transaction may
// stay open before the brokers abort it, unless
// 'properties.transaction.timeout.ms' says otherwise: 15 minutes, the
// brokers' default 'transaction.max.timeout.ms'. A transaction stays open
// from one checkpoint to the one after and until that one completes; a
// job killed and not restarted holds back read_committed readers of the
// topic for this long.
var TransactionTimeout = 15 * time.Minute
