package oracle

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// DefaultPG is where the oracle finds PostgreSQL unless ORACLE_PG says
// otherwise (a postgres:// URL).
const DefaultPG = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable&connect_timeout=5"

// Database is the database the oracle works in. It is created with the C
// collation, so that strings compare and sort by their bytes, as
// streamsql (and Flink, for the ASCII and Latin letters generated) does.
const Database = "streamsql_oracle"

// PG is a connection to the reference database.
type PG struct {
	conn *pgx.Conn
}

func pgURL() string {
	if u := os.Getenv("ORACLE_PG"); u != "" {
		return u
	}
	return DefaultPG
}

// ConnectPG connects to PostgreSQL and to the oracle's database, creating
// it the first time.
func ConnectPG(ctx context.Context) (*PG, error) {
	cfg, err := pgx.ParseConfig(pgURL())
	if err != nil {
		return nil, err
	}
	admin, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer admin.Close(ctx)
	var exists bool
	if err := admin.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", Database).Scan(&exists); err != nil {
		return nil, err
	}
	if !exists {
		_, err := admin.Exec(ctx, fmt.Sprintf(
			`CREATE DATABASE %s TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C.UTF-8'`, Database))
		var pgErr *pgconn.PgError
		if err != nil && (!errors.As(err, &pgErr) || pgErr.Code != "42P04") { // 42P04: created meanwhile
			return nil, fmt.Errorf("creating database %s: %w", Database, err)
		}
	}
	cfg.Database = Database
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if _, err := conn.Exec(ctx, "SET statement_timeout = '60s'"); err != nil {
		conn.Close(ctx)
		return nil, err
	}
	return &PG{conn: conn}, nil
}

// Close closes the connection.
func (p *PG) Close() error { return p.conn.Close(context.Background()) }

// pgSetup is the SQL that creates and fills a case's tables (temporary
// tables, gone at the end of the transaction).
func (c *Case) pgSetup() []string {
	var stmts []string
	for _, t := range c.tables {
		var cols []string
		for _, col := range t.cols {
			cols = append(cols, col.name+" "+col.t.pg())
		}
		stmts = append(stmts, fmt.Sprintf("CREATE TEMPORARY TABLE %s (%s) ON COMMIT DROP", t.name, strings.Join(cols, ", ")))
		rows := t.final()
		if len(rows) == 0 {
			continue
		}
		var vals []string
		for _, r := range rows {
			parts := make([]string, len(r))
			for i, v := range r {
				parts[i] = pgValue(v, t.cols[i].t)
			}
			vals = append(vals, "("+strings.Join(parts, ", ")+")")
		}
		stmts = append(stmts, fmt.Sprintf("INSERT INTO %s VALUES %s", t.name, strings.Join(vals, ", ")))
	}
	return stmts
}

// pgQuery is the case's query as PostgreSQL runs it, every column as text.
func (c *Case) pgQuery() string {
	fulls := 0
	b := &pgw{rename: map[string]string{}, fulls: &fulls}
	c.q.pg(b)
	var cols []string
	for _, oc := range c.q.out.cols {
		cols = append(cols, "CAST(q."+oc.name+" AS text)")
	}
	return fmt.Sprintf("SELECT %s FROM (%s) AS q", strings.Join(cols, ", "), b.String())
}

// pgScript is the whole of it, for a report.
func (c *Case) pgScript() string {
	var b strings.Builder
	b.WriteString("BEGIN;\n")
	for _, s := range c.pgSetup() {
		b.WriteString(s + ";\n")
	}
	b.WriteString(c.pgQuery() + ";\nROLLBACK;\n")
	return b.String()
}

// answer runs the case in PostgreSQL.
func (p *PG) answer(ctx context.Context, c *Case) (result, error) {
	tx, err := p.conn.Begin(ctx)
	if err != nil {
		return nil, err
	}
	defer func() { _ = tx.Rollback(ctx) }()
	for _, s := range c.pgSetup() {
		if _, err := tx.Exec(ctx, s); err != nil {
			return nil, fmt.Errorf("%w\n%s", err, s)
		}
	}
	q := c.pgQuery()
	rows, err := tx.Query(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("%w\n%s", err, q)
	}
	defer rows.Close()
	var out result
	for rows.Next() {
		texts := make([]*string, len(c.q.out.cols))
		ptrs := make([]any, len(texts))
		for i := range texts {
			ptrs[i] = &texts[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		r := make([]cell, len(texts))
		for i, s := range texts {
			if r[i], err = pgCell(s, c.q.out.cols[i].t); err != nil {
				return nil, err
			}
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%w\n%s", err, q)
	}
	return out, nil
}
