package settings

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Materialize is 'table.exec.sink.upsert-materialize': whether an upsert
// materializer goes in front of a keyed sink.
type Materialize string

// Values of 'table.exec.sink.upsert-materialize', as Flink names them.
const (
	// MaterializeAuto adds one when the query's upsert key is not a part
	// of the sink's primary key (the default).
	MaterializeAuto Materialize = "auto"
	// MaterializeForce adds one whenever the query emits updates.
	MaterializeForce Materialize = "force"
	// MaterializeNone never adds one; the planner refuses what needed one.
	MaterializeNone Materialize = "none"
)

// ResultMode is 'sql-client.execution.result-mode': how the shell (and
// run) shows a SELECT.
type ResultMode string

// Values of 'sql-client.execution.result-mode'.
const (
	ResultTable     ResultMode = "table"
	ResultChangelog ResultMode = "changelog"
	ResultTableau   ResultMode = "tableau"
)

// Settings are a job's settings, resolved: every field holds the value in
// effect, a default when no key set it. Defaults returns them before any
// key is set; Resolve computes them from checked Values.
type Settings struct {
	// StateTTL is 'table.exec.state.ttl': how long the state of a key of
	// a regular join, a group aggregate, a changelog normalize or an
	// upsert materializer is kept after its last change (processing
	// time). 0 keeps it forever (the default).
	StateTTL time.Duration
	// StateTTLText is the TTL as it was written ('1 h'), for messages and
	// EXPLAIN; "" when it was not set.
	StateTTLText string
	// Parallelism is 'parallelism' ('parallelism.default',
	// 'table.exec.resource.default-parallelism'): the partitions of keyed
	// operators. 0: not set (run uses the number of cores).
	Parallelism int
	// MaxParallelism is 'pipeline.max-parallelism': the number of key
	// groups keyed state is split into (default 128, as Flink's for small
	// jobs), and so the largest parallelism a job can run at or be
	// restarted at from its checkpoints. It cannot change across a
	// restart from a checkpoint.
	MaxParallelism int
	// PipelineName is 'pipeline.name', the job's name ("" if not set).
	PipelineName string
	// RuntimeMode is 'execution.runtime-mode', "streaming" (the default)
	// or "batch"; streamsql always runs streaming.
	RuntimeMode string
	// ResultMode is 'sql-client.execution.result-mode' ("" if not set:
	// the shell's default).
	ResultMode ResultMode
	// IdleTimeout is 'table.exec.source.idle-timeout': how long a source
	// split may go without rows before the watermark moves on without it,
	// for sources without their own 'scan.watermark.idle-timeout'. 0
	// (the default): never idle.
	IdleTimeout time.Duration
	// UpsertMaterialize is 'table.exec.sink.upsert-materialize'.
	UpsertMaterialize Materialize
	// CDCEventsDuplicate is 'table.exec.source.cdc-events-duplicate': a
	// changelog source with a primary key may repeat events, so it is
	// normalized by key.
	CDCEventsDuplicate bool
	// FutureTimeWarning is 'table.exec.source.future-time-warning': a row
	// whose event time is further ahead of the wall clock is warned about
	// (default 1 day; 0: never).
	FutureTimeWarning time.Duration
	// DriftWarning is 'table.exec.watermark.drift-warning': two inputs of
	// one operator whose watermarks are further apart (beyond what the
	// operator waits for) are warned about (default 1 hour; 0: never).
	DriftWarning time.Duration
	// GapAlert is 'table.exec.watermark.gap-alert': the default of the
	// sources' 'scan.watermark.gap-alert' (0, the default: never).
	GapAlert time.Duration
	// LocalTimeZone is 'table.local-time-zone' as written ("" if not
	// set); only names of UTC are accepted, streamsql's one time zone.
	LocalTimeZone string
	// MiniBatchEnabled, MiniBatchAllowLatency and MiniBatchSize are
	// 'table.exec.mini-batch.*', accepted for Flink compatibility:
	// streamsql's operators always work on batches.
	MiniBatchEnabled      bool
	MiniBatchAllowLatency time.Duration
	MiniBatchSize         int
	// MemoryBudget is 'state.memory-budget' in bytes: the memory for hot
	// state of a job before it spills to disk (default 1 GiB), shared by
	// its stores.
	MemoryBudget int64
	// CheckpointInterval is 'execution.checkpointing.interval': the time
	// between checkpoints under --state-dir (default 10 s; 0: none).
	CheckpointInterval time.Duration
	// CheckpointTimeout is 'execution.checkpointing.timeout': a checkpoint
	// taking longer fails (default 10 min).
	CheckpointTimeout time.Duration
	// CheckpointsRetained is 'state.checkpoints.num-retained': the
	// complete checkpoints kept under --state-dir (default 1).
	CheckpointsRetained int
	// AllowLateness is 'table.exec.emit.allow-lateness' (Flink's name):
	// how long after its end, in event time, a window aggregate keeps a
	// fired window's state so that a late row still updates its result
	// (-U old, +U new). 0 (the default): a window is final when it fires.
	AllowLateness time.Duration
	// AllowLatenessText is the lateness as it was written ('1 min'), for
	// EXPLAIN and messages; "" when it was not set.
	AllowLatenessText string
	// FinalOnly is 'table.exec.emit.final-only': a window aggregate emits
	// each window once, when the watermark passes its end plus the allowed
	// lateness (append-only: no updates, more latency).
	FinalOnly bool
	// EarlyFire is 'table.exec.emit.early-fire.enabled' (Flink's): a
	// window aggregate emits a preliminary result before its window
	// closes, EarlyFireDelay ('table.exec.emit.early-fire.delay') of
	// processing time after a row changed it (0: with each batch).
	// LateFire and LateFireDelay ('table.exec.emit.late-fire.*') do the
	// same for the updates of late rows within the allowed lateness. The
	// Text fields are the delays as written ("": not set).
	EarlyFire, LateFire                   bool
	EarlyFireDelay, LateFireDelay         time.Duration
	EarlyFireDelayText, LateFireDelayText string
	// RestAddress and RestPort are 'rest.address' and 'rest.port': where
	// to serve metrics and the web UI ("" and -1: not set; port 0: any
	// free port).
	RestAddress string
	RestPort    int
}

// Default values.
const (
	DefaultMemoryBudget       = int64(1 << 30)
	DefaultFutureTimeWarning  = 24 * time.Hour
	DefaultDriftWarning       = time.Hour
	DefaultCheckpointInterval = 10 * time.Second
	DefaultCheckpointTimeout  = 10 * time.Minute
	DefaultMaxParallelism     = 128
	// MaxMaxParallelism is the largest 'pipeline.max-parallelism' (Flink's
	// upper bound, 2^15).
	MaxMaxParallelism = 1 << 15
)

// Defaults returns the settings of a job that sets nothing.
func Defaults() Settings {
	return Settings{
		RuntimeMode:       "streaming",
		UpsertMaterialize: MaterializeAuto,
		FutureTimeWarning: DefaultFutureTimeWarning,
		DriftWarning:      DefaultDriftWarning,
		MemoryBudget:      DefaultMemoryBudget,
		RestPort:          -1,
		MaxParallelism:    DefaultMaxParallelism,
		// Flink's defaults are none, 10 min and 1; streamsql checkpoints
		// every 10 s when --state-dir is given.
		CheckpointInterval:  DefaultCheckpointInterval,
		CheckpointTimeout:   DefaultCheckpointTimeout,
		CheckpointsRetained: 1,
	}
}

// Error is a value a key does not accept.
type Error struct {
	Key, Value string
	// Problem says what is wrong with the value, when the parser can say
	// more than Accepts ("unknown time unit 'hrs'"); may be "".
	Problem string
	// Accepts says what the key takes.
	Accepts string
	// Unsupported is set when the value is well formed but names
	// something streamsql does not do yet (a time zone other than UTC).
	Unsupported bool
}

func (e *Error) Error() string {
	if e.Problem != "" {
		return fmt.Sprintf("invalid value '%s' for '%s': %s; expected %s", e.Value, e.Key, e.Problem, e.Accepts)
	}
	return fmt.Sprintf("invalid value '%s' for '%s': expected %s", e.Value, e.Key, e.Accepts)
}

// key is one setting streamsql knows.
type key struct {
	name string
	// accepts says what values the key takes, completing "expected ...".
	accepts string
	doc     string
	// set parses v into s; it returns a problem (or "" when accepts says
	// it all) and false when v is not accepted.
	set func(s *Settings, v string) (problem string, ok bool)
	// unsupported says why streamsql cannot honour a value the key would
	// take in Flink ("" when that is not why v was refused).
	unsupported func(v string) string
}

const (
	acceptsDuration = "a duration: a whole number and a unit (ms, s, min, h, d), as in '10 s', '30 min' or '24h'"
	acceptsCount    = "a whole number of at least 1"
	acceptsBool     = "'true' or 'false'"
)

// keys are the settings streamsql knows, in the order Resolve applies
// them: of the three names of parallelism, a later one wins, so that
// 'table.exec.resource.default-parallelism' overrides
// 'parallelism.default' as in Flink.
var keys = []key{
	withAccepts(duration("table.exec.state.ttl", "how long idle state of regular joins and aggregates is kept (0: forever)",
		func(s *Settings) *time.Duration { return &s.StateTTL }, func(s *Settings, v string) { s.StateTTLText = v }),
		acceptsDuration+"; '0' keeps state forever"),
	count("parallelism", "partitions for keyed operators (default: number of cores)", func(s *Settings) *int { return &s.Parallelism }),
	count("parallelism.default", "Flink's name for parallelism", func(s *Settings) *int { return &s.Parallelism }),
	{name: "table.exec.resource.default-parallelism", accepts: acceptsCount + ", or -1 (not set)",
		doc: "Flink's name for parallelism (-1: not set)",
		set: func(s *Settings, v string) (string, bool) {
			if strings.TrimSpace(v) == "-1" {
				return "", true // Flink's default: parallelism.default decides
			}
			n, ok := parseCount(v)
			if ok {
				s.Parallelism = n
			}
			return "", ok
		}},
	{name: "pipeline.max-parallelism", accepts: fmt.Sprintf("a whole number from 1 to %d", MaxMaxParallelism),
		doc: "key groups keyed state is split into: the largest parallelism a job can be restarted at from its checkpoints (default 128)",
		set: func(s *Settings, v string) (string, bool) {
			n, ok := parseCount(v)
			if !ok || n > MaxMaxParallelism {
				return "", false
			}
			s.MaxParallelism = n
			return "", true
		}},
	text("pipeline.name", "the job's name", func(s *Settings) *string { return &s.PipelineName }),
	enum("execution.runtime-mode", "streamsql always runs streaming", func(s *Settings, v string) { s.RuntimeMode = v },
		"streaming", "batch"),
	enum("sql-client.execution.result-mode", "how the shell shows a SELECT",
		func(s *Settings, v string) { s.ResultMode = ResultMode(v) }, "table", "changelog", "tableau"),
	duration("table.exec.source.idle-timeout", "default scan.watermark.idle-timeout for sources",
		func(s *Settings) *time.Duration { return &s.IdleTimeout }, nil),
	enum("table.exec.sink.upsert-materialize",
		"an upsert materializer in front of a keyed sink whose key is not a key of the query: auto (when needed, the default), force, none (refuse instead)",
		func(s *Settings, v string) { s.UpsertMaterialize = Materialize(v) }, "auto", "force", "none"),
	boolean("table.exec.source.cdc-events-duplicate",
		"a changelog source with a primary key may repeat events: normalize it by key (default false)",
		func(s *Settings) *bool { return &s.CDCEventsDuplicate }),
	duration("table.exec.source.future-time-warning",
		"warn when a row's event time is further ahead of the wall clock (default 1 d; 0: never)",
		func(s *Settings) *time.Duration { return &s.FutureTimeWarning }, nil),
	duration("table.exec.watermark.drift-warning",
		"warn when the watermarks of two inputs of one join drift further apart (default 1 h; 0: never)",
		func(s *Settings) *time.Duration { return &s.DriftWarning }, nil),
	duration("table.exec.watermark.gap-alert",
		"default 'scan.watermark.gap-alert' for sources: alert while a table's max event time is further ahead of its watermark (default: never)",
		func(s *Settings) *time.Duration { return &s.GapAlert }, nil),
	{name: "table.local-time-zone", accepts: "a name of UTC ('UTC', 'GMT', 'Z', 'Etc/UTC', '+00:00')",
		doc: "time zone for TIMESTAMP_LTZ (UTC only)",
		set: func(s *Settings, v string) (string, bool) {
			if !utcName(v) {
				return "", false
			}
			s.LocalTimeZone = v
			return "", true
		},
		unsupported: func(v string) string {
			if zoneLike(v) {
				return "streamsql computes TIMESTAMP_LTZ and CURRENT_TIMESTAMP in UTC only"
			}
			return ""
		}},
	boolean("table.exec.mini-batch.enabled", "accepted for Flink compatibility", func(s *Settings) *bool { return &s.MiniBatchEnabled }),
	duration("table.exec.mini-batch.allow-latency", "accepted for Flink compatibility",
		func(s *Settings) *time.Duration { return &s.MiniBatchAllowLatency }, nil),
	count("table.exec.mini-batch.size", "accepted for Flink compatibility", func(s *Settings) *int { return &s.MiniBatchSize }),
	{name: "state.memory-budget",
		accepts: "a memory size greater than 0: a whole number and a unit (b, kb, mb, gb, tb; powers of 1024), as in '128mb' or '1 gb'",
		doc:     "memory for hot state before it spills to Badger, e.g. '128mb' (default 1gb)",
		set: func(s *Settings, v string) (string, bool) {
			n, err := ParseMemorySize(v)
			if err != nil {
				return detail(v, err), false
			}
			if n <= 0 {
				return "a budget of 0 bytes keeps nothing in memory", false
			}
			s.MemoryBudget = n
			return "", true
		}},
	duration("execution.checkpointing.interval", "time between checkpoints under --state-dir (default 10 s; 0: none)",
		func(s *Settings) *time.Duration { return &s.CheckpointInterval }, nil),
	duration("execution.checkpointing.timeout", "a checkpoint taking longer fails (default 10 min)",
		func(s *Settings) *time.Duration { return &s.CheckpointTimeout }, nil),
	count("state.checkpoints.num-retained", "complete checkpoints kept under --state-dir (default 1)",
		func(s *Settings) *int { return &s.CheckpointsRetained }),
	withAccepts(duration("table.exec.emit.allow-lateness",
		"how long after its end a window aggregate's window still takes late rows, updating its result (default 0: none)",
		func(s *Settings) *time.Duration { return &s.AllowLateness }, func(s *Settings, v string) { s.AllowLatenessText = v }),
		acceptsDuration+"; '0' takes no late rows"),
	boolean("table.exec.emit.final-only",
		"a window aggregate emits each window once, when the watermark passes its end plus the allowed lateness: append-only (default false)",
		func(s *Settings) *bool { return &s.FinalOnly }),
	boolean("table.exec.emit.early-fire.enabled",
		"a window aggregate emits preliminary results before its window closes, every 'table.exec.emit.early-fire.delay' of processing time (default false)",
		func(s *Settings) *bool { return &s.EarlyFire }),
	duration("table.exec.emit.early-fire.delay",
		"with early firing: how long after a row changed a window's result the result is emitted, in processing time (0: with each batch of rows)",
		func(s *Settings) *time.Duration { return &s.EarlyFireDelay }, func(s *Settings, v string) { s.EarlyFireDelayText = v }),
	boolean("table.exec.emit.late-fire.enabled",
		"with 'table.exec.emit.allow-lateness': the updates of late rows are emitted 'table.exec.emit.late-fire.delay' of processing time after the first of them, not with each batch (default false)",
		func(s *Settings) *bool { return &s.LateFire }),
	duration("table.exec.emit.late-fire.delay",
		"with late firing: how long after a late row changed a window's result the update is emitted, in processing time (0: with each batch of rows)",
		func(s *Settings) *time.Duration { return &s.LateFireDelay }, func(s *Settings, v string) { s.LateFireDelayText = v }),
	text("rest.address", "serve metrics and the web UI on this host (127.0.0.1 unless given; 0.0.0.0: every interface)",
		func(s *Settings) *string { return &s.RestAddress }),
	{name: "rest.port", accepts: "a port number from 0 to 65535 (0: any free port)",
		doc: "serve metrics and the web UI on this port (default 8081 when rest.address is set; 0: any free port)",
		set: func(s *Settings, v string) (string, bool) {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil || n < 0 || n > 65535 {
				return "", false
			}
			s.RestPort = n
			return "", true
		}},
}

func withAccepts(k key, accepts string) key {
	k.accepts = accepts
	return k
}

func lookup(name string) *key {
	for i := range keys {
		if keys[i].name == name {
			return &keys[i]
		}
	}
	return nil
}

func duration(name, doc string, field func(*Settings) *time.Duration, text func(*Settings, string)) key {
	return key{name: name, accepts: acceptsDuration, doc: doc, set: func(s *Settings, v string) (string, bool) {
		d, err := ParseDuration(v)
		if err != nil {
			return detail(v, err), false
		}
		*field(s) = d
		if text != nil {
			text(s, strings.TrimSpace(v))
		}
		return "", true
	}}
}

// detail is what a parser says about v, when it says more than what the
// key accepts: not for text without a number at all ('forever'), which
// the accepted form says best.
func detail(v string, err error) string {
	if _, _, e := leadingNumber(strings.TrimSpace(v)); errors.Is(e, errNoNumber) {
		return ""
	}
	return err.Error()
}

func count(name, doc string, field func(*Settings) *int) key {
	return key{name: name, accepts: acceptsCount, doc: doc, set: func(s *Settings, v string) (string, bool) {
		n, ok := parseCount(v)
		if ok {
			*field(s) = n
		}
		return "", ok
	}}
}

func parseCount(v string) (int, bool) {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	return n, err == nil && n >= 1
}

func boolean(name, doc string, field func(*Settings) *bool) key {
	return key{name: name, accepts: acceptsBool, doc: doc, set: func(s *Settings, v string) (string, bool) {
		// Flink reads booleans with Boolean.parseBoolean after checking
		// for 'true' or 'false' in any case; nothing else.
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "true":
			*field(s) = true
		case "false":
			*field(s) = false
		default:
			return "", false
		}
		return "", true
	}}
}

func enum(name, doc string, set func(*Settings, string), vals ...string) key {
	accepts := "one of '" + strings.Join(vals, "', '") + "'"
	return key{name: name, accepts: accepts, doc: doc, set: func(s *Settings, v string) (string, bool) {
		for _, x := range vals {
			if strings.EqualFold(strings.TrimSpace(v), x) {
				set(s, x)
				return "", true
			}
		}
		return "", false
	}}
}

func text(name, doc string, field func(*Settings) *string) key {
	return key{name: name, accepts: "any text", doc: doc, set: func(s *Settings, v string) (string, bool) {
		*field(s) = v
		return "", true
	}}
}

// utcNames are the zone names that mean UTC (Java's ZoneId and the IANA
// database agree on them), compared ignoring case.
var utcNames = []string{"UTC", "GMT", "Z", "UT", "UCT", "Etc/UTC", "Etc/GMT", "Etc/UCT", "Etc/Universal",
	"Etc/Zulu", "Etc/GMT0", "Etc/GMT+0", "Etc/GMT-0", "GMT0", "Universal", "Zulu",
	"+00:00", "-00:00", "UTC+00:00", "GMT+00:00", "UTC-00:00", "GMT-00:00", "+0", "UTC+0", "GMT+0"}

func utcName(v string) bool {
	v = strings.TrimSpace(v)
	for _, n := range utcNames {
		if strings.EqualFold(v, n) {
			return true
		}
	}
	return false
}

// zoneLike reports whether v looks like a time zone other than UTC: a
// region ('Asia/Shanghai'), an offset ('+08:00', 'GMT+8') or Flink's
// 'default' (the machine's zone). Such a value is well formed but not
// supported; anything else is simply invalid.
func zoneLike(v string) bool {
	v = strings.TrimSpace(v)
	if strings.EqualFold(v, "default") {
		return true
	}
	if i := strings.IndexByte(v, '/'); i > 0 && i < len(v)-1 {
		for _, r := range v {
			if !zoneRune(r) {
				return false
			}
		}
		return true
	}
	off := v
	for _, p := range []string{"UTC", "GMT", "UT"} {
		if len(off) > len(p) && strings.EqualFold(off[:len(p)], p) {
			off = off[len(p):]
			break
		}
	}
	if off == "" || off[0] != '+' && off[0] != '-' {
		return false
	}
	for _, r := range off[1:] {
		if (r < '0' || r > '9') && r != ':' {
			return false
		}
	}
	return len(off) > 1
}

// zoneRune reports whether r may be part of a region zone name.
func zoneRune(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/_-+", r)
}

// Known reports whether streamsql knows the key.
func Known(name string) bool { return lookup(name) != nil }

// Names returns the keys streamsql knows, sorted.
func Names() []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k.name
	}
	sort.Strings(out)
	return out
}

// Doc returns what a known key is for ("" for an unknown one).
func Doc(name string) string {
	if k := lookup(name); k != nil {
		return k.doc
	}
	return ""
}

// Accepts returns what values a known key takes ("" for an unknown one).
func Accepts(name string) string {
	if k := lookup(name); k != nil {
		return k.accepts
	}
	return ""
}

// Check checks value for the key name. It returns nil for a value the key
// accepts and for an unknown key (which callers warn about: Flink jobs
// carry keys for Flink's own runtime), and an *Error otherwise.
func Check(name, value string) *Error {
	k := lookup(name)
	if k == nil {
		return nil
	}
	var s Settings
	problem, ok := k.set(&s, value)
	if ok {
		return nil
	}
	e := &Error{Key: name, Value: value, Problem: problem, Accepts: k.accepts}
	if k.unsupported != nil {
		if why := k.unsupported(value); why != "" {
			e.Unsupported, e.Problem = true, why
		}
	}
	return e
}

// Values are settings as written: the text of each key set, by a --set
// flag or a SET statement. A later value of a key replaces an earlier
// one. The zero value is empty and ready to use.
type Values struct {
	m map[string]string
}

// Set records the text of a key. It does not check it: Check does, where
// the value is written, so that the error can say where.
func (v *Values) Set(name, value string) {
	if v.m == nil {
		v.m = map[string]string{}
	}
	v.m[name] = value
}

// Get returns the text a key was set to.
func (v Values) Get(name string) (string, bool) {
	s, ok := v.m[name]
	return s, ok
}

// Delete forgets a key.
func (v *Values) Delete(name string) { delete(v.m, name) }

// Len is the number of keys set.
func (v Values) Len() int { return len(v.m) }

// Keys returns the keys set, sorted.
func (v Values) Keys() []string {
	out := make([]string, 0, len(v.m))
	for k := range v.m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Clone returns a copy that changes independently.
func (v Values) Clone() Values {
	var c Values
	for k, s := range v.m {
		c.Set(k, s)
	}
	return c
}

// Resolve computes the settings the values give, on top of Defaults.
// Unknown keys are skipped. A value its key does not accept is an error
// (the first, in key order): callers Check values where they are written,
// so this happens only to values that skipped that.
func Resolve(v Values) (Settings, error) {
	s := Defaults()
	for i := range keys {
		k := &keys[i]
		text, ok := v.m[k.name]
		if !ok {
			continue
		}
		if _, ok := k.set(&s, text); !ok {
			return Defaults(), Check(k.name, text)
		}
	}
	return s, nil
}

// EnsureDefaults returns s, or Defaults() when s is the zero Settings
// (which Resolve never returns: a resolved memory budget is never 0), so
// that a caller that gives no settings gets the defaults, not zeros.
func (s Settings) EnsureDefaults() Settings {
	if s == (Settings{}) {
		return Defaults()
	}
	return s
}
