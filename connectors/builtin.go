package connectors

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/streamsql/streamsql/connectors/faker"
	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/types"
)

func init() {
	Register(filesystemSpec)
	Register(kafkaSpec)
	Register(upsertKafkaSpec)
	Register(datagenSpec)
	Register(fakerSpec)
	Register(printSpec)
	Register(blackholeSpec)
	Register(nexmarkSpec)
	Register(jdbcSpec)
}

// scanOptions are taken by every source: watermark tuning as in Flink, and
// streamsql's dead letter for late rows.
func scanOptions() []OptionSpec {
	return []OptionSpec{
		{Key: "scan.watermark.idle-timeout", Validate: duration,
			Doc: "Mark a split (partition, file) idle after this long without rows, so that it does not hold the watermark back."},
		{Key: "scan.watermark.alignment.group", Validate: nonEmpty,
			Doc: "Sources in the same group pause reading when their watermarks drift apart by more than 'scan.watermark.alignment.max-drift'."},
		{Key: "scan.watermark.alignment.max-drift", Validate: duration,
			Doc: "Largest watermark drift allowed within the alignment group."},
		{Key: "scan.watermark.alignment.update-interval", Default: "1s", Validate: duration,
			Doc: "How often the alignment group compares watermarks."},
		{Key: "scan.watermark.gap-alert", Validate: duration,
			Doc: "streamsql: warn, count an alert and mark the table red in the web UI while its max event time is more than this ahead of its watermark (a split far behind the others)."},
		{Key: "scan.late-rows.path", Validate: localPath,
			Doc: "streamsql: a file to which rows arriving behind the watermark are written, with the reason, " +
				"instead of only being counted and dropped."},
	}
}

func concat(lists ...[]OptionSpec) []OptionSpec {
	var out []OptionSpec
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

var filesystemSpec = &ConnectorSpec{
	Name: "filesystem",
	Doc: "Reads rows from a file, or appends them to one. A source reads the file once and ends (bounded) " +
		"unless 'source.monitor-interval' is set.",
	Options: concat([]OptionSpec{
		{Key: "path", Required: true, Validate: localPath, Example: "/data/clicks.json",
			Doc: "The file to read or write: a path (relative to the job file's directory) or a file:///abs/path URI."},
		{Key: "format", Required: true, Example: "json", Doc: "Row format: json, csv, debezium-json, raw."},
		{Key: "source.monitor-interval", Validate: duration,
			Doc: "Keep watching the path for new data at this interval; the source is then unbounded."},
		{Key: "lookup.join.cache.ttl", Default: "60 min", Validate: duration,
			Doc: "Lookup join: the file is read whole into memory, indexed by the join's keys, and read again when a probe " +
				"comes this long after it was last read (Flink's filesystem lookup source)."},
		{Key: "sink.rolling-policy.file-size", Default: "128MB", Validate: memorySize,
			Doc: "PARTITIONED BY sink: a part file larger than this is closed, and the partition's next row starts a new one."},
		{Key: "sink.rolling-policy.rollover-interval", Default: "30 min", Validate: duration,
			Doc: "PARTITIONED BY sink: a part file open this long is closed (checked every 'sink.rolling-policy.check-interval')."},
		{Key: "sink.rolling-policy.inactivity-interval", Default: "30 min", Validate: duration,
			Doc: "PARTITIONED BY sink: a part file that took no row for this long is closed (checked every 'sink.rolling-policy.check-interval')."},
		{Key: "sink.rolling-policy.check-interval", Default: "1 min", Validate: duration,
			Doc: "PARTITIONED BY sink: how often the time-based rolling policies are checked."},
		{Key: "sink.partition-commit.trigger", Default: "process-time", Choices: []string{"process-time", "partition-time"},
			Doc: "PARTITIONED BY sink: when a partition is committed: when the watermark passes the time extracted from its " +
				"values plus the delay (partition-time), or when the wall clock passes its first row's arrival plus the delay (process-time)."},
		{Key: "sink.partition-commit.delay", Default: "0 s", Validate: duration,
			Doc: "PARTITIONED BY sink: how long after its time a partition is committed ('1 h' for hourly partitions)."},
		{Key: "sink.partition-commit.policy.kind", Validate: commitPolicy, Example: "success-file",
			Doc: "PARTITIONED BY sink: what a commit does: 'success-file' writes an empty success file in the partition's directory."},
		{Key: "sink.partition-commit.success-file.name", Default: "_SUCCESS", Validate: nonEmpty,
			Doc: "PARTITIONED BY sink: the name of the success file."},
		{Key: "sink.partition-commit.watermark-time-zone", Default: "UTC", Validate: nonEmpty,
			Doc: "PARTITIONED BY sink: the time zone of partition times against the watermark; only UTC."},
		{Key: "partition.time-extractor.kind", Default: "default", Choices: []string{"default", "custom"},
			Doc: "How a partition's time is extracted: 'default' reads it with the timestamp pattern; 'custom' (a Java class) is refused."},
		{Key: "partition.time-extractor.timestamp-pattern", Validate: nonEmpty, Example: "$dt $hour:00:00",
			Doc: "The partition's time, from its values: '$dt', '$dt $hour:00:00'; by default the first partition value."},
		{Key: "partition.time-extractor.timestamp-formatter", Validate: nonEmpty, Example: "yyyyMMdd HH",
			Doc: "The Java DateTimeFormatter pattern the timestamp pattern's text is read with (default 'yyyy-MM-dd HH:mm:ss')."},
	}, scanOptions()),
	FormatOptions: []string{"format"},
	Source:        true,
	Sink:          true,
	Lookup:        true,
	SourceEmits:   InsertOnly,
	SinkAccepts:   InsertOnly,
	Bounded:       func(c *Config) bool { return !c.Has("source.monitor-interval") },
}

// kafkaShared are the options kafka and upsert-kafka share.
func kafkaShared() []OptionSpec {
	return concat([]OptionSpec{
		{Key: "topic", Validate: topics, Example: "clicks",
			Doc: "Topic to read or write. A source may name several, separated by ';'."},
		{Key: "topic-pattern", Validate: regex, Doc: "Regular expression naming the topics to read, instead of 'topic'."},
		{Key: "properties.bootstrap.servers", Required: true, Validate: bootstrapServers, Example: "localhost:9092",
			Doc: "Kafka brokers, host:port separated by commas."},
		{Key: "properties.group.id", Validate: nonEmpty, Example: "my-group",
			Doc: "Consumer group of the source; needed when starting from or ending at 'group-offsets'."},
		{Key: "properties.", Prefix: true,
			Doc: "Kafka client settings, passed through without the prefix, e.g. 'properties.security.protocol'."},
		{Key: "key.fields-prefix", Doc: "Prefix of the key columns' names, to tell them from value columns."},
		{Key: "value.fields-include", Default: "ALL", Choices: []string{"ALL", "EXCEPT_KEY"},
			Doc: "Whether the record value holds every column (ALL) or all but the key columns (EXCEPT_KEY)."},
		{Key: "scan.bounded.mode", Default: "unbounded",
			Choices: []string{"unbounded", "latest-offset", "group-offsets", "timestamp", "specific-offsets"},
			Doc:     "Where a source ends: never (unbounded), or at the offsets or time given; a bounded source ends with a final watermark."},
		{Key: "scan.bounded.specific-offsets", Validate: specificOffsets, Example: "partition:0,offset:42",
			Doc: "End offsets (exclusive) for 'specific-offsets': 'partition:0,offset:42;partition:1,offset:300'."},
		{Key: "scan.bounded.timestamp-millis", Validate: wholeNumber(0), Example: "1767225600000",
			Doc: "End time for 'timestamp' bounded mode, in milliseconds since the epoch."},
		{Key: "scan.topic-partition-discovery.interval", Default: "5 min", Validate: duration,
			Doc: "How often a source looks for new partitions and topics."},
		{Key: "scan.broker-timeout", Default: "2 min", Validate: duration,
			Doc: "streamsql: how long a running source waits while no broker answers (connections refused or dropped) " +
				"before the job fails, naming the topics and the last error."},
		{Key: "sink.delivery-guarantee", Default: "at-least-once", Choices: []string{"at-least-once", "exactly-once", "none"},
			Doc: "Delivery guarantee of the sink; 'exactly-once' writes in transactions."},
		{Key: "sink.transactional-id-prefix", Validate: nonEmpty, Example: "streamsql-clicks",
			Doc: "Prefix of the sink's transactional ids; needed for 'exactly-once'."},
		{Key: "sink.parallelism", Validate: wholeNumber(1), Doc: "Parallelism of the sink (accepted for compatibility with Flink job files)."},
	}, kafkaSecurity())
}

var kafkaSpec = &ConnectorSpec{
	Name: "kafka",
	Doc: "Reads records of Kafka topics as rows, or appends rows as records. Insert-only with an " +
		"insert-only format such as json; with 'debezium-json' a source emits, and a sink writes, a full changelog.",
	Options: concat([]OptionSpec{
		{Key: "format", Example: "json", Doc: "Format of record values; short for 'value.format'."},
		{Key: "value.format", Example: "json", Doc: "Format of record values."},
		{Key: "key.format", Example: "json", Doc: "Format of record keys; needs 'key.fields'."},
		{Key: "key.fields", Validate: columnList, Example: "user_id",
			Doc: "Columns read from, and written to, the record key, separated by ';'."},
		{Key: "scan.startup.mode", Default: "group-offsets",
			Choices: []string{"earliest-offset", "latest-offset", "group-offsets", "timestamp", "specific-offsets"},
			Doc:     "Where a source starts reading."},
		{Key: "scan.startup.specific-offsets", Validate: specificOffsets, Example: "partition:0,offset:42",
			Doc: "Start offsets for 'specific-offsets': 'partition:0,offset:42;partition:1,offset:300'."},
		{Key: "scan.startup.timestamp-millis", Validate: wholeNumber(0), Example: "1767225600000",
			Doc: "Start time for 'timestamp' startup mode, in milliseconds since the epoch."},
		{Key: "sink.partitioner", Default: "default", Choices: []string{"default", "fixed", "round-robin"},
			Doc: "How rows are spread over partitions: by key hash (default), one partition per writer (fixed), or round-robin."},
	}, kafkaShared(), scanOptions()),
	FormatOptions: []string{"format", "key.format", "value.format"},
	Source:        true,
	Sink:          true,
	SourceEmits:   InsertOnly,
	SinkAccepts:   InsertOnly,
	Bounded:       kafkaBounded,
	// A key on an insert-only topic promises updates the format cannot say.
	KeyNeedsChangelogFormat: true,
	Check:                   checkKafka,
	CheckSource:             checkKafkaSource,
	CheckSink:               checkKafkaSink,
}

var upsertKafkaSpec = &ConnectorSpec{
	Name: "upsert-kafka",
	Doc: "A Kafka topic as a table keyed by its PRIMARY KEY: a record is an insert or update of its key, a " +
		"record with a null value (a tombstone) a delete. Reads as an upsert changelog, and takes updates and deletes as a sink.",
	Options: concat([]OptionSpec{
		{Key: "key.format", Required: true, Example: "json", Doc: "Format of record keys (the primary key columns)."},
		{Key: "value.format", Required: true, Example: "json", Doc: "Format of record values."},
		{Key: "sink.buffer-flush.max-rows", Default: "0", Validate: wholeNumber(0),
			Doc: "Buffer up to this many rows, keeping only the last per key, before writing; 0 disables buffering."},
		{Key: "sink.buffer-flush.interval", Default: "0", Validate: duration,
			Doc: "Write buffered rows at least this often; 0 disables buffering."},
	}, kafkaShared(), scanOptions()),
	FormatOptions:   []string{"key.format", "value.format"},
	NeedsPrimaryKey: true,
	Source:          true,
	Sink:            true,
	SourceEmits:     Upsert,
	SinkAccepts:     Upsert,
	Bounded:         kafkaBounded,
	Check:           checkUpsertKafka,
	CheckSource:     checkKafkaSource,
	CheckSink:       checkKafkaSink,
}

var datagenSpec = &ConnectorSpec{
	Name: "datagen",
	Doc: "Generates rows: random values, or sequences. Unbounded unless 'number-of-rows' is set or a " +
		"column is a sequence.",
	Options: concat([]OptionSpec{
		{Key: "rows-per-second", Default: "10000", Validate: wholeNumber(1), Doc: "Rows generated per second."},
		{Key: "number-of-rows", Validate: wholeNumber(0), Doc: "Rows to generate in all; the source is then bounded."},
		{Key: "seed", Validate: wholeNumber(0),
			Doc: "streamsql: seed of the random values, so that runs with the same seed generate the same rows " +
				"(timestamps still follow the clock). Without it every run differs."},
		{Key: "fields.#.kind", Default: "random", Choices: []string{"random", "sequence"},
			Doc: "How the column's values are made."},
		{Key: "fields.#.min", Validate: number, Doc: "Smallest random value of a numeric column."},
		{Key: "fields.#.max", Validate: number, Doc: "Largest random value of a numeric column."},
		{Key: "fields.#.max-past", Validate: duration, Doc: "Largest distance into the past of a random timestamp."},
		{Key: "fields.#.length", Validate: wholeNumber(1), Doc: "Length of a random string or byte string; number of elements of an ARRAY or MAP (3 by default)."},
		{Key: "fields.#.var-len", Choices: []string{"true", "false"}, Default: "false",
			Doc: "Whether random strings vary in length up to 'length'."},
		{Key: "fields.#.start", Validate: number, Example: "1", Doc: "First value of a sequence."},
		{Key: "fields.#.end", Validate: number, Example: "1000", Doc: "Last value of a sequence."},
		{Key: "fields.#.null-rate", Validate: fraction, Default: "0", Doc: "Share of NULL values, between 0 and 1."},
	}, scanOptions()),
	Source:      true,
	SourceEmits: InsertOnly,
	Bounded: func(c *Config) bool {
		if c.Has("number-of-rows") {
			return true
		}
		for _, f := range datagenFields(c) {
			if c.Get("fields."+f+".kind") == "sequence" {
				return true
			}
		}
		return false
	},
	Check: checkDatagen,
}

var fakerSpec = &ConnectorSpec{
	Name: "faker",
	Doc: "Generates rows from Java Faker expressions, as the flink-faker connector: every column's " +
		"'fields.<col>.expression'. Unbounded unless 'number-of-rows' is set.",
	Options: concat([]OptionSpec{
		{Key: "rows-per-second", Default: "10000", Validate: wholeNumber(1), Doc: "Rows generated per second."},
		{Key: "number-of-rows", Validate: wholeNumber(0), Doc: "Rows to generate in all; the source is then bounded."},
		{Key: "seed", Validate: wholeNumber(0),
			Doc: "streamsql: seed of the random values, so that runs with the same seed generate the same rows " +
				"(dates still follow the clock). Without it every run differs."},
		{Key: "fields.#.expression", Example: "#{Name.firstName}",
			Doc: "The column's value: text with Java Faker calls #{Provider.method 'arg', ...} (the supported ones are listed in connectors.md)."},
		{Key: "fields.#.null-rate", Validate: fraction, Default: "0", Doc: "Share of NULL values, between 0 and 1."},
		{Key: "fields.#.length", Validate: wholeNumber(1), Default: "1",
			Doc: "The number of elements of an ARRAY column, or of entries of a MAP column (whose entries are " +
				"'fields.<col>.key.expression' and 'fields.<col>.value.expression'), each generated anew."},
	}, scanOptions()),
	Source:       true,
	Lookup:       true,
	SourceEmits:  InsertOnly,
	Bounded:      func(c *Config) bool { return c.Has("number-of-rows") },
	Check:        checkFaker,
	CheckColumns: checkFakerColumns,
}

// checkFakerColumns applies flink-faker's rules about columns: every
// physical column has an expression (a MAP column one for its keys and one
// for its values), 'length' is for ARRAY and MAP columns only, and every
// 'fields.<col>.' option names a column. An option naming a computed or
// metadata column is ignored with a warning: flink-faker generates the
// physical columns only, and the cookbook gives its PROCTIME() columns an
// expression all the same.
func checkFakerColumns(c *Config, cols []TableColumn, l *diag.List) {
	names := make([]string, 0, len(cols))
	for _, col := range cols {
		names = append(names, col.Name)
	}
	for _, k := range c.Keys() {
		rest, ok := strings.CutPrefix(k, "fields.")
		if !ok || c.Spec.option(k) == nil {
			continue // an unknown option, reported by Validate
		}
		// The column is the longest name that rest starts with, then a dot
		// (column names may hold dots when quoted).
		var col *TableColumn
		for i := range cols {
			if strings.HasPrefix(rest, cols[i].Name+".") && (col == nil || len(cols[i].Name) > len(col.Name)) {
				col = &cols[i]
			}
		}
		switch {
		case col == nil:
			d := l.Errorf(diag.UnknownOption, c.Option(k).Key.Span(), "option '%s' names no column of the table", k)
			name := rest
			if i := strings.LastIndexByte(rest, '.'); i > 0 {
				name = rest[:i]
			}
			if sg := diag.Suggest(name, names); sg != "" {
				d.WithHint("did you mean '%s'?", "fields."+sg+"."+rest[len(name)+1:])
			} else {
				d.WithHint("columns: %s", strings.Join(names, ", "))
			}
		case !col.Physical:
			what, hint := "a computed column", "remove the option; the column's value is its expression in CREATE TABLE"
			if !col.Computed {
				what, hint = "a metadata column", "remove the option"
			}
			ineffective(c, l, k, "option '%s' is ignored: column %s is %s, and faker generates only the physical columns, as flink-faker does", k, col.Name, what).
				WithHint("%s", hint)
		default:
			suffix := rest[len(col.Name)+1:]
			allowed := []string{"expression", "null-rate", "length"}
			if col.Type.Kind == types.Map {
				allowed = []string{"key.expression", "value.expression", "null-rate", "length"}
			}
			if !slices.Contains(allowed, suffix) {
				d := l.Errorf(diag.UnknownOption, c.Option(k).Key.Span(), "unknown option '%s' for column %s of connector 'faker'", k, col.Name)
				var cands []string
				for _, a := range allowed {
					cands = append(cands, "fields."+col.Name+"."+a)
				}
				d.WithHint("options of column %s: %s", col.Name, strings.Join(cands, ", "))
				continue
			}
			if suffix == "length" && col.Type.Kind != types.Array && col.Type.Kind != types.Map && c.Get(k) != "1" {
				invalid(c, l, k, "'%s' is for ARRAY and MAP columns; column %s is %s", k, col.Name, col.Type)
			}
		}
	}
	for _, col := range cols {
		if !col.Physical {
			continue
		}
		need := []string{"expression"}
		if col.Type.Kind == types.Map {
			need = []string{"key.expression", "value.expression"}
		}
		for _, n := range need {
			key := "fields." + col.Name + "." + n
			if !c.Has(key) {
				missing(c, l, key, "connector 'faker' needs option '"+key+"': every physical column is generated from an expression", "#{Name.firstName}")
			}
		}
	}
}

// checkFaker parses every expression: an unknown provider is SQL221, with
// the list of supported ones; a known one called wrongly is SQL205.
func checkFaker(c *Config, l *diag.List) {
	for _, f := range datagenFields(c) {
		key := "fields." + f + ".expression"
		if !c.Has(key) {
			continue
		}
		_, err := faker.Parse(c.Get(key))
		var unknown *faker.UnknownError
		switch {
		case errors.As(err, &unknown):
			l.Errorf(diag.FakerExpression, c.Option(key).Value.Span(), "%s: %v", key, err).
				WithHint("supported: %s", strings.Join(faker.Supported(), ", "))
		case err != nil:
			invalid(c, l, key, "%s: %v", key, err)
		}
	}
}

var printSpec = &ConnectorSpec{
	Name: "print",
	Doc:  "Writes every row to standard output (or standard error) with its change kind, +I[...] or -U[...].",
	Options: []OptionSpec{
		{Key: "print-identifier", Doc: "Text printed before every row."},
		{Key: "standard-error", Default: "false", Choices: []string{"true", "false"}, Doc: "Print to standard error."},
		{Key: "sink.parallelism", Validate: wholeNumber(1), Doc: "Parallelism of the sink (accepted for compatibility with Flink job files)."},
	},
	Sink:        true,
	SinkAccepts: AllKinds,
}

var blackholeSpec = &ConnectorSpec{
	Name:        "blackhole",
	Doc:         "Takes every row and discards it: for benchmarks and for trying out a query.",
	Sink:        true,
	SinkAccepts: AllKinds,
}

var nexmarkSpec = &ConnectorSpec{
	Name: "nexmark",
	Doc: "Generates the Nexmark benchmark's online auction events: people, auctions and bids. " +
		"Options are those of the Nexmark Flink connector; 'nexmark.table' picks which events the table holds.",
	Options: concat([]OptionSpec{
		{Key: "nexmark.table", Default: "bid", Choices: []string{"person", "auction", "bid"},
			Doc: "streamsql: which events the table holds. Not given, a table with an event_type column is Nexmark's own DDL: every event, in ROW columns person, auction and bid."},
		{Key: "nexmark.", Prefix: true, Doc: "streamsql generator settings."},
		{Key: "events.num", Validate: wholeNumber(0), Doc: "Events to generate in all; the source is then bounded. 0: unbounded."},
		{Key: "first-event.rate", Default: "10000", Validate: wholeNumber(1), Doc: "Events per second of event time: consecutive events are 1/rate seconds apart in event time (and in wall time when 'rate.limited' is true)."},
		{Key: "next-event.rate", Default: "10000", Validate: wholeNumber(1), Doc: "Accepted for compatibility; as in the Nexmark reference generator, the rate stays at 'first-event.rate'."},
		{Key: "rate.shape", Default: "SQUARE", Choices: []string{"SQUARE", "SINE"}, Doc: "Accepted for compatibility; the rate does not change (see 'next-event.rate')."},
		{Key: "rate.period", Default: "10 min", Validate: duration, Doc: "Accepted for compatibility; the rate does not change (see 'next-event.rate')."},
		{Key: "rate.limited", Default: "false", Choices: []string{"true", "false"}, Doc: "Whether events are held back until their time at 'first-event.rate' in wall time; otherwise they come as fast as they are read."},
		{Key: "person.proportion", Default: "1", Validate: wholeNumber(0), Doc: "Share of person events."},
		{Key: "auction.proportion", Default: "3", Validate: wholeNumber(0), Doc: "Share of auction events."},
		{Key: "bid.proportion", Default: "46", Validate: wholeNumber(0), Doc: "Share of bid events."},
		{Key: "person.avg-size", Default: "200b", Validate: memorySize, Doc: "Average size of a person event."},
		{Key: "auction.avg-size", Default: "500b", Validate: memorySize, Doc: "Average size of an auction event."},
		{Key: "bid.avg-size", Default: "100b", Validate: memorySize, Doc: "Average size of a bid event."},
		{Key: "bid.hot-ratio.auctions", Default: "2", Validate: wholeNumber(1),
			Doc: "All bids but one in this many go to a hot auction."},
		{Key: "bid.hot-ratio.bidders", Default: "4", Validate: wholeNumber(1),
			Doc: "All bids but one in this many come from a hot bidder."},
		{Key: "auction.hot-ratio.sellers", Default: "4", Validate: wholeNumber(1),
			Doc: "All auctions but one in this many come from a hot seller."},
		{Key: "num.active.people", Default: "1000", Validate: wholeNumber(1),
			Doc: "streamsql (Nexmark's numActivePeople): bidders and sellers are drawn from the latest this many people."},
		{Key: "num.in.flight.auctions", Default: "100", Validate: wholeNumber(1),
			Doc: "streamsql (Nexmark's numInFlightAuctions): bids go to the latest this many auctions; it also sets how long auctions run."},
		{Key: "first-event.timestamp", Default: "2026-01-01 00:00:00", Validate: nonEmpty,
			Doc: "streamsql: event time of the first event, as 'YYYY-MM-DD HH:MM:SS[.fff]' (UTC) or milliseconds since the epoch; " +
				"the Nexmark reference uses the wall clock at start, which makes runs differ."},
	}, scanOptions()),
	Source:      true,
	SourceEmits: InsertOnly,
	Bounded: func(c *Config) bool {
		n, err := strconv.ParseInt(c.Get("events.num"), 10, 64)
		return err == nil && n > 0
	},
}

// checkWatermarkOptions applies the rules of scanOptions.
func checkWatermarkOptions(c *Config, l *diag.List) {
	const group, drift, update = "scan.watermark.alignment.group", "scan.watermark.alignment.max-drift",
		"scan.watermark.alignment.update-interval"
	switch {
	case c.Has(group) && !c.Has(drift):
		missing(c, l, drift, "'"+group+"' needs option '"+drift+"'", "1 min")
	case c.Has(drift) && !c.Has(group):
		missing(c, l, group, "'"+drift+"' needs option '"+group+"'", "my-group")
	case c.Has(update) && !c.Has(group):
		ineffective(c, l, update, "option '%s' has no effect without '%s'", update, group)
	}
}

func kafkaBounded(c *Config) bool { return c.Get("scan.bounded.mode") != "unbounded" }

// mode describes a mode option's value for a message, noting a default.
func mode(c *Config, key string) string {
	s := "'" + key + "' = '" + c.Get(key) + "'"
	if !c.Has(key) {
		s += " (the default)"
	}
	return s
}

// checkTopic: exactly one of 'topic' and 'topic-pattern'.
func checkTopic(c *Config, l *diag.List) {
	switch {
	case c.Option("topic") != nil && c.Option("topic-pattern") != nil:
		l.Errorf(diag.InvalidOptionValue, c.Option("topic-pattern").Key.Span(),
			"options 'topic' and 'topic-pattern' cannot both be set").
			WithHint("keep 'topic' to name topics, or 'topic-pattern' to match them")
	case c.Option("topic") == nil && c.Option("topic-pattern") == nil:
		missing(c, l, "topic", "connector '"+c.Spec.Name+"' needs option 'topic' (or 'topic-pattern')", "clicks")
	}
}

// checkScanMode applies the rules of 'scan.startup.mode' or
// 'scan.bounded.mode' (prefix "scan.startup" or "scan.bounded") that hold
// whatever the table's use.
func checkScanMode(c *Config, l *diag.List, prefix, what string) {
	modeKey, tsKey, offKey := prefix+".mode", prefix+".timestamp-millis", prefix+".specific-offsets"
	if c.Option(modeKey) != nil && !c.Has(modeKey) {
		return // invalid value, reported
	}
	m := c.Get(modeKey)
	switch {
	case m == "timestamp" && !c.Has(tsKey) && c.Option(tsKey) == nil:
		missing(c, l, tsKey, "'"+tsKey+"' is required in 'timestamp' "+what+" mode but missing", "1767225600000").
			WithHint("the value is milliseconds since the epoch; 1767225600000 is 2026-01-01T00:00:00Z")
	case m == "specific-offsets" && !c.Has(offKey) && c.Option(offKey) == nil:
		missing(c, l, offKey, "'"+offKey+"' is required in 'specific-offsets' "+what+" mode but missing",
			"partition:0,offset:42;partition:1,offset:300")
	}
	if c.Has(tsKey) {
		if m != "timestamp" {
			ineffective(c, l, tsKey, "option '%s' has no effect: %s, not 'timestamp'", tsKey, mode(c, modeKey)).
				WithHint("add '%s' = 'timestamp' to use it", modeKey)
		}
		checkEpochMillis(c, l, tsKey)
	}
	if c.Has(offKey) && m != "specific-offsets" {
		ineffective(c, l, offKey, "option '%s' has no effect: %s, not 'specific-offsets'", offKey, mode(c, modeKey)).
			WithHint("add '%s' = 'specific-offsets' to use it", modeKey)
	}
}

// checkEpochMillis warns about a timestamp-millis value that is plausible
// as seconds but lands in 1970 as milliseconds.
func checkEpochMillis(c *Config, l *diag.List, key string) {
	n, err := strconv.ParseInt(c.Get(key), 10, 64)
	if err != nil || n <= 0 || n >= 100_000_000_000 { // 1e11 ms is 1973-03-03
		return
	}
	l.Warnf(diag.InvalidOptionValue, c.Option(key).Value.Span(),
		"'%s' = '%d' is %s in milliseconds; it looks like seconds",
		key, n, time.UnixMilli(n).UTC().Format(time.RFC3339)).
		WithHint("write '%d' for %s", n*1000, time.Unix(n, 0).UTC().Format(time.RFC3339))
}

// checkKafka applies kafka's cross-option rules.
func checkKafka(c *Config, l *diag.List) {
	checkTopic(c, l)
	switch {
	case c.Option("format") != nil && c.Option("value.format") != nil:
		l.Errorf(diag.InvalidOptionValue, c.Option("value.format").Key.Span(),
			"options 'format' and 'value.format' cannot both be set: 'format' is short for 'value.format'").
			WithHint("keep one of them")
	case c.Option("format") == nil && c.Option("value.format") == nil:
		missing(c, l, "format", "connector 'kafka' needs option 'format' (or 'value.format')", "json")
	}
	if c.KeyFormat != nil && c.KeyFormat.Changelog {
		invalid(c, l, "key.format", "format '%s' cannot encode record keys: it is a changelog format", c.KeyFormat.Name).
			WithHint("use 'key.format' = 'json' or 'raw'")
	}
	switch {
	case c.Option("key.format") != nil && c.Option("key.fields") == nil:
		missing(c, l, "key.fields", "'key.format' needs option 'key.fields' naming the key columns", "user_id").
			WithHint("separate several columns with ';'")
	case c.Option("key.fields") != nil && c.Option("key.format") == nil:
		missing(c, l, "key.format", "'key.fields' needs option 'key.format' to encode the key", "json")
	}
	checkScanMode(c, l, "scan.startup", "startup")
	checkScanMode(c, l, "scan.bounded", "bounded")
	if c.Has("sink.partitioner") && c.Get("sink.partitioner") == "round-robin" && c.Has("key.fields") {
		invalid(c, l, "sink.partitioner", "the 'round-robin' partitioner only works when 'key.fields' is not set").
			WithHint("records with a key are spread by key hash with 'sink.partitioner' = 'default'")
	}
	checkDelivery(c, l)
	checkKafkaSecurity(c, l)
}

// checkDelivery: 'exactly-once' needs a transactional id prefix.
func checkDelivery(c *Config, l *diag.List) {
	if c.Get("sink.delivery-guarantee") == "exactly-once" && c.Option("sink.transactional-id-prefix") == nil {
		missing(c, l, "sink.transactional-id-prefix",
			"'sink.delivery-guarantee' = 'exactly-once' needs option 'sink.transactional-id-prefix'", "streamsql-"+c.Get("topic"))
	}
}

// checkUpsertKafka applies upsert-kafka's cross-option rules.
func checkUpsertKafka(c *Config, l *diag.List) {
	checkTopic(c, l)
	for _, fk := range []string{"key.format", "value.format"} {
		if f := c.formats[fk]; f != nil && f.Changelog {
			invalid(c, l, fk, "connector 'upsert-kafka' cannot use '%s' as %s: it is a changelog format, "+
				"and upsert-kafka needs an insert-only one", f.Name, strings.TrimSuffix(fk, ".format")+" format").
				WithHint("use '%s' = 'json'; upsert-kafka itself turns records into updates and deletes by key", fk)
		}
	}
	checkScanMode(c, l, "scan.bounded", "bounded")
	const rowsKey, intervalKey = "sink.buffer-flush.max-rows", "sink.buffer-flush.interval"
	if (c.Option(rowsKey) == nil || c.Has(rowsKey)) && (c.Option(intervalKey) == nil || c.Has(intervalKey)) {
		rows, _ := strconv.ParseInt(c.Get(rowsKey), 10, 64)
		interval, _ := c.Duration(intervalKey)
		if (rows > 0) != (interval > 0) {
			key := rowsKey
			if interval > 0 {
				key = intervalKey
			}
			l.Errorf(diag.InvalidOptionValue, c.Option(key).Key.Span(),
				"'%s' and '%s' must be set to be greater than zero together to enable sink buffer flushing", rowsKey, intervalKey).
				WithHint("set both, for example '%s' = '1000' and '%s' = '1 s', or neither", rowsKey, intervalKey)
		}
	}
	checkDelivery(c, l)
	checkKafkaSecurity(c, l)
}

// checkKafkaSource applies the rules that hold when a (upsert-)kafka table
// is read.
func checkKafkaSource(c *Config, l *diag.List) {
	for _, m := range []struct{ key, what string }{{"scan.startup.mode", "startup"}, {"scan.bounded.mode", "bounded"}} {
		if c.Spec.option(m.key) == nil {
			continue
		}
		switch c.Get(m.key) {
		case "group-offsets":
			// Flink accepts this and generates a group id; so do we, but a
			// group nobody committed for starts where Kafka's reset policy
			// says (the latest offset), which is rarely what a join wants.
			if !c.Has("properties.group.id") && m.key == "scan.startup.mode" && c.Has(m.key) {
				l.Warnf(diag.MissingOption, c.With, "%s without 'properties.group.id': a generated consumer group is used, and with no committed offsets reading starts at the latest offset", mode(c, m.key)).
					WithHint("add 'properties.group.id' = 'my-group' to resume from a group's committed offsets").
					WithHint("or set '%s' = 'earliest-offset' to read the topic from the start", m.key)
			} else if !c.Has("properties.group.id") && m.key != "scan.startup.mode" {
				missing(c, l, "properties.group.id", mode(c, m.key)+
					" needs option 'properties.group.id', the consumer group whose committed offsets to use", "my-group")
			}
		case "specific-offsets":
			if !singleTopic(c) {
				invalid(c, l, m.key, "%s mode 'specific-offsets' works with a single 'topic' only", m.what)
			}
		}
	}
}

// checkKafkaSink applies the rules that hold when a (upsert-)kafka table is
// written.
func checkKafkaSink(c *Config, l *diag.List) {
	switch {
	case c.Has("topic-pattern"):
		l.Errorf(diag.InvalidOptionValue, c.Option("topic-pattern").Key.Span(),
			"a sink cannot write to 'topic-pattern'; it needs a single 'topic'")
	case c.Has("topic") && !singleTopic(c):
		invalid(c, l, "topic", "a sink writes to a single topic, but 'topic' names several")
	}
}

func singleTopic(c *Config) bool {
	return c.Has("topic") && !strings.Contains(c.Get("topic"), ";")
}

// datagenFields returns the columns named in 'fields.<column>.<option>'
// keys, in sorted order.
func datagenFields(c *Config) []string {
	seen := map[string]bool{}
	for _, k := range c.Keys() {
		rest, ok := strings.CutPrefix(k, "fields.")
		if i := strings.LastIndexByte(rest, '.'); ok && i > 0 {
			seen[rest[:i]] = true
		}
	}
	return sortedKeys(seen)
}

// checkDatagen: sequences need start and end, in order; min <= max.
func checkDatagen(c *Config, l *diag.List) {
	for _, f := range datagenFields(c) {
		p := "fields." + f + "."
		if c.Get(p+"kind") == "sequence" {
			for _, k := range []string{"start", "end"} {
				if c.Option(p+k) == nil {
					missing(c, l, p+k, "'"+p+"kind' = 'sequence' needs option '"+p+k+"'", map[string]string{"start": "1", "end": "1000"}[k])
				}
			}
		}
		for _, pair := range [][2]string{{"start", "end"}, {"min", "max"}} {
			lo, errLo := strconv.ParseFloat(c.Get(p+pair[0]), 64)
			hi, errHi := strconv.ParseFloat(c.Get(p+pair[1]), 64)
			if c.Has(p+pair[0]) && c.Has(p+pair[1]) && errLo == nil && errHi == nil && lo > hi {
				invalid(c, l, p+pair[1], "'%s%s' = '%s' is below '%s%s' = '%s'", p, pair[1], c.Get(p+pair[1]), p, pair[0], c.Get(p+pair[0]))
			}
		}
	}
}
