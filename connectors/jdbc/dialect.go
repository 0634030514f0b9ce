package jdbc

import (
	"strconv"
	"strings"
)

// dialect is what differs between PostgreSQL and MySQL/MariaDB: quoting,
// placeholders and the upsert statement.
type dialect struct {
	name string // "postgres" or "mysql"
}

// quote quotes an identifier: "a""b" (PostgreSQL), `a“b` (MySQL).
func (d dialect) quote(id string) string {
	if d.name == "mysql" {
		return "`" + strings.ReplaceAll(id, "`", "``") + "`"
	}
	return `"` + strings.ReplaceAll(id, `"`, `""`) + `"`
}

// table quotes a table reference, SCHEMA.TABLE or TABLE.
func (d dialect) table(schema, name string) string {
	if schema == "" {
		return d.quote(name)
	}
	return d.quote(schema) + "." + d.quote(name)
}

// placeholder is the n-th (from 1) parameter marker.
func (d dialect) placeholder(n int) string {
	if d.name == "mysql" {
		return "?"
	}
	return "$" + strconv.Itoa(n)
}

// maxParams is the most parameters one statement may have (both protocols
// count them in 16 bits).
const maxParams = 65535

// rowsPerStatement is how many rows of ncols values one multi-row statement
// carries.
func rowsPerStatement(ncols int) int {
	n := maxParams / max(ncols, 1)
	return min(n, 1000)
}

// names appends the quoted column names, separated by ", ".
func (d dialect) names(b *strings.Builder, cols []string) {
	for i, c := range cols {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(d.quote(c))
	}
}

// values appends "(p, p, ...), (...)" for rows of ncols values, numbering
// placeholders from 1.
func (d dialect) values(b *strings.Builder, rows, ncols int) {
	n := 1
	for r := range rows {
		if r > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('(')
		for c := range ncols {
			if c > 0 {
				b.WriteString(", ")
			}
			b.WriteString(d.placeholder(n))
			n++
		}
		b.WriteByte(')')
	}
}

// insert is INSERT INTO table (cols) VALUES (...), ... for rows rows.
func (d dialect) insert(table string, cols []string, rows int) string {
	var b strings.Builder
	b.WriteString("INSERT INTO ")
	b.WriteString(table)
	b.WriteString(" (")
	d.names(&b, cols)
	b.WriteString(") VALUES ")
	d.values(&b, rows, len(cols))
	return b.String()
}

// upsert is the multi-row insert that updates the rows whose key exists:
// ON CONFLICT (key) DO UPDATE SET c = EXCLUDED.c (PostgreSQL, which needs
// a unique index on exactly the key columns), ON DUPLICATE KEY UPDATE c =
// VALUES(c) (MySQL, MariaDB). The keys of the rows must be distinct
// (PostgreSQL refuses to update one row twice in a statement). key holds
// indexes into cols.
func (d dialect) upsert(table string, cols []string, key []int, rows int) string {
	var b strings.Builder
	b.WriteString(d.insert(table, cols, rows))
	isKey := make([]bool, len(cols))
	for _, k := range key {
		isKey[k] = true
	}
	var set []string
	for i, c := range cols {
		if isKey[i] {
			continue
		}
		q := d.quote(c)
		if d.name == "mysql" {
			set = append(set, q+" = VALUES("+q+")")
		} else {
			set = append(set, q+" = EXCLUDED."+q)
		}
	}
	if d.name == "mysql" {
		if len(set) == 0 { // every column is a key column: nothing to update
			q := d.quote(cols[key[0]])
			set = append(set, q+" = "+q)
		}
		b.WriteString(" ON DUPLICATE KEY UPDATE ")
		b.WriteString(strings.Join(set, ", "))
		return b.String()
	}
	b.WriteString(" ON CONFLICT (")
	for i, k := range key {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(d.quote(cols[k]))
	}
	if len(set) == 0 {
		b.WriteString(") DO NOTHING")
		return b.String()
	}
	b.WriteString(") DO UPDATE SET ")
	b.WriteString(strings.Join(set, ", "))
	return b.String()
}

// delete is DELETE FROM table WHERE key IN (...) for rows keys:
// k IN (p, ...) for one key column, (k1, k2) IN ((p, p), ...) for several.
func (d dialect) delete(table string, keyCols []string, rows int) string {
	var b strings.Builder
	b.WriteString("DELETE FROM ")
	b.WriteString(table)
	b.WriteString(" WHERE ")
	b.WriteString(d.keyIn(keyCols, rows))
	return b.String()
}

// selectAll is SELECT cols FROM table, each column read as text where the
// driver's own conversion would lose or reshape it (see readExpr), with an
// optional WHERE.
func (d dialect) selectAll(table string, exprs []string, where string) string {
	s := "SELECT " + strings.Join(exprs, ", ") + " FROM " + table
	if where != "" {
		s += " WHERE " + where
	}
	return s
}
