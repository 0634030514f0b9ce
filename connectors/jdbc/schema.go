package jdbc

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/types"
)

// dbColumn is a column of the database's table, from information_schema.
type dbColumn struct {
	name       string
	dataType   string // information_schema data_type, lower case
	columnType string // MySQL's column_type ("tinyint(1) unsigned"); "" on PostgreSQL
	nullable   bool
	hasDefault bool // a default, an identity or an auto_increment
	length     sql.NullInt64
	precision  sql.NullInt64
	scale      sql.NullInt64
	timePrec   sql.NullInt64 // datetime_precision
}

// dbTable is the database's table: its schema and name as stored, its
// columns in order, and its primary and unique keys (column names).
type dbTable struct {
	schema, name string
	cols         []dbColumn
	keys         [][]string // the primary key first, when there is one
	hasPrimary   bool
}

// describe reads the table named ref ("TABLE" or "SCHEMA.TABLE") from
// information_schema. An unquoted name folds to lower case in PostgreSQL,
// so a name found only that way is taken too (a DDL written for Flink,
// which does not quote PostgreSQL names, keeps working).
func describe(ctx context.Context, db *sql.DB, d dialect, ref string) (*dbTable, error) {
	schema, name, ok := strings.Cut(ref, ".")
	if !ok {
		schema, name = "", ref
	}
	t, err := describeExact(ctx, db, d, schema, name)
	if err == nil && len(t.cols) == 0 && d.name == "postgres" && (name != strings.ToLower(name) || schema != strings.ToLower(schema)) {
		t, err = describeExact(ctx, db, d, strings.ToLower(schema), strings.ToLower(name))
	}
	if err != nil {
		return nil, err
	}
	if len(t.cols) == 0 {
		where := "the database"
		if schema != "" {
			where = "schema " + schema
		} else if t.schema != "" {
			where = "schema " + t.schema + " (the connection's current schema)"
		}
		return nil, fmt.Errorf("table %s does not exist in %s (or the user may not see it); create it first", ref, where)
	}
	return t, nil
}

func describeExact(ctx context.Context, db *sql.DB, d dialect, schema, name string) (*dbTable, error) {
	t := &dbTable{schema: schema, name: name}
	var colsQ string
	if d.name == "postgres" {
		if schema == "" {
			if err := db.QueryRowContext(ctx, "SELECT current_schema()").Scan(&t.schema); err != nil {
				return nil, err
			}
		}
		colsQ = `SELECT column_name, lower(data_type), '', is_nullable = 'YES',
  column_default IS NOT NULL OR is_identity = 'YES' OR is_generated <> 'NEVER',
  character_maximum_length, numeric_precision, numeric_scale, datetime_precision
FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 ORDER BY ordinal_position`
	} else {
		if schema == "" {
			if err := db.QueryRowContext(ctx, "SELECT DATABASE()").Scan(&t.schema); err != nil {
				return nil, err
			}
		}
		colsQ = `SELECT column_name, lower(data_type), lower(column_type), is_nullable = 'YES',
  column_default IS NOT NULL OR extra LIKE '%auto_increment%' OR extra LIKE '%GENERATED%',
  character_maximum_length, numeric_precision, numeric_scale, datetime_precision
FROM information_schema.columns WHERE table_schema = ? AND table_name = ? ORDER BY ordinal_position`
	}
	keysQ := `SELECT tc.constraint_type, tc.constraint_name, k.column_name
FROM information_schema.table_constraints tc JOIN information_schema.key_column_usage k
  ON k.constraint_schema = tc.constraint_schema AND k.constraint_name = tc.constraint_name
  AND k.table_schema = tc.table_schema AND k.table_name = tc.table_name
WHERE tc.table_schema = ` + d.placeholder(1) + ` AND tc.table_name = ` + d.placeholder(2) + ` AND tc.constraint_type IN ('PRIMARY KEY', 'UNIQUE')
ORDER BY tc.constraint_type, tc.constraint_name, k.ordinal_position`
	rows, err := db.QueryContext(ctx, colsQ, t.schema, name)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var c dbColumn
		var def sql.NullBool
		if err := rows.Scan(&c.name, &c.dataType, &c.columnType, &c.nullable, &def, &c.length, &c.precision, &c.scale, &c.timePrec); err != nil {
			return nil, err
		}
		c.hasDefault = def.Bool
		t.cols = append(t.cols, c)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	krows, err := db.QueryContext(ctx, keysQ, t.schema, name)
	if err != nil {
		return nil, err
	}
	defer krows.Close()
	var lastName string
	for krows.Next() {
		var typ, cname, col string
		if err := krows.Scan(&typ, &cname, &col); err != nil {
			return nil, err
		}
		if cname != lastName || len(t.keys) == 0 {
			t.keys = append(t.keys, nil)
			lastName = cname
			if typ == "PRIMARY KEY" && len(t.keys) == 1 {
				t.hasPrimary = true
			}
		}
		t.keys[len(t.keys)-1] = append(t.keys[len(t.keys)-1], col)
	}
	return t, krows.Err()
}

// match finds the table's column for each of the DDL's: by exact name, or
// ignoring case when exactly one column matches that way. It returns the
// table's column index of each, or the names it could not find.
func (t *dbTable) match(schema []connector.Column) ([]int, []string) {
	idx := make([]int, len(schema))
	var missing []string
	for i, c := range schema {
		idx[i] = -1
		for j, dc := range t.cols {
			if dc.name == c.Name {
				idx[i] = j
				break
			}
		}
		if idx[i] >= 0 {
			continue
		}
		for j, dc := range t.cols {
			if strings.EqualFold(dc.name, c.Name) {
				if idx[i] >= 0 { // two columns differ only in case: say which
					idx[i] = -2
					break
				}
				idx[i] = j
			}
		}
		if idx[i] < 0 {
			missing = append(missing, c.Name)
		}
	}
	return idx, missing
}

// check compares the table with the DDL's columns (and key, for a keyed
// sink) and returns the table's column names in the DDL's order. write
// says whether the table is written (a sink) or read (a source): types are
// checked in that direction. Every mismatch is listed in the error.
func (t *dbTable) check(d dialect, schema []connector.Column, key []int, write bool) ([]string, error) {
	idx, missing := t.match(schema)
	var problems []string
	for _, m := range missing {
		problems = append(problems, fmt.Sprintf("column %s of the DDL is not a column of the table", m))
	}
	names := make([]string, len(schema))
	used := make([]bool, len(t.cols))
	for i, c := range schema {
		if idx[i] < 0 {
			continue
		}
		dc := t.cols[idx[i]]
		names[i], used[idx[i]] = dc.name, true
		if why := compatible(d, c.Type, dc, write); why != "" {
			problems = append(problems, fmt.Sprintf("column %s %s of the DDL cannot be %s column %s %s: %s",
				c.Name, c.Type, map[bool]string{true: "written to", false: "read from"}[write], dc.name, dc.describe(), why))
		}
	}
	if write {
		for j, dc := range t.cols {
			if !used[j] && !dc.nullable && !dc.hasDefault {
				problems = append(problems, fmt.Sprintf("column %s of the table is NOT NULL without a default, and the DDL does not write it", dc.name))
			}
		}
	}
	if write && len(key) > 0 && len(missing) == 0 {
		var want []string
		for _, k := range key {
			want = append(want, names[k])
		}
		found := false
		for _, k := range t.keys {
			if sameNames(k, want) {
				found = true
				break
			}
		}
		if !found {
			have := "it has no primary key"
			if t.hasPrimary {
				have = "its primary key is (" + strings.Join(t.keys[0], ", ") + ")"
			}
			problems = append(problems, fmt.Sprintf("the DDL's PRIMARY KEY (%s) is not a primary or unique key of the table (%s): upserts by key need one on exactly these columns",
				strings.Join(want, ", "), have))
		}
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("table %s does not match the DDL:\n  - %s", t.schema+"."+t.name, strings.Join(problems, "\n  - "))
	}
	return names, nil
}

func sameNames(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}

// describe renders the column's type as the database shows it.
func (c dbColumn) describe() string {
	if c.columnType != "" {
		return strings.ToUpper(c.columnType)
	}
	s := strings.ToUpper(c.dataType)
	switch {
	case c.length.Valid:
		s += fmt.Sprintf("(%d)", c.length.Int64)
	case c.dataType == "numeric" && c.precision.Valid:
		s += fmt.Sprintf("(%d,%d)", c.precision.Int64, c.scale.Int64)
	}
	return s
}

// intBytes is the width of an integer column type, 0 for other types.
func intBytes(dataType string) int {
	switch dataType {
	case "tinyint":
		return 1
	case "smallint":
		return 2
	case "mediumint":
		return 3
	case "integer", "int":
		return 4
	case "bigint":
		return 8
	}
	return 0
}

// ddlIntBytes is the width of a DDL integer type.
func ddlIntBytes(k types.Kind) int {
	switch k {
	case types.TinyInt:
		return 1
	case types.SmallInt:
		return 2
	case types.Int:
		return 4
	default:
		return 8
	}
}

// intDigits is the number of decimal digits of the largest value of a DDL
// integer type.
func intDigits(k types.Kind) int64 {
	switch k {
	case types.TinyInt:
		return 3
	case types.SmallInt:
		return 5
	case types.Int:
		return 10
	default:
		return 19
	}
}

var (
	stringTypes = []string{"character", "character varying", "text", "char", "varchar", "tinytext", "mediumtext", "longtext",
		"uuid", "json", "jsonb", "enum", "set", "citext", "user-defined"}
	binaryTypes = []string{"bytea", "binary", "varbinary", "tinyblob", "blob", "mediumblob", "longblob"}
)

// compatible says why values of the DDL type t cannot be written to (write)
// or read from column c without loss, or "" when they can.
func compatible(d dialect, t types.T, c dbColumn, write bool) string {
	dt := c.dataType
	unsigned := strings.Contains(c.columnType, "unsigned")
	switch {
	case t.Kind == types.Boolean:
		if dt == "boolean" || (d.name == "mysql" && intBytes(dt) > 0) {
			return ""
		}
		return "a BOOLEAN needs a boolean column (MySQL: TINYINT(1))"
	case t.Kind.IsIntegral():
		if w := intBytes(dt); w > 0 {
			need := ddlIntBytes(t.Kind)
			if write && (w > need || w == need && !unsigned) {
				return ""
			}
			if !write && (w < need || w == need && !unsigned) {
				return ""
			}
			return "the column's range differs from the type's"
		}
		if (dt == "numeric" || dt == "decimal") && write {
			if !c.precision.Valid || c.precision.Int64-c.scale.Int64 >= intDigits(t.Kind) {
				return ""
			}
			return "the column has too few integer digits"
		}
		return "an integer type needs an integer column"
	case t.Kind == types.Float || t.Kind == types.Double:
		switch dt {
		case "double precision", "double":
			if write || t.Kind == types.Double {
				return ""
			}
			return "a double column read as FLOAT would be rounded to single precision"
		case "real", "float":
			if t.Kind == types.Float || !write {
				return ""
			}
			return "a DOUBLE would be rounded to single precision"
		}
		return "a FLOAT or DOUBLE needs a real or double column"
	case t.Kind == types.Decimal:
		if dt != "numeric" && dt != "decimal" {
			return "a DECIMAL needs a numeric/decimal column"
		}
		if !c.precision.Valid {
			if write {
				return ""
			}
			return "an unconstrained NUMERIC may not fit the DDL's DECIMAL; declare the column NUMERIC(p, s)"
		}
		p, s := c.precision.Int64, c.scale.Int64
		from, to := [2]int64{int64(t.Precision), int64(t.Scale)}, [2]int64{p, s}
		if !write {
			from, to = to, from
		}
		if to[0]-to[1] >= from[0]-from[1] && to[1] >= from[1] {
			return ""
		}
		return "the precision or scale differ: values would not fit or would be rounded"
	case t.Kind.IsString():
		if !slices.Contains(stringTypes, dt) {
			return "a character string needs a character column"
		}
		if write && c.length.Valid && t.Length != types.MaxLength && c.length.Int64 < int64(t.Length) {
			return fmt.Sprintf("the column holds %d characters, the type %d", c.length.Int64, t.Length)
		}
		return ""
	case t.Kind.IsBinary():
		if !slices.Contains(binaryTypes, dt) {
			return "a byte string needs a binary column"
		}
		if write && c.length.Valid && t.Length != types.MaxLength && c.length.Int64 < int64(t.Length) {
			return fmt.Sprintf("the column holds %d bytes, the type %d", c.length.Int64, t.Length)
		}
		return ""
	case t.Kind == types.Date:
		if dt == "date" {
			return ""
		}
		return "a DATE needs a date column"
	case t.Kind == types.Time:
		if dt == "time" || dt == "time without time zone" {
			return fracCheck(t, c, write)
		}
		return "a TIME needs a time column"
	case t.Kind == types.Timestamp:
		if dt == "timestamp without time zone" || dt == "datetime" || (d.name == "mysql" && dt == "timestamp") {
			return fracCheck(t, c, write)
		}
		return "a TIMESTAMP needs a timestamp (without time zone) or datetime column"
	case t.Kind == types.TimestampLTZ:
		if dt == "timestamp with time zone" || dt == "datetime" || (d.name == "mysql" && dt == "timestamp") {
			return fracCheck(t, c, write)
		}
		return "a TIMESTAMP_LTZ needs a timestamp with time zone column (MySQL: TIMESTAMP or DATETIME, read and written in UTC)"
	}
	return fmt.Sprintf("type %s cannot be stored by the jdbc connector", t)
}

// fracCheck: the column keeps as many fraction digits as are written
// (streamsql keeps milliseconds), or the type as many as are read.
func fracCheck(t types.T, c dbColumn, write bool) string {
	if !c.timePrec.Valid {
		return ""
	}
	if write && c.timePrec.Int64 < int64(min(t.Precision, 3)) {
		return fmt.Sprintf("the column keeps %d fraction digits of a second, the type %d: times would be rounded", c.timePrec.Int64, min(t.Precision, 3))
	}
	if !write && int64(t.Precision) < min(c.timePrec.Int64, 3) {
		return fmt.Sprintf("the column keeps %d fraction digits of a second, the type %d: times would be cut", c.timePrec.Int64, t.Precision)
	}
	return ""
}
