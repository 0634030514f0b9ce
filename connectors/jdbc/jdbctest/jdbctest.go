// Package jdbctest gives tests a database of their own on the PostgreSQL
// and MariaDB (MySQL) servers of the machine: a fresh database with a
// unique name, dropped when the test ends, and a TCP proxy that a test can
// cut to simulate a lost connection without touching the shared servers.
//
// The servers are at 127.0.0.1:5432 (user postgres, trust) and
// 127.0.0.1:3306 (root, no password) unless JDBC_PG_ADDR or
// JDBC_MYSQL_ADDR say otherwise. When one cannot be reached the test is
// skipped, and fails under CI (CI set), where .ci/run starts both.
package jdbctest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// DB is a database of one test.
type DB struct {
	// Dialect is "postgres" or "mysql".
	Dialect string
	// Name is the database's name.
	Name string
	// Addr is the server's HOST:PORT.
	Addr string
	// User is who the test connects as.
	User string
	// SQL is a connection to the database, for the test's own statements.
	SQL *sql.DB
}

// URL is the jdbc connector's 'url' of the database at addr (the server's,
// or a proxy's).
func (d *DB) URL(addr string) string {
	scheme := "postgresql"
	if d.Dialect == "mysql" {
		scheme = "mysql"
	}
	return fmt.Sprintf("jdbc:%s://%s/%s", scheme, addr, d.Name)
}

// With is the WITH clause options of a jdbc table of this database at addr
// ("" for the server itself), without the parentheses.
func (d *DB) With(addr, table string) string {
	if addr == "" {
		addr = d.Addr
	}
	return fmt.Sprintf("'connector' = 'jdbc', 'url' = '%s', 'table-name' = '%s', 'username' = '%s'", d.URL(addr), table, d.User)
}

// Exec runs statements, failing the test on an error.
func (d *DB) Exec(t testing.TB, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		if _, err := d.SQL.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// Dialects are the two databases, for subtests.
var Dialects = []string{"postgres", "mysql"}

func addr(dialect string) string {
	if dialect == "postgres" {
		if a := os.Getenv("JDBC_PG_ADDR"); a != "" {
			return a
		}
		return "127.0.0.1:5432"
	}
	if a := os.Getenv("JDBC_MYSQL_ADDR"); a != "" {
		return a
	}
	return "127.0.0.1:3306"
}

// Open makes a fresh database on the server of dialect and drops it when
// the test ends. When the server cannot be reached the test is skipped, or
// fails under CI.
func Open(t testing.TB, dialect string) *DB {
	t.Helper()
	d, err := TryOpen(t, dialect)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	return d
}

// TryOpen is Open, but returns the error when the server cannot be
// reached, for a test that has other things to do without it.
func TryOpen(t testing.TB, dialect string) (*DB, error) {
	t.Helper()
	var b [6]byte
	_, _ = rand.Read(b[:])
	d := &DB{Dialect: dialect, Name: "streamsql_test_" + hex.EncodeToString(b[:]), Addr: addr(dialect)}
	admin, err := connect(d, "")
	if err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err = admin.PingContext(ctx)
		cancel()
	}
	if err != nil {
		if admin != nil {
			admin.Close()
		}
		return nil, fmt.Errorf("cannot reach the %s server at %s: %w (.ci/run starts it)", dialect, d.Addr, err)
	}
	if _, err := admin.Exec("CREATE DATABASE " + d.Name); err != nil {
		admin.Close()
		t.Fatalf("create database %s: %v", d.Name, err)
	}
	if d.SQL, err = connect(d, d.Name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		d.SQL.Close()
		drop := "DROP DATABASE " + d.Name
		if dialect == "postgres" {
			drop += " WITH (FORCE)"
		}
		if _, err := admin.Exec(drop); err != nil {
			t.Errorf("%s: %v", drop, err)
		}
		admin.Close()
	})
	return d, nil
}

func connect(d *DB, database string) (*sql.DB, error) {
	if d.Dialect == "postgres" {
		d.User = "postgres"
		cfg, err := pgx.ParseConfig(fmt.Sprintf("postgres://postgres@%s/%s?sslmode=disable", d.Addr, orDefault(database, "postgres")))
		if err != nil {
			return nil, err
		}
		cfg.RuntimeParams["timezone"] = "UTC"
		return stdlib.OpenDB(*cfg), nil
	}
	d.User = "root"
	cfg := mysql.NewConfig()
	cfg.User, cfg.Net, cfg.Addr, cfg.DBName = "root", "tcp", d.Addr, database
	cfg.Params = map[string]string{"time_zone": "'+00:00'"}
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, err
	}
	return sql.OpenDB(conn), nil
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// Proxy forwards TCP connections to a server until it is cut.
type Proxy struct {
	// Addr is where the proxy listens.
	Addr   string
	target string
	ln     net.Listener

	mu       sync.Mutex
	conns    []net.Conn
	refuse   bool
	cutAfter int64 // > 0: cut once this many more bytes went to the server
}

// NewProxy listens on a free port of 127.0.0.1 and forwards to target. It
// is closed when the test ends.
func NewProxy(t testing.TB, target string) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{Addr: ln.Addr().String(), target: target, ln: ln}
	go p.serve()
	t.Cleanup(func() {
		ln.Close()
		p.Cut()
	})
	return p
}

func (p *Proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		refuse := p.refuse
		p.mu.Unlock()
		if refuse {
			c.Close()
			continue
		}
		s, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, c, s)
		p.mu.Unlock()
		go p.pipe(s, c, true)
		go p.pipe(c, s, false)
	}
}

func (p *Proxy) pipe(dst, src net.Conn, toServer bool) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 && toServer {
			p.mu.Lock()
			cut := false
			if p.cutAfter > 0 {
				p.cutAfter -= int64(n)
				cut = p.cutAfter <= 0
				if cut {
					p.cutAfter = 0
					p.refuse = true
				}
			}
			p.mu.Unlock()
			if cut { // drop these bytes: the server never sees them
				p.Cut()
				break
			}
		}
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				break
			}
		}
		if err != nil {
			break
		}
	}
	dst.Close()
	src.Close()
}

// Cut closes every connection through the proxy: the client sees its
// connection lost. New connections are still forwarded unless Refuse.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// Refuse makes the proxy close new connections at once (true), as a server
// that is down, or forward them again (false).
func (p *Proxy) Refuse(refuse bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.refuse = refuse
}

// CutAfter cuts every connection (and refuses new ones, until Refuse(false))
// once n more bytes were sent to the server: a connection lost in the
// middle of a statement or transaction.
func (p *Proxy) CutAfter(n int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cutAfter = n
}
