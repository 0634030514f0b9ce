package jdbc

import (
	"database/sql"
	"fmt"
	"strconv"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/connectors"
)

// settings are a jdbc table's options, read and checked once by the
// factories.
type settings struct {
	table     string // the DDL's name, for messages
	url       connectors.JDBCURL
	ref       string // 'table-name'
	user      string
	password  string
	d         dialect
	timeout   time.Duration // 'connection.max-retry-timeout'
	maxRows   int
	interval  time.Duration
	retries   int
	partition *partitioning
}

// partitioning is 'scan.partition.*'.
type partitioning struct {
	column string
	num    int64
	lo, hi int64
}

func readSettings(spec connector.Spec) (*settings, error) {
	c := spec.Options
	s := &settings{table: spec.Table, ref: c.Get("table-name"),
		user: c.Get("username"), password: c.Get("password")}
	fail := func(f string, args ...any) (*settings, error) {
		return nil, fmt.Errorf("jdbc: table %s: %s", s.table, fmt.Sprintf(f, args...))
	}
	var err error
	if s.url, err = connectors.ParseJDBCURL(c.Get("url")); err != nil {
		return fail("'url': %v", err)
	}
	s.d = dialect{name: s.url.Dialect}
	s.timeout, _ = c.Duration("connection.max-retry-timeout")
	if s.timeout <= 0 {
		s.timeout = time.Minute
	}
	s.maxRows, _ = strconv.Atoi(c.Get("sink.buffer-flush.max-rows"))
	s.interval, _ = c.Duration("sink.buffer-flush.interval")
	s.retries, _ = strconv.Atoi(c.Get("sink.max-retries"))
	if c.Has("scan.partition.column") {
		p := &partitioning{column: c.Get("scan.partition.column")}
		p.num, _ = strconv.ParseInt(c.Get("scan.partition.num"), 10, 64)
		p.lo, _ = strconv.ParseInt(c.Get("scan.partition.lower-bound"), 10, 64)
		p.hi, _ = strconv.ParseInt(c.Get("scan.partition.upper-bound"), 10, 64)
		s.partition = p
	}
	for _, col := range spec.Schema {
		if col.MetadataKey != "" {
			return fail("column %s: the jdbc connector has no metadata ('%s'); declare it as a physical column", col.Name, col.MetadataKey)
		}
		if err := supported(col.Type); err != nil {
			return fail("column %s: %v", col.Name, err)
		}
	}
	return s, nil
}

// fail says which table and database err is about.
func (s *settings) fail(err error) error {
	return fmt.Errorf("jdbc: table %s (%s at %s/%s): %w", s.table, s.ref, s.url.Addr(), s.url.Database, err)
}

// open makes the connection pool; it connects nothing until it is used.
// PostgreSQL sessions run with TimeZone UTC and DateStyle ISO, MySQL ones
// with time_zone '+00:00' and sql_mode TRADITIONAL (strict: a value that
// does not fit is an error, never silently cut).
func (s *settings) open() (*sql.DB, error) {
	connect := s.timeout
	if ct, ok := s.url.Params["connectTimeout"]; ok {
		n, _ := strconv.Atoi(ct)
		if n > 0 {
			connect = time.Duration(n) * time.Second
		}
	}
	var db *sql.DB
	switch s.d.name {
	case "postgres":
		cfg, err := pgx.ParseConfig("")
		if err != nil {
			return nil, err
		}
		cfg.Host, cfg.Port, cfg.Database = s.url.Host, uint16(s.url.Port), s.url.Database
		if s.user != "" { // else libpq's default, the system user
			cfg.User = s.user
		}
		cfg.Password = s.password
		cfg.ConnectTimeout = connect
		cfg.RuntimeParams["timezone"] = "UTC"
		cfg.RuntimeParams["datestyle"] = "ISO, YMD"
		cfg.RuntimeParams["application_name"] = "streamsql"
		if mode, ok := s.url.Params["sslmode"]; ok {
			// sslmode decides TLS and its fallbacks; ParseConfig reads it
			// from a connection string.
			withTLS, err := pgx.ParseConfig("sslmode=" + mode)
			if err != nil {
				return nil, fmt.Errorf("'url': sslmode: %w", err)
			}
			cfg.TLSConfig, cfg.Fallbacks = withTLS.TLSConfig, withTLS.Fallbacks
			for _, f := range cfg.Fallbacks {
				f.Host, f.Port = s.url.Host, uint16(s.url.Port)
			}
		}
		db = stdlib.OpenDB(*cfg)
	default:
		cfg := mysql.NewConfig()
		cfg.Net, cfg.Addr, cfg.DBName = "tcp", s.url.Addr(), s.url.Database
		cfg.User, cfg.Passwd = s.user, s.password
		cfg.Timeout = connect
		cfg.InterpolateParams = true
		// The driver logs a lost connection to stderr itself; the error
		// also comes back to the sink, which retries and, when the retries
		// are spent, fails the job with it.
		cfg.Logger = &mysql.NopLogger{}
		cfg.Params = map[string]string{"time_zone": "'+00:00'", "sql_mode": "'TRADITIONAL'"}
		conn, err := mysql.NewConnector(cfg)
		if err != nil {
			return nil, err
		}
		db = sql.OpenDB(conn)
	}
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	return db, nil
}
