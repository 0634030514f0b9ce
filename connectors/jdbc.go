package connectors

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/streamsql/streamsql/diag"
)

var jdbcSpec = &ConnectorSpec{
	Name: "jdbc",
	Doc: "A table of a PostgreSQL, MySQL or MariaDB database. With a PRIMARY KEY a sink upserts and deletes rows " +
		"by key (INSERT ... ON CONFLICT / ON DUPLICATE KEY UPDATE, DELETE), batched, the changes of one key kept in order; " +
		"without one it only inserts (append-only). A source reads the table once (bounded), or is looked up by key " +
		"as the dim side of a lookup join (FOR SYSTEM_TIME AS OF a PROCTIME() column). The table must exist: " +
		"its columns and key are checked against the DDL when the job starts.",
	Options: []OptionSpec{
		{Key: "url", Required: true, Validate: jdbcURLValue, Example: "jdbc:postgresql://localhost:5432/shop",
			Doc: "The database: jdbc:postgresql://HOST[:PORT]/DATABASE, jdbc:mysql://HOST[:PORT]/DATABASE (also MariaDB) " +
				"or jdbc:mariadb://HOST[:PORT]/DATABASE. Parameters after '?': 'sslmode' (PostgreSQL) and " +
				"'connectTimeout' (seconds) are taken; others are refused."},
		{Key: "table-name", Required: true, Validate: nonEmpty, Example: "ledger",
			Doc: "The table, as TABLE or SCHEMA.TABLE (PostgreSQL; the default schema is the connection's current schema)."},
		{Key: "username", Validate: nonEmpty, Doc: "The user to connect as."},
		{Key: "password", Doc: "The user's password; write '${VAR}' or '${file:PATH}' to keep it out of the job file."},
		{Key: "driver", Doc: "The JDBC driver class; accepted for compatibility with Flink job files and ignored " +
			"(the driver follows from the URL)."},
		{Key: "connection.max-retry-timeout", Default: "60s", Validate: duration,
			Doc: "How long to wait for a connection (and for each statement of a retried write) before the attempt fails."},
		{Key: "sink.buffer-flush.max-rows", Default: "100", Validate: wholeNumber(0),
			Doc: "Write the buffered rows once this many have been taken since the last write; 0 disables the limit."},
		{Key: "sink.buffer-flush.interval", Default: "1s", Validate: duration,
			Doc: "Write the buffered rows at least this often; 0 disables timed writes (rows are then written by " +
				"'sink.buffer-flush.max-rows' and at the end of the input)."},
		{Key: "sink.max-retries", Default: "3", Validate: wholeNumber(0),
			Doc: "How many times a failed write is retried (after 0 s, 1 s, 2 s, ...; the connection is made again when " +
				"it was lost) before the job fails with the database's error."},
		{Key: "sink.parallelism", Validate: wholeNumber(1), Doc: "Parallelism of the sink (accepted for compatibility with Flink job files)."},
		{Key: "scan.partition.column", Validate: nonEmpty, Example: "id",
			Doc: "An integer column by which the scan is split into 'scan.partition.num' ranges of its values " +
				"between the bounds, as Flink does: each range is one query, WHERE column BETWEEN low AND high, read one after another."},
		{Key: "scan.partition.num", Validate: wholeNumber(1), Example: "4", Doc: "The number of ranges of a partitioned scan."},
		{Key: "scan.partition.lower-bound", Validate: integer, Example: "0",
			Doc: "The smallest value of 'scan.partition.column' read (of the first range); as in Flink, rows below it are not read."},
		{Key: "scan.partition.upper-bound", Validate: integer, Example: "1000000",
			Doc: "The largest value of 'scan.partition.column' read (of the last range); as in Flink, rows above it are not read."},
		{Key: "scan.fetch-size", Default: "0", Validate: wholeNumber(0),
			Doc: "Accepted for compatibility: rows are streamed from the database as they are read."},
		{Key: "scan.auto-commit", Default: "true", Choices: []string{"true", "false"},
			Doc: "Accepted for compatibility: the scan runs in one read-only statement."},
		{Key: "lookup.cache.max-rows", Validate: wholeNumber(0), Example: "10000",
			Doc: "Lookup join: how many keys the cache keeps (Flink's legacy cache option; give it with 'lookup.cache.ttl'). " +
				"The least recently used key goes first. Without both options (or with either 0) nothing is cached."},
		{Key: "lookup.cache.ttl", Validate: duration, Example: "10min",
			Doc: "Lookup join: how long a key's rows stay in the cache after they were read (Flink's legacy cache option; " +
				"give it with 'lookup.cache.max-rows')."},
		{Key: "lookup.cache.caching-missing-key", Default: "true", Choices: []string{"true", "false"},
			Doc: "Lookup join: whether a key the table does not hold is cached too (as no rows), with the legacy cache options."},
		{Key: "lookup.cache", Default: "NONE", Choices: []string{"NONE", "PARTIAL"},
			Doc: "Lookup join: the cache, in Flink's newer options. NONE asks the table for every probe batch " +
				"(unless the legacy 'lookup.cache.max-rows' and 'lookup.cache.ttl' are given); PARTIAL caches the keys " +
				"looked up, under the 'lookup.partial-cache.*' options."},
		{Key: "lookup.partial-cache.max-rows", Validate: wholeNumber(1), Example: "10000",
			Doc: "With 'lookup.cache' = 'PARTIAL': how many keys the cache keeps; the least recently used goes first."},
		{Key: "lookup.partial-cache.expire-after-write", Validate: duration, Example: "10min",
			Doc: "With 'lookup.cache' = 'PARTIAL': how long a key's rows stay cached after they were read."},
		{Key: "lookup.partial-cache.expire-after-access", Validate: duration, Example: "10min",
			Doc: "With 'lookup.cache' = 'PARTIAL': how long a key's rows stay cached after they were last used."},
		{Key: "lookup.partial-cache.cache-missing-key", Default: "true", Choices: []string{"true", "false"},
			Doc: "With 'lookup.cache' = 'PARTIAL': whether a key the table does not hold is cached too (as no rows)."},
		{Key: "lookup.max-retries", Default: "3", Validate: wholeNumber(0),
			Doc: "Lookup join: how many times a failed lookup query is retried (after 0 s, 1 s, 2 s, ...; the connection " +
				"is made again when it was lost) before the job fails with the database's error."},
	},
	Source:           true,
	Lookup:           true,
	Sink:             true,
	SourceEmits:      InsertOnly,
	SinkAccepts:      InsertOnly,
	KeyedSinkAccepts: Upsert,
	Bounded:          func(*Config) bool { return true },
	Check:            checkJDBC,
}

func integer(v string) error {
	if _, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err != nil {
		return errors.New("must be a whole number")
	}
	return nil
}

// checkJDBC: the 'scan.partition.*' options come all together, the bounds
// in order.
func checkJDBC(c *Config, l *diag.List) {
	keys := []string{"scan.partition.column", "scan.partition.num", "scan.partition.lower-bound", "scan.partition.upper-bound"}
	var given []string
	for _, k := range keys {
		if c.Option(k) != nil {
			given = append(given, k)
		}
	}
	if len(given) > 0 && len(given) < len(keys) {
		for _, k := range keys {
			if c.Option(k) == nil {
				missing(c, l, k, fmt.Sprintf("'%s' needs option '%s': the 'scan.partition.*' options are given all together or not at all", given[0], k),
					findOption(c.Spec.Options, k).Example)
				return
			}
		}
	}
	checkLookupCache(c, l)
	if c.Has("scan.partition.lower-bound") && c.Has("scan.partition.upper-bound") {
		lo, errLo := strconv.ParseInt(strings.TrimSpace(c.Get("scan.partition.lower-bound")), 10, 64)
		hi, errHi := strconv.ParseInt(strings.TrimSpace(c.Get("scan.partition.upper-bound")), 10, 64)
		if errLo == nil && errHi == nil && lo > hi {
			invalid(c, l, "scan.partition.upper-bound", "'scan.partition.upper-bound' = '%d' is below 'scan.partition.lower-bound' = '%d'", hi, lo)
		}
	}
}

// JDBCURL is a parsed 'url' of the jdbc connector.
type JDBCURL struct {
	// Dialect is "postgres" or "mysql" (MySQL and MariaDB).
	Dialect  string
	Host     string
	Port     int
	Database string
	// Params are the parameters after '?' this build understands:
	// sslmode (postgres) and connectTimeout (seconds).
	Params map[string]string
}

// Addr is HOST:PORT.
func (u JDBCURL) Addr() string { return net.JoinHostPort(u.Host, strconv.Itoa(u.Port)) }

func jdbcURLValue(v string) error {
	_, err := ParseJDBCURL(v)
	return err
}

// ParseJDBCURL reads a JDBC URL of the databases the jdbc connector
// supports: jdbc:postgresql://HOST[:PORT]/DB, jdbc:mysql://HOST[:PORT]/DB or
// jdbc:mariadb://HOST[:PORT]/DB, with the parameters JDBCURL.Params lists.
func ParseJDBCURL(v string) (JDBCURL, error) {
	const want = "must be jdbc:postgresql://HOST[:PORT]/DATABASE or jdbc:mysql://HOST[:PORT]/DATABASE"
	rest, ok := strings.CutPrefix(strings.TrimSpace(v), "jdbc:")
	if !ok {
		return JDBCURL{}, errors.New(want)
	}
	u, err := url.Parse(rest)
	if err != nil || u.Host == "" {
		return JDBCURL{}, errors.New(want)
	}
	out := JDBCURL{Params: map[string]string{}}
	var allowed []string
	switch u.Scheme {
	case "postgresql":
		out.Dialect, out.Port, allowed = "postgres", 5432, []string{"sslmode", "connectTimeout"}
	case "mysql", "mariadb":
		out.Dialect, out.Port, allowed = "mysql", 3306, []string{"connectTimeout"}
	default:
		return JDBCURL{}, fmt.Errorf("database '%s' is not supported: %s", u.Scheme, want)
	}
	if u.User != nil {
		return JDBCURL{}, errors.New("must not hold a user or password: give them in 'username' and 'password'")
	}
	out.Host = u.Hostname()
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n <= 0 || n > 65535 {
			return JDBCURL{}, fmt.Errorf("port '%s' is not a port number", p)
		}
		out.Port = n
	}
	out.Database = strings.TrimPrefix(u.Path, "/")
	if out.Database == "" || strings.Contains(out.Database, "/") {
		return JDBCURL{}, fmt.Errorf("names no database: %s", want)
	}
	for k, vs := range u.Query() {
		if !hasString(allowed, k) {
			return JDBCURL{}, fmt.Errorf("parameter '%s' is not supported for %s; this build takes %s", k, u.Scheme, quoteList(allowed))
		}
		out.Params[k] = vs[len(vs)-1]
	}
	if ct, ok := out.Params["connectTimeout"]; ok {
		if n, err := strconv.Atoi(ct); err != nil || n < 0 {
			return JDBCURL{}, fmt.Errorf("parameter 'connectTimeout' = '%s' must be a whole number of seconds", ct)
		}
	}
	return out, nil
}

// checkLookupCache: the legacy cache options come together, as Flink
// checks them; the 'lookup.partial-cache.*' options need 'lookup.cache' =
// 'PARTIAL' (else they would be ignored) and PARTIAL needs a bound (else
// the cache grows without one, which Flink refuses too); the two styles
// are not mixed.
func checkLookupCache(c *Config, l *diag.List) {
	legacy := []string{"lookup.cache.max-rows", "lookup.cache.ttl"}
	if c.Option(legacy[0]) != nil && c.Option(legacy[1]) == nil {
		missing(c, l, legacy[1], "'lookup.cache.max-rows' needs option 'lookup.cache.ttl': the legacy lookup cache options are given together", "10min")
	}
	if c.Option(legacy[1]) != nil && c.Option(legacy[0]) == nil {
		missing(c, l, legacy[0], "'lookup.cache.ttl' needs option 'lookup.cache.max-rows': the legacy lookup cache options are given together", "10000")
	}
	partial := strings.EqualFold(c.Get("lookup.cache"), "PARTIAL")
	bounds := []string{"lookup.partial-cache.max-rows", "lookup.partial-cache.expire-after-write", "lookup.partial-cache.expire-after-access"}
	for _, k := range append(bounds, "lookup.partial-cache.cache-missing-key") {
		if c.Option(k) != nil && !partial {
			invalid(c, l, k, "'%s' takes effect only with 'lookup.cache' = 'PARTIAL'", k)
		}
	}
	if !partial {
		return
	}
	for _, k := range legacy {
		if c.Option(k) != nil {
			invalid(c, l, k, "'%s' is the legacy form of the lookup cache; with 'lookup.cache' = 'PARTIAL' use the 'lookup.partial-cache.*' options", k)
		}
	}
	for _, k := range bounds {
		if c.Option(k) != nil {
			return
		}
	}
	invalid(c, l, "lookup.cache", "'lookup.cache' = 'PARTIAL' needs 'lookup.partial-cache.max-rows', 'lookup.partial-cache.expire-after-write' or 'lookup.partial-cache.expire-after-access': a cache without any bound grows without bound")
}

// LookupCache is how the runtime caches a lookup table's rows by key
// (Flink's DefaultLookupCache, or its legacy cache).
type LookupCache struct {
	// MaxRows is how many keys are kept (least recently used out first);
	// 0: no limit (then an expiry bounds it). A zero LookupCache caches
	// nothing.
	MaxRows int64
	// AfterWrite and AfterAccess expire a key that long after it was read
	// from the table, or last used; 0: never.
	AfterWrite, AfterAccess time.Duration
	// Missing caches keys the table does not hold.
	Missing bool
	// Reload, when set, says that the connector itself holds the whole
	// table in memory and reads it again this long after it last read it
	// (filesystem's 'lookup.join.cache.ttl'); the runtime then caches
	// nothing.
	Reload time.Duration
}

// Enabled reports whether anything is cached.
func (c LookupCache) Enabled() bool { return c.MaxRows > 0 || c.AfterWrite > 0 || c.AfterAccess > 0 }

// LookupCache reads a lookup table's cache options: 'lookup.cache' =
// 'PARTIAL' with 'lookup.partial-cache.*', or the legacy
// 'lookup.cache.max-rows' and 'lookup.cache.ttl' (both above 0, as Flink's
// legacy cache).
func (c *Config) LookupCache() LookupCache {
	if c.Spec != nil && c.Spec.Name == "filesystem" {
		d, _ := c.Duration("lookup.join.cache.ttl")
		return LookupCache{Reload: max(d, time.Millisecond)}
	}
	num := func(k string) int64 {
		n, _ := strconv.ParseInt(strings.TrimSpace(c.Get(k)), 10, 64)
		return n
	}
	dur := func(k string) time.Duration {
		d, _ := c.Duration(k)
		return max(d, 0)
	}
	if strings.EqualFold(c.Get("lookup.cache"), "PARTIAL") {
		return LookupCache{MaxRows: num("lookup.partial-cache.max-rows"), AfterWrite: dur("lookup.partial-cache.expire-after-write"),
			AfterAccess: dur("lookup.partial-cache.expire-after-access"), Missing: c.Get("lookup.partial-cache.cache-missing-key") == "true"}
	}
	rows, ttl := num("lookup.cache.max-rows"), dur("lookup.cache.ttl")
	if rows <= 0 || ttl <= 0 {
		return LookupCache{}
	}
	return LookupCache{MaxRows: rows, AfterWrite: ttl, Missing: c.Get("lookup.cache.caching-missing-key") == "true"}
}
