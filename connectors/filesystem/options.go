package filesystem

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/eval"
	ssettings "github.com/streamsql/streamsql/settings"
)

// The options of Flink's streaming file sink: the rolling policy and
// partition commit (FileSystemConnectorOptions). connectors/builtin.go
// declares them (names, defaults, values); this reads them into the
// runtime's terms and applies the rules that need the table.

// rolling is the rolling policy: when a part file is closed and the
// partition's next row starts a new one.
type rolling struct {
	size       int64         // 'sink.rolling-policy.file-size'
	rollover   time.Duration // 'sink.rolling-policy.rollover-interval'
	inactivity time.Duration // 'sink.rolling-policy.inactivity-interval'
	check      time.Duration // 'sink.rolling-policy.check-interval'
}

// Commit triggers.
const (
	triggerProcessTime   = "process-time"
	triggerPartitionTime = "partition-time"
)

// commit is the partition commit: when (trigger, delay) and how (the
// success file; "" when the policy writes none).
type commit struct {
	// enabled is set when 'sink.partition-commit.policy.kind' is given:
	// without a policy nothing is committed (as in Flink).
	enabled     bool
	trigger     string
	delay       time.Duration
	successFile string
	// pattern is 'partition.time-extractor.timestamp-pattern' ("": the
	// first partition value); parse reads the text it gives.
	pattern string
	parse   func(string) (int64, bool)
	layout  string // the formatter, for messages
}

// rollingKeys and commitKeys are the options of each, which a table
// without PARTITIONED BY refuses.
var (
	rollingKeys = []string{"sink.rolling-policy.file-size", "sink.rolling-policy.rollover-interval",
		"sink.rolling-policy.inactivity-interval", "sink.rolling-policy.check-interval"}
	commitKeys = []string{"sink.partition-commit.trigger", "sink.partition-commit.delay",
		"sink.partition-commit.policy.kind", "sink.partition-commit.success-file.name",
		"sink.partition-commit.watermark-time-zone", "partition.time-extractor.kind",
		"partition.time-extractor.timestamp-pattern", "partition.time-extractor.timestamp-formatter"}
)

// partitionOnly refuses, for a table without PARTITIONED BY (one file),
// the options that only a directory of part files can follow.
func partitionOnly(c connector.Options) error {
	for _, k := range append(slices.Clone(rollingKeys), commitKeys...) {
		if c.Has(k) {
			return fmt.Errorf("'%s' needs a PARTITIONED BY table: a filesystem table without partitions is one file, which is neither rolled nor committed; declare PARTITIONED BY (...) to write a directory of partitions, or remove the option", k)
		}
	}
	return nil
}

func readRolling(c connector.Options) (rolling, error) {
	var r rolling
	size, err := ssettings.ParseMemorySize(c.Get("sink.rolling-policy.file-size"))
	if err != nil || size <= 0 {
		return r, fmt.Errorf("'sink.rolling-policy.file-size' = '%s' is not a positive memory size", c.Get("sink.rolling-policy.file-size"))
	}
	r.size = size
	for _, d := range []struct {
		key string
		to  *time.Duration
	}{{"sink.rolling-policy.rollover-interval", &r.rollover}, {"sink.rolling-policy.inactivity-interval", &r.inactivity},
		{"sink.rolling-policy.check-interval", &r.check}} {
		v, ok := c.Duration(d.key)
		if !ok || v <= 0 {
			return r, fmt.Errorf("'%s' = '%s' is not a positive duration", d.key, c.Get(d.key))
		}
		*d.to = v
	}
	return r, nil
}

// patternVar is a $name of a timestamp pattern.
var patternVar = regexp.MustCompile(`\$[A-Za-z_][A-Za-z0-9_]*`)

func readCommit(c connector.Options, keys []string) (commit, error) {
	var m commit
	m.trigger = c.Get("sink.partition-commit.trigger")
	if m.trigger == "" {
		m.trigger = triggerProcessTime
	}
	d, ok := c.Duration("sink.partition-commit.delay")
	if !ok || d < 0 {
		return m, fmt.Errorf("'sink.partition-commit.delay' = '%s' is not a duration", c.Get("sink.partition-commit.delay"))
	}
	m.delay = d
	kinds := policyKinds(c.Get("sink.partition-commit.policy.kind"))
	m.enabled = len(kinds) > 0
	if slices.Contains(kinds, "custom") {
		return m, fmt.Errorf("'sink.partition-commit.policy.kind' = 'custom' runs a Java class ('sink.partition-commit.policy.class'), which streamsql cannot: use 'success-file'")
	}
	if slices.Contains(kinds, "metastore") && !slices.Contains(kinds, "success-file") {
		return m, fmt.Errorf("'sink.partition-commit.policy.kind' = 'metastore' adds the partition to a Hive metastore, which a filesystem table has none of (its partitions are its directories, as Flink's docs say): use 'success-file' to mark committed partitions")
	}
	if slices.Contains(kinds, "success-file") {
		m.successFile = c.Get("sink.partition-commit.success-file.name")
		if m.successFile == "" {
			m.successFile = "_SUCCESS"
		}
		if strings.ContainsAny(m.successFile, `/\`) || m.successFile == "." || m.successFile == ".." {
			return m, fmt.Errorf("'sink.partition-commit.success-file.name' = '%s' must be a file name, without a directory", m.successFile)
		}
		if _, isPart := partIndex(m.successFile); isPart || m.successFile == finishMarker {
			return m, fmt.Errorf("'sink.partition-commit.success-file.name' = '%s' is the name of a file the sink writes itself", m.successFile)
		}
	} else if c.Has("sink.partition-commit.success-file.name") {
		return m, fmt.Errorf("'sink.partition-commit.success-file.name' has no effect without 'sink.partition-commit.policy.kind' = 'success-file'")
	}
	if tz := c.Get("sink.partition-commit.watermark-time-zone"); tz != "" && tz != "UTC" && tz != "GMT" && tz != "Z" && tz != "+00:00" {
		return m, fmt.Errorf("'sink.partition-commit.watermark-time-zone' = '%s': streamsql's TIMESTAMPs are in UTC, its only time zone", tz)
	}
	if c.Get("partition.time-extractor.kind") == "custom" {
		return m, fmt.Errorf("'partition.time-extractor.kind' = 'custom' runs a Java class ('partition.time-extractor.class'), which streamsql cannot: use 'partition.time-extractor.timestamp-pattern'")
	}
	m.pattern = c.Get("partition.time-extractor.timestamp-pattern")
	for _, v := range patternVar.FindAllString(m.pattern, -1) {
		if !slices.Contains(keys, v[1:]) {
			return m, fmt.Errorf("'partition.time-extractor.timestamp-pattern' = '%s' names %s, which is not a partition column (%s)", m.pattern, v, strings.Join(keys, ", "))
		}
	}
	m.layout = c.Get("partition.time-extractor.timestamp-formatter")
	if m.layout != "" {
		parse, err := eval.TimestampParser(m.layout)
		if err != nil {
			return m, fmt.Errorf("'partition.time-extractor.timestamp-formatter' = '%s': %w", m.layout, err)
		}
		m.parse = parse
	} else {
		m.parse = func(s string) (int64, bool) {
			t, err := eval.ParseTimestamp(s)
			return t, err == nil
		}
	}
	return m, nil
}

// policyKinds splits 'sink.partition-commit.policy.kind' ("metastore,success-file").
func policyKinds(v string) []string {
	var out []string
	for _, k := range strings.Split(v, ",") {
		if k = strings.ToLower(strings.TrimSpace(k)); k != "" {
			out = append(out, k)
		}
	}
	return out
}

// partitionTime is the time of a partition, from its values, as Flink's
// DefaultPartTimeExtractor gives it: the pattern with each $key replaced
// by the key's value (or, without a pattern, the first value), read with
// the formatter ('yyyy-MM-dd HH:mm:ss' or a date alone by default).
func (m *commit) partitionTime(keys, values []string) (int64, error) {
	text := ""
	if m.pattern == "" {
		text = values[0]
	} else {
		byKey := map[string]string{}
		for i, k := range keys {
			byKey[k] = values[i]
		}
		text = patternVar.ReplaceAllStringFunc(m.pattern, func(v string) string { return byKey[v[1:]] })
	}
	t, ok := m.parse(text)
	if !ok {
		how := "'yyyy-MM-dd HH:mm:ss' or 'yyyy-MM-dd'"
		if m.layout != "" {
			how = "'" + m.layout + "' ('partition.time-extractor.timestamp-formatter')"
		}
		src := "the first partition value"
		if m.pattern != "" {
			src = "'partition.time-extractor.timestamp-pattern' = '" + m.pattern + "'"
		}
		return 0, fmt.Errorf("the partition's time cannot be extracted for the 'partition-time' commit trigger: %s gives '%s', which is not a timestamp of the form %s", src, text, how)
	}
	return t, nil
}
