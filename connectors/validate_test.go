package connectors

import (
	"fmt"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/ast"
	"github.com/streamsql/streamsql/diag"
)

// clause is a WITH clause built by hand, with the text the spans refer to.
type clause struct {
	text string
	opts []*ast.Option
	with diag.Span
}

// with lays out key/value pairs as `WITH ('k' = 'v', ...)` and gives each
// literal the span of its quoted text, as the parser does.
func with(kv ...string) clause {
	if len(kv)%2 != 0 {
		panic("with: odd number of strings")
	}
	var b strings.Builder
	b.WriteString("WITH (")
	lit := func(s string) *ast.StringLit {
		start := diag.Pos(b.Len())
		b.WriteString("'" + strings.ReplaceAll(s, "'", "''") + "'")
		return &ast.StringLit{Loc: ast.Loc{S: diag.Span{Start: start, End: diag.Pos(b.Len())}}, Value: s}
	}
	var opts []*ast.Option
	for i := 0; i < len(kv); i += 2 {
		if i > 0 {
			b.WriteString(", ")
		}
		start := diag.Pos(b.Len())
		k := lit(kv[i])
		b.WriteString(" = ")
		v := lit(kv[i+1])
		opts = append(opts, &ast.Option{Loc: ast.Loc{S: diag.Span{Start: start, End: v.S.End}}, Key: k, Value: v})
	}
	b.WriteString(")")
	return clause{text: b.String(), opts: opts, with: diag.Span{Start: 0, End: diag.Pos(b.Len())}}
}

// at is the text under a span; the whole clause shows as "WITH".
func (c clause) at(s diag.Span) string {
	if s == c.with {
		return "WITH"
	}
	if !s.IsValid() {
		return "?"
	}
	return c.text[s.Start:s.End]
}

// render prints a diagnostic as `CODE severity at: message`.
func (c clause) render(d *diag.Diagnostic) string {
	return fmt.Sprintf("%s %s %s: %s", d.Code, d.Severity, c.at(d.Span), d.Msg)
}

var (
	kafkaTimestamp = []string{
		"connector", "kafka", "topic", "clicks", "properties.bootstrap.servers", "localhost:9092",
		"scan.startup.mode", "timestamp", "scan.startup.timestamp-millis", "1767225600000", "format", "json",
	}
	upsertRates = []string{
		"connector", "upsert-kafka", "topic", "rates", "properties.bootstrap.servers", "localhost:9092",
		"key.format", "json", "value.format", "json",
	}
)

func TestValidateValid(t *testing.T) {
	tests := []struct {
		name string
		kv   []string
	}{
		{"kafka from a timestamp", kafkaTimestamp},
		{"upsert-kafka", upsertRates},
		{"filesystem json", []string{"connector", "filesystem", "path", "/data/orders.json", "format", "json"}},
		{"filesystem debezium-json", []string{"connector", "filesystem", "path", "/data/cdc.json", "format", "debezium-json",
			"debezium-json.schema-include", "true", "debezium-json.ignore-parse-errors", "false"}},
		{"filesystem csv", []string{"connector", "filesystem", "path", "in.csv", "format", "csv",
			"csv.field-delimiter", `\t`, "csv.ignore-parse-errors", "true", "source.monitor-interval", "10 s",
			"scan.late-rows.path", "/tmp/late.jsonl"}},
		{"kafka with group and watermark options", []string{"connector", "kafka", "topic", "a;b",
			"properties.bootstrap.servers", "k1:9092,k2:9092", "properties.group.id", "g", "properties.security.protocol", "PLAINTEXT",
			"scan.startup.mode", "EARLIEST-OFFSET", "scan.bounded.mode", "latest-offset", "format", "json",
			"json.timestamp-format.standard", "iso-8601", "json.fail-on-missing-field", "TRUE",
			"scan.watermark.idle-timeout", "30 s", "scan.watermark.alignment.group", "g1",
			"scan.watermark.alignment.max-drift", "1 min", "scan.watermark.alignment.update-interval", "100ms"}},
		{"kafka key and value", []string{"connector", "kafka", "topic-pattern", "clicks-.*",
			"properties.bootstrap.servers", "localhost:9092", "key.format", "raw", "key.fields", "user_id",
			"value.format", "debezium-json", "value.fields-include", "EXCEPT_KEY", "key.raw.charset", "UTF-8",
			"value.debezium-json.schema-include", "false", "scan.startup.mode", "specific-offsets",
			"scan.startup.specific-offsets", "partition:0,offset:42;partition:1,offset:300"}},
		{"kafka exactly-once sink", []string{"connector", "kafka", "topic", "out", "properties.bootstrap.servers", "[::1]:9092",
			"format", "csv", "sink.delivery-guarantee", "exactly-once", "sink.transactional-id-prefix", "job-1",
			"sink.partitioner", "round-robin"}},
		{"upsert-kafka buffered", append(append([]string{}, upsertRates...),
			"sink.buffer-flush.max-rows", "1000", "sink.buffer-flush.interval", "1s", "key.json.ignore-parse-errors", "true")},
		{"datagen", []string{"connector", "datagen", "rows-per-second", "5", "number-of-rows", "100",
			"fields.id.kind", "sequence", "fields.id.start", "1", "fields.id.end", "100",
			"fields.name.length", "10", "fields.amount.min", "0.5", "fields.amount.max", "99.5",
			"fields.ts.max-past", "5 min", "fields.user.id.null-rate", "0.1"}},
		{"print", []string{"connector", "print", "print-identifier", "out", "standard-error", "false"}},
		{"blackhole", []string{"connector", "blackhole"}},
		{"nexmark", []string{"connector", "nexmark", "nexmark.table", "auction", "events.num", "1000",
			"first-event.rate", "100", "nexmark.seed", "7", "rate.period", "11 min", "bid.avg-size", "1kb"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := with(tt.kv...)
			var l diag.List
			cfg, ok := Validate(c.opts, c.with, &l)
			for _, d := range l.Items {
				t.Errorf("unexpected %s", c.render(d))
			}
			if !ok || cfg == nil {
				t.Fatalf("Validate = %v, %v; want a config and true", cfg, ok)
			}
			if cfg.Spec.Name != tt.kv[1] {
				t.Errorf("Spec = %s, want %s", cfg.Spec.Name, tt.kv[1])
			}
		})
	}
}

// want is an expected diagnostic: `CODE severity at: message`, and a
// substring of one of its hints ("" to skip).
type want struct {
	diag string
	hint string
}

func TestValidateErrors(t *testing.T) {
	tests := []struct {
		name string
		kv   []string
		want []want
	}{
		{
			"no connector",
			[]string{"topic", "clicks"},
			[]want{{"SQL203 error WITH: missing option 'connector': the WITH clause must name the connector that reads or writes the table",
				"add 'connector' = '...', one of 'blackhole', 'datagen', 'faker', 'filesystem', 'jdbc', 'kafka', 'nexmark', 'print', 'upsert-kafka'"}},
		},
		{
			"misspelled connector",
			[]string{"connector", "kafak", "topic", "clicks"},
			[]want{{"SQL202 error 'kafak': unknown connector 'kafak'", "did you mean 'kafka'?"}},
		},
		{
			"connector in the wrong case",
			[]string{"connector", "Kafka"},
			[]want{{"SQL202 error 'Kafka': unknown connector 'Kafka'", "did you mean 'kafka'?"}},
		},
		{
			"unknown connector lists the known ones",
			[]string{"connector", "cassandra"},
			[]want{{"SQL202 error 'cassandra': unknown connector 'cassandra'",
				"known connectors: blackhole, datagen, faker, filesystem, jdbc, kafka, nexmark, print, upsert-kafka"}},
		},
		{
			"duplicate option",
			[]string{"connector", "blackhole", "connector", "print"},
			[]want{{"SQL215 error 'connector': option 'connector' is given twice", "remove one of them"}},
		},
		{
			"jdbc without url and table",
			[]string{"connector", "jdbc"},
			[]want{{"SQL203 error WITH: connector 'jdbc' needs option 'url'", "add 'url' = 'jdbc:postgresql://localhost:5432/shop'"},
				{"SQL203 error WITH: connector 'jdbc' needs option 'table-name'", "add 'table-name' = 'ledger'"}},
		},
		{
			"jdbc url of another database",
			[]string{"connector", "jdbc", "url", "jdbc:oracle://h:1521/db", "table-name", "t"},
			[]want{{"SQL205 error 'jdbc:oracle://h:1521/db': invalid value 'jdbc:oracle://h:1521/db' for option 'url': database 'oracle' is not supported: must be jdbc:postgresql://HOST[:PORT]/DATABASE or jdbc:mysql://HOST[:PORT]/DATABASE", ""}},
		},
		{
			"jdbc url parameter",
			[]string{"connector", "jdbc", "url", "jdbc:mysql://h/db?useSSL=false", "table-name", "t"},
			[]want{{"SQL205 error 'jdbc:mysql://h/db?useSSL=false': invalid value 'jdbc:mysql://h/db?useSSL=false' for option 'url': parameter 'useSSL' is not supported for mysql; this build takes 'connectTimeout'", ""}},
		},
		{
			"jdbc url without a database",
			[]string{"connector", "jdbc", "url", "jdbc:postgresql://h:5432/", "table-name", "t"},
			[]want{{"SQL205 error 'jdbc:postgresql://h:5432/': invalid value 'jdbc:postgresql://h:5432/' for option 'url': names no database: must be jdbc:postgresql://HOST[:PORT]/DATABASE or jdbc:mysql://HOST[:PORT]/DATABASE", ""}},
		},
		{
			"jdbc partition options come together",
			[]string{"connector", "jdbc", "url", "jdbc:postgresql://h/db", "table-name", "t", "scan.partition.column", "id"},
			[]want{{"SQL203 error WITH: 'scan.partition.column' needs option 'scan.partition.num': the 'scan.partition.*' options are given all together or not at all", "add 'scan.partition.num' = '4'"}},
		},
		{
			"jdbc partition bounds in order",
			[]string{"connector", "jdbc", "url", "jdbc:postgresql://h/db", "table-name", "t", "scan.partition.column", "id",
				"scan.partition.num", "2", "scan.partition.lower-bound", "10", "scan.partition.upper-bound", "5"},
			[]want{{"SQL205 error '5': 'scan.partition.upper-bound' = '5' is below 'scan.partition.lower-bound' = '10'", ""}},
		},
		{
			"jdbc legacy lookup cache options come together",
			[]string{"connector", "jdbc", "url", "jdbc:postgresql://h/db", "table-name", "t", "lookup.cache.max-rows", "100"},
			[]want{{"SQL203 error WITH: 'lookup.cache.max-rows' needs option 'lookup.cache.ttl': the legacy lookup cache options are given together", "add 'lookup.cache.ttl' = '10min'"}},
		},
		{
			"jdbc partial cache option without PARTIAL",
			[]string{"connector", "jdbc", "url", "jdbc:postgresql://h/db", "table-name", "t", "lookup.partial-cache.max-rows", "100"},
			[]want{{"SQL205 error '100': 'lookup.partial-cache.max-rows' takes effect only with 'lookup.cache' = 'PARTIAL'", ""}},
		},
		{
			"jdbc PARTIAL cache without a bound, and with a legacy option",
			[]string{"connector", "jdbc", "url", "jdbc:postgresql://h/db", "table-name", "t", "lookup.cache", "partial",
				"lookup.cache.ttl", "1h", "lookup.cache.max-rows", "5"},
			[]want{
				{"SQL205 error '5': 'lookup.cache.max-rows' is the legacy form of the lookup cache; with 'lookup.cache' = 'PARTIAL' use the 'lookup.partial-cache.*' options", ""},
				{"SQL205 error '1h': 'lookup.cache.ttl' is the legacy form of the lookup cache; with 'lookup.cache' = 'PARTIAL' use the 'lookup.partial-cache.*' options", ""},
				{"SQL205 error 'partial': 'lookup.cache' = 'PARTIAL' needs 'lookup.partial-cache.max-rows', 'lookup.partial-cache.expire-after-write' or 'lookup.partial-cache.expire-after-access': a cache without any bound grows without bound", ""},
			},
		},
		{
			"kafka without brokers",
			[]string{"connector", "kafka", "topic", "clicks", "format", "json", "scan.startup.mode", "earliest-offset"},
			[]want{{"SQL203 error WITH: connector 'kafka' needs option 'properties.bootstrap.servers'",
				"add 'properties.bootstrap.servers' = 'localhost:9092'"}},
		},
		{
			"kafka without topic",
			[]string{"connector", "kafka", "properties.bootstrap.servers", "localhost:9092", "format", "json"},
			[]want{{"SQL203 error WITH: connector 'kafka' needs option 'topic' (or 'topic-pattern')", "add 'topic' = 'clicks'"}},
		},
		{
			"kafka with topic and pattern",
			[]string{"connector", "kafka", "topic", "a", "topic-pattern", "a.*", "properties.bootstrap.servers", "localhost:9092", "format", "json"},
			[]want{{"SQL205 error 'topic-pattern': options 'topic' and 'topic-pattern' cannot both be set", ""}},
		},
		{
			"kafka without format",
			[]string{"connector", "kafka", "topic", "a", "properties.bootstrap.servers", "localhost:9092"},
			[]want{{"SQL203 error WITH: connector 'kafka' needs option 'format' (or 'value.format')", "add 'format' = 'json'"}},
		},
		{
			"kafka with format and value.format",
			[]string{"connector", "kafka", "topic", "a", "properties.bootstrap.servers", "localhost:9092",
				"format", "json", "value.format", "json"},
			[]want{{"SQL205 error 'value.format': options 'format' and 'value.format' cannot both be set: 'format' is short for 'value.format'", ""}},
		},
		{
			"misspelled option",
			append(append([]string{}, kafkaTimestamp...), "scan.startup.mod", "latest-offset"),
			[]want{{"SQL204 error 'scan.startup.mod': unknown option 'scan.startup.mod' for connector 'kafka'",
				"did you mean 'scan.startup.mode'?"}},
		},
		{
			"kafka client setting without its prefix",
			[]string{"connector", "kafka", "topic", "a", "bootstrap.servers", "localhost:9092", "format", "json",
				"scan.startup.mode", "earliest-offset"},
			[]want{
				{"SQL204 error 'bootstrap.servers': unknown option 'bootstrap.servers' for connector 'kafka'",
					"did you mean 'properties.bootstrap.servers'?"},
				{"SQL203 error WITH: connector 'kafka' needs option 'properties.bootstrap.servers'", ""},
			},
		},
		{
			"kafka client setting far from any option",
			append(append([]string{}, kafkaTimestamp...), "client.id", "jobs"),
			[]want{{"SQL204 error 'client.id': unknown option 'client.id' for connector 'kafka'",
				"write it as 'properties.client.id'"}},
		},
		{
			"bad startup mode",
			[]string{"connector", "kafka", "topic", "a", "properties.bootstrap.servers", "localhost:9092", "format", "json",
				"scan.startup.mode", "earliest"},
			[]want{{"SQL205 error 'earliest': invalid value 'earliest' for option 'scan.startup.mode': must be one of " +
				"'earliest-offset', 'latest-offset', 'group-offsets', 'timestamp', 'specific-offsets'",
				"did you mean 'earliest-offset'?"}},
		},
		{
			"timestamp mode without millis",
			[]string{"connector", "kafka", "topic", "a", "properties.bootstrap.servers", "localhost:9092", "format", "json",
				"scan.startup.mode", "timestamp"},
			[]want{{"SQL203 error WITH: 'scan.startup.timestamp-millis' is required in 'timestamp' startup mode but missing",
				"add 'scan.startup.timestamp-millis' = '1767225600000'"}},
		},
		{
			"bounded timestamp mode without millis",
			[]string{"connector", "kafka", "topic", "a", "properties.bootstrap.servers", "localhost:9092", "format", "json",
				"scan.startup.mode", "earliest-offset", "scan.bounded.mode", "timestamp"},
			[]want{{"SQL203 error WITH: 'scan.bounded.timestamp-millis' is required in 'timestamp' bounded mode but missing", ""}},
		},
		{
			"specific offsets mode without offsets",
			[]string{"connector", "kafka", "topic", "a", "properties.bootstrap.servers", "localhost:9092", "format", "json",
				"scan.startup.mode", "specific-offsets"},
			[]want{{"SQL203 error WITH: 'scan.startup.specific-offsets' is required in 'specific-offsets' startup mode but missing",
				"partition:0,offset:42"}},
		},
		{
			"bad specific offsets",
			[]string{"connector", "kafka", "topic", "a", "properties.bootstrap.servers", "localhost:9092", "format", "json",
				"scan.startup.mode", "specific-offsets", "scan.startup.specific-offsets", "0:42"},
			[]want{{"SQL205 error '0:42': invalid value '0:42' for option 'scan.startup.specific-offsets': must list " +
				"'partition:<n>,offset:<n>' separated by ';', for example 'partition:0,offset:42;partition:1,offset:300'; '0:42' is not of that form", ""}},
		},
		{
			"timestamp in seconds",
			[]string{"connector", "kafka", "topic", "a", "properties.bootstrap.servers", "localhost:9092", "format", "json",
				"scan.startup.mode", "timestamp", "scan.startup.timestamp-millis", "1767225600"},
			[]want{{"SQL205 warning '1767225600': 'scan.startup.timestamp-millis' = '1767225600' is 1970-01-21T10:53:45Z in milliseconds; it looks like seconds",
				"write '1767225600000' for 2026-01-01T00:00:00Z"}},
		},
		{
			"timestamp without timestamp mode",
			[]string{"connector", "kafka", "topic", "a", "properties.bootstrap.servers", "localhost:9092", "format", "json",
				"scan.startup.timestamp-millis", "1767225600000"},
			[]want{{"SQL205 warning 'scan.startup.timestamp-millis': option 'scan.startup.timestamp-millis' has no effect: " +
				"'scan.startup.mode' = 'group-offsets' (the default), not 'timestamp'",
				"add 'scan.startup.mode' = 'timestamp' to use it"}},
		},
		{
			"negative timestamp",
			[]string{"connector", "kafka", "topic", "a", "properties.bootstrap.servers", "localhost:9092", "format", "json",
				"scan.startup.mode", "timestamp", "scan.startup.timestamp-millis", "-5"},
			[]want{{"SQL205 error '-5': invalid value '-5' for option 'scan.startup.timestamp-millis': must be at least 0", ""}},
		},
		{
			"bad brokers",
			[]string{"connector", "kafka", "topic", "a", "properties.bootstrap.servers", "localhost", "format", "json"},
			[]want{{"SQL205 error 'localhost': invalid value 'localhost' for option 'properties.bootstrap.servers': " +
				"must be a comma-separated list of host:port, for example 'localhost:9092'; 'localhost' is not host:port", ""}},
		},
		{
			"misspelled broker option",
			[]string{"connector", "kafka", "topic", "a", "properties.bootstrap.server", "localhost:9092", "format", "json"},
			[]want{{"SQL203 error WITH: connector 'kafka' needs option 'properties.bootstrap.servers'", ""}},
		},
		{
			"unknown format",
			[]string{"connector", "filesystem", "path", "a.json", "format", "jsn"},
			[]want{{"SQL213 error 'jsn': unknown format 'jsn'", "did you mean 'json'?"}},
		},
		{
			"unknown format lists the known ones",
			[]string{"connector", "filesystem", "path", "a.avro", "format", "avro"},
			[]want{{"SQL213 error 'avro': unknown format 'avro'", "known formats: csv, debezium-json, json, raw"}},
		},
		{
			"misspelled format option",
			[]string{"connector", "filesystem", "path", "a.json", "format", "json", "json.ignore-parse-error", "true"},
			[]want{{"SQL204 error 'json.ignore-parse-error': unknown option 'json.ignore-parse-error' for format 'json'",
				"did you mean 'json.ignore-parse-errors'?"}},
		},
		{
			"option of another format",
			[]string{"connector", "filesystem", "path", "a.json", "format", "json", "csv.field-delimiter", ";"},
			[]want{{"SQL204 error 'csv.field-delimiter': unknown option 'csv.field-delimiter' for connector 'filesystem'",
				"'csv.field-delimiter' is an option of format 'csv', but 'format' is 'json'"}},
		},
		{
			"key format option without key format",
			[]string{"connector", "kafka", "topic", "a", "properties.bootstrap.servers", "localhost:9092", "format", "json",
				"key.json.ignore-parse-errors", "true"},
			[]want{{"SQL204 error 'key.json.ignore-parse-errors': unknown option 'key.json.ignore-parse-errors' for connector 'kafka'",
				"which is only used with 'key.format' = 'json'"}},
		},
		{
			"bad boolean",
			[]string{"connector", "filesystem", "path", "a.json", "format", "json", "json.ignore-parse-errors", "yes"},
			[]want{{"SQL205 error 'yes': invalid value 'yes' for option 'json.ignore-parse-errors': must be one of 'true', 'false'", ""}},
		},
		{
			"bad csv delimiter",
			[]string{"connector", "filesystem", "path", "a.csv", "format", "csv", "csv.field-delimiter", ";;"},
			[]want{{`SQL205 error ';;': invalid value ';;' for option 'csv.field-delimiter': must be a single character, or an escape such as '\t'`, ""}},
		},
		{
			"filesystem without path and format",
			[]string{"connector", "filesystem"},
			[]want{
				{"SQL203 error WITH: connector 'filesystem' needs option 'path'", "add 'path' = '/data/clicks.json'"},
				{"SQL203 error WITH: connector 'filesystem' needs option 'format'", "add 'format' = 'json'"},
			},
		},
		{
			"bad duration",
			[]string{"connector", "filesystem", "path", "a.json", "format", "json", "scan.watermark.idle-timeout", "5 mins"},
			[]want{{"SQL205 error '5 mins': invalid value '5 mins' for option 'scan.watermark.idle-timeout': unknown time unit 'mins'; use ms, s, min, h or d", ""}},
		},
		{
			"alignment group without drift",
			[]string{"connector", "filesystem", "path", "a.json", "format", "json", "scan.watermark.alignment.group", "g"},
			[]want{{"SQL203 error WITH: 'scan.watermark.alignment.group' needs option 'scan.watermark.alignment.max-drift'",
				"add 'scan.watermark.alignment.max-drift' = '1 min'"}},
		},
		{
			"upsert-kafka without formats",
			[]string{"connector", "upsert-kafka", "topic", "rates", "properties.bootstrap.servers", "localhost:9092"},
			[]want{
				{"SQL203 error WITH: connector 'upsert-kafka' needs option 'key.format'", "add 'key.format' = 'json'"},
				{"SQL203 error WITH: connector 'upsert-kafka' needs option 'value.format'", "add 'value.format' = 'json'"},
			},
		},
		{
			"upsert-kafka with 'format'",
			append(append([]string{}, upsertRates...), "format", "json"),
			[]want{{"SQL204 error 'format': unknown option 'format' for connector 'upsert-kafka'",
				"connector 'upsert-kafka' names its formats with 'key.format', 'value.format'"}},
		},
		{
			"upsert-kafka with a changelog format",
			[]string{"connector", "upsert-kafka", "topic", "rates", "properties.bootstrap.servers", "localhost:9092",
				"key.format", "json", "value.format", "debezium-json"},
			[]want{{"SQL205 error 'debezium-json': connector 'upsert-kafka' cannot use 'debezium-json' as value format: " +
				"it is a changelog format, and upsert-kafka needs an insert-only one", "use 'value.format' = 'json'"}},
		},
		{
			"upsert-kafka buffer with rows only",
			append(append([]string{}, upsertRates...), "sink.buffer-flush.max-rows", "100"),
			[]want{{"SQL205 error 'sink.buffer-flush.max-rows': 'sink.buffer-flush.max-rows' and 'sink.buffer-flush.interval' " +
				"must be set to be greater than zero together to enable sink buffer flushing", "or neither"}},
		},
		{
			"kafka key format without key fields",
			[]string{"connector", "kafka", "topic", "a", "properties.bootstrap.servers", "localhost:9092",
				"key.format", "json", "value.format", "json"},
			[]want{{"SQL203 error WITH: 'key.format' needs option 'key.fields' naming the key columns", "add 'key.fields' = 'user_id'"}},
		},
		{
			"kafka changelog key format",
			[]string{"connector", "kafka", "topic", "a", "properties.bootstrap.servers", "localhost:9092",
				"key.format", "debezium-json", "key.fields", "id", "value.format", "json"},
			[]want{{"SQL205 error 'debezium-json': format 'debezium-json' cannot encode record keys: it is a changelog format", ""}},
		},
		{
			"round-robin with key fields",
			[]string{"connector", "kafka", "topic", "a", "properties.bootstrap.servers", "localhost:9092",
				"key.format", "json", "key.fields", "id", "value.format", "json", "sink.partitioner", "round-robin"},
			[]want{{"SQL205 error 'round-robin': the 'round-robin' partitioner only works when 'key.fields' is not set", ""}},
		},
		{
			"exactly-once without transactional id prefix",
			[]string{"connector", "kafka", "topic", "out", "properties.bootstrap.servers", "localhost:9092", "format", "json",
				"sink.delivery-guarantee", "exactly-once"},
			[]want{{"SQL203 error WITH: 'sink.delivery-guarantee' = 'exactly-once' needs option 'sink.transactional-id-prefix'",
				"add 'sink.transactional-id-prefix' = 'streamsql-out'"}},
		},
		{
			"filesystem takes no key format",
			[]string{"connector", "filesystem", "path", "a", "format", "json", "key.format", "json"},
			[]want{{"SQL204 error 'key.format': unknown option 'key.format' for connector 'filesystem'",
				"connector 'filesystem' names its formats with 'format'"}},
		},
		{
			"datagen takes no format",
			[]string{"connector", "datagen", "format", "json"},
			[]want{{"SQL204 error 'format': unknown option 'format' for connector 'datagen'", "connector 'datagen' takes no format"}},
		},
		{
			"datagen misspelled field option",
			[]string{"connector", "datagen", "fields.id.knd", "sequence"},
			[]want{{"SQL204 error 'fields.id.knd': unknown option 'fields.id.knd' for connector 'datagen'", "did you mean 'fields.id.kind'?"}},
		},
		{
			"datagen sequence without bounds",
			[]string{"connector", "datagen", "fields.id.kind", "sequence", "fields.id.start", "1"},
			[]want{{"SQL203 error WITH: 'fields.id.kind' = 'sequence' needs option 'fields.id.end'", "add 'fields.id.end' = '1000'"}},
		},
		{
			"datagen bounds out of order",
			[]string{"connector", "datagen", "fields.x.min", "10", "fields.x.max", "1"},
			[]want{{"SQL205 error '1': 'fields.x.max' = '1' is below 'fields.x.min' = '10'", ""}},
		},
		{
			"unknown option lists the valid ones",
			[]string{"connector", "print", "colour", "red"},
			[]want{{"SQL204 error 'colour': unknown option 'colour' for connector 'print'",
				"options of connector 'print': print-identifier, standard-error, sink.parallelism"}},
		},
		{
			"unknown option close to a longer one",
			[]string{"connector", "print", "identifier", "x"},
			[]want{{"SQL204 error 'identifier': unknown option 'identifier' for connector 'print'", "did you mean 'print-identifier'?"}},
		},
		{
			"several problems at once",
			[]string{"connector", "kafka", "topic", "a", "properties.bootstrap.servers", "localhost:9092", "format", "json",
				"scan.startup.mode", "latest", "scan.bounded.mode", "unbounded", "scan.bounded.mode", "latest-offset",
				"scan.watermark.idle-timeout", "soon"},
			[]want{
				{"SQL215 error 'scan.bounded.mode': option 'scan.bounded.mode' is given twice", ""},
				{"SQL205 error 'latest': invalid value 'latest' for option 'scan.startup.mode': must be one of " +
					"'earliest-offset', 'latest-offset', 'group-offsets', 'timestamp', 'specific-offsets'", "did you mean 'latest-offset'?"},
				{"SQL205 error 'soon': invalid value 'soon' for option 'scan.watermark.idle-timeout': " +
					"a duration starts with a whole number, as in '10 s' or '5 min'", ""},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := with(tt.kv...)
			var l diag.List
			_, ok := Validate(c.opts, c.with, &l)
			var got []string
			for _, d := range l.Items {
				got = append(got, c.render(d))
			}
			var wantDiags []string
			wantErr := false
			for _, w := range tt.want {
				wantDiags = append(wantDiags, w.diag)
				wantErr = wantErr || strings.Contains(w.diag, " error ")
			}
			if strings.Join(got, "\n") != strings.Join(wantDiags, "\n") {
				t.Fatalf("diagnostics:\n\t%s\nwant:\n\t%s", strings.Join(got, "\n\t"), strings.Join(wantDiags, "\n\t"))
			}
			if ok == wantErr {
				t.Errorf("Validate ok = %v, want %v", ok, !wantErr)
			}
			for i, w := range tt.want {
				if w.hint != "" && !strings.Contains(strings.Join(l.Items[i].Hints, "\n"), w.hint) {
					t.Errorf("%s: hints %q do not contain %q", got[i], l.Items[i].Hints, w.hint)
				}
			}
		})
	}
}

func TestValidateNotes(t *testing.T) {
	c := with("connector", "kafka", "topic", "a", "properties.bootstrap.server", "localhost:9092", "format", "json")
	var l diag.List
	Validate(c.opts, c.with, &l)
	if len(l.Items) != 1 || len(l.Items[0].Notes) != 1 {
		t.Fatalf("want one diagnostic with one note, got %v", l.Err())
	}
	n := l.Items[0].Notes[0]
	if got := c.at(n.Span); got != "'properties.bootstrap.server'" {
		t.Errorf("note points at %s, want the misspelled key", got)
	}
	if want := "'properties.bootstrap.server' is given here; is it a misspelling of 'properties.bootstrap.servers'?"; n.Msg != want {
		t.Errorf("note = %q, want %q", n.Msg, want)
	}

	c = with("connector", "blackhole", "connector", "blackhole")
	l = diag.List{}
	Validate(c.opts, c.with, &l)
	if len(l.Items) != 1 || len(l.Items[0].Notes) != 1 || c.at(l.Items[0].Notes[0].Span) != "'connector'" ||
		l.Items[0].Notes[0].Span.Start != c.opts[0].Key.S.Start {
		t.Fatalf("a duplicate should note the first occurrence, got %+v", l.Items)
	}
}

func TestValidateSourceAndSink(t *testing.T) {
	base := []string{"connector", "kafka", "properties.bootstrap.servers", "localhost:9092", "format", "json"}
	tests := []struct {
		name       string
		kv         []string
		source     []string
		sink       []string
		sourceHint string
	}{
		{
			name: "kafka from group offsets without a group",
			kv:   []string{"topic", "a"},
			// Defaulted, as Flink does: a generated group, no diagnostic.
		},
		{
			name:       "kafka from explicit group offsets without a group",
			kv:         []string{"topic", "a", "scan.startup.mode", "group-offsets"},
			source:     []string{"SQL203 warning WITH: 'scan.startup.mode' = 'group-offsets' without 'properties.group.id': a generated consumer group is used, and with no committed offsets reading starts at the latest offset"},
			sourceHint: "or set 'scan.startup.mode' = 'earliest-offset' to read the topic from the start",
		},
		{
			name: "kafka from group offsets with a group",
			kv:   []string{"topic", "a", "properties.group.id", "g"},
		},
		{
			name:   "kafka bounded at group offsets without a group",
			kv:     []string{"topic", "a", "scan.startup.mode", "earliest-offset", "scan.bounded.mode", "group-offsets"},
			source: []string{"SQL203 error WITH: 'scan.bounded.mode' = 'group-offsets' needs option 'properties.group.id', the consumer group whose committed offsets to use"},
		},
		{
			name:   "specific offsets of several topics",
			kv:     []string{"topic", "a;b", "scan.startup.mode", "specific-offsets", "scan.startup.specific-offsets", "partition:0,offset:1"},
			source: []string{"SQL205 error 'specific-offsets': startup mode 'specific-offsets' works with a single 'topic' only"},
			sink:   []string{"SQL205 error 'a;b': a sink writes to a single topic, but 'topic' names several"},
		},
		{
			name:   "writing to a pattern",
			kv:     []string{"topic-pattern", "a.*", "scan.startup.mode", "latest-offset"},
			sink:   []string{"SQL205 error 'topic-pattern': a sink cannot write to 'topic-pattern'; it needs a single 'topic'"},
			source: nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := with(append(append([]string{}, base...), tt.kv...)...)
			var l diag.List
			cfg, ok := Validate(c.opts, c.with, &l)
			if !ok {
				t.Fatalf("Validate: %v", l.Err())
			}
			for _, side := range []struct {
				name  string
				check func(*diag.List) bool
				want  []string
			}{{"source", cfg.ValidateSource, tt.source}, {"sink", cfg.ValidateSink, tt.sink}} {
				var l diag.List
				ok := side.check(&l)
				var got []string
				for _, d := range l.Items {
					got = append(got, c.render(d))
				}
				if strings.Join(got, "\n") != strings.Join(side.want, "\n") {
					t.Errorf("%s diagnostics:\n\t%s\nwant:\n\t%s", side.name, strings.Join(got, "\n\t"), strings.Join(side.want, "\n\t"))
				}
				wantOK := true
				for _, w := range side.want {
					wantOK = wantOK && !strings.Contains(w, " error ")
				}
				if ok != wantOK {
					t.Errorf("%s ok = %v, want %v", side.name, ok, wantOK)
				}
				if side.name == "source" && tt.sourceHint != "" && (len(l.Items) == 0 ||
					!strings.Contains(strings.Join(l.Items[0].Hints, "\n"), tt.sourceHint)) {
					t.Errorf("source hints do not contain %q", tt.sourceHint)
				}
			}
		})
	}
}

func TestConfig(t *testing.T) {
	c := with("connector", "kafka", "topic", "clicks", "properties.bootstrap.servers", "localhost:9092",
		"properties.group.id", "g", "scan.startup.mode", "Earliest-Offset", "format", "json",
		"scan.watermark.idle-timeout", "30 s")
	var l diag.List
	cfg, ok := Validate(c.opts, c.with, &l)
	if !ok {
		t.Fatalf("Validate: %v", l.Err())
	}
	for key, want := range map[string]string{
		"scan.startup.mode":              "earliest-offset", // canonical spelling
		"scan.bounded.mode":              "unbounded",       // default
		"json.timestamp-format.standard": "SQL",             // format default
		"topic":                          "clicks",
		"connector":                      "kafka",
		"format":                         "json",
		"scan.startup.timestamp-millis":  "",
		"scan.topic-partition-discovery.interval": "5 min",
	} {
		if got := cfg.Get(key); got != want {
			t.Errorf("Get(%q) = %q, want %q", key, got, want)
		}
	}
	if cfg.Has("scan.bounded.mode") || !cfg.Has("topic") {
		t.Errorf("Has reports defaults or misses given options")
	}
	if d, ok := cfg.Duration("scan.watermark.idle-timeout"); !ok || d.Seconds() != 30 {
		t.Errorf("Duration = %v, %v; want 30s", d, ok)
	}
	if _, ok := cfg.Duration("scan.watermark.alignment.max-drift"); ok {
		t.Errorf("Duration of an unset option without default should report false")
	}
	if p := cfg.Prefixed("properties."); len(p) != 2 || p["bootstrap.servers"] != "localhost:9092" || p["group.id"] != "g" {
		t.Errorf("Prefixed(properties.) = %v", p)
	}
	if cfg.Option("topic") == nil || c.at(cfg.Option("topic").Value.Span()) != "'clicks'" {
		t.Errorf("Option(topic) does not point at its value")
	}
	if cfg.Format == nil || cfg.Format.Name != "json" || cfg.KeyFormat != nil {
		t.Errorf("Format = %v, KeyFormat = %v", cfg.Format, cfg.KeyFormat)
	}
	if cfg.Bounded() || cfg.SourceMode() != InsertOnly || cfg.SinkMode() != InsertOnly {
		t.Errorf("Bounded = %v, SourceMode = %q, SinkMode = %q", cfg.Bounded(), cfg.SourceMode(), cfg.SinkMode())
	}
}

func TestBounded(t *testing.T) {
	tests := []struct {
		kv   []string
		want bool
	}{
		{[]string{"connector", "filesystem", "path", "a", "format", "json"}, true},
		{[]string{"connector", "filesystem", "path", "a", "format", "json", "source.monitor-interval", "1 s"}, false},
		{append(append([]string{}, kafkaTimestamp...), "scan.bounded.mode", "latest-offset"), true},
		{kafkaTimestamp, false},
		{upsertRates, false},
		{[]string{"connector", "datagen"}, false},
		{[]string{"connector", "datagen", "number-of-rows", "10"}, true},
		{[]string{"connector", "datagen", "fields.id.kind", "sequence", "fields.id.start", "1", "fields.id.end", "5"}, true},
		{[]string{"connector", "nexmark"}, false},
		{[]string{"connector", "nexmark", "events.num", "1000"}, true},
		{[]string{"connector", "print"}, false},
	}
	for _, tt := range tests {
		c := with(tt.kv...)
		var l diag.List
		cfg, ok := Validate(c.opts, c.with, &l)
		if !ok {
			t.Fatalf("%s: %v", c.text, l.Err())
		}
		if got := cfg.Bounded(); got != tt.want {
			t.Errorf("%s: Bounded = %v, want %v", c.text, got, tt.want)
		}
	}
}
