package catalog_test

import (
	"strings"
	"testing"

	"github.com/streamsql/streamsql/ast"
	"github.com/streamsql/streamsql/catalog"
	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/parser"
)

// session runs the CREATE/DROP statements of sql against one catalog and
// returns it with every diagnostic.
func session(t *testing.T, sql string) (*catalog.Catalog, diag.List) {
	t.Helper()
	f := parser.ParseString("job.sql", sql)
	if f.Diags.HasErrors() {
		t.Fatalf("parse: %v", f.Diags.Err())
	}
	c := catalog.New()
	l := f.Diags
	for _, s := range f.Stmts {
		switch s := s.(type) {
		case *ast.CreateTable:
			c.CreateTable(s, f.Source, &l)
		case *ast.Drop:
			c.Drop(s, &l)
		default:
			t.Fatalf("unexpected statement %T", s)
		}
	}
	return c, l
}

const files = `WITH ('connector' = 'filesystem', 'path' = 'x.json', 'format' = 'json')`

func TestCreateTableFacts(t *testing.T) {
	c, l := session(t, `CREATE TABLE orders (id BIGINT, amount DECIMAL(10, 2), ts TIMESTAMP(3),
		PRIMARY KEY (id) NOT ENFORCED,
		WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) `+files+`;
	CREATE TABLE clicks (u STRING, at TIMESTAMP(3), WATERMARK FOR at AS at - INTERVAL '2' MINUTE) `+files+`;`)
	if l.HasErrors() {
		t.Fatal(l.Err())
	}
	o, ok := c.Table("orders")
	if !ok {
		t.Fatal("orders not registered")
	}
	if o.Column("ts") != 2 || o.Column("amount") != 1 || o.Column("nope") != -1 {
		t.Fatalf("Column: ts %d amount %d nope %d, want 2 1 -1", o.Column("ts"), o.Column("amount"), o.Column("nope"))
	}
	if o.Watermark == nil || o.Watermark.Column != 2 || o.Watermark.DelayMillis != 5000 {
		t.Fatalf("orders watermark %+v, want column 2 delayed 5000 ms", o.Watermark)
	}
	if len(o.PrimaryKey) != 1 || o.PrimaryKey[0] != 0 {
		t.Fatalf("orders primary key %v, want [0]", o.PrimaryKey)
	}
	if o.Connector() != "filesystem" {
		t.Fatalf("connector %q", o.Connector())
	}
	k, _ := c.Table("clicks")
	if k.Watermark == nil || k.Watermark.DelayMillis != 2*60*1000 {
		t.Fatalf("clicks watermark %+v, want 120000 ms", k.Watermark)
	}
	if got := strings.Join(c.Names(), ","); got != "orders,clicks" {
		t.Fatalf("Names %s, want creation order orders,clicks", got)
	}
}

// Each definition is wrong in one way Flink refuses too; the catalog must
// say so with an error (and, for a second definition of a name, keep the
// first).
func TestCreateTableRefusals(t *testing.T) {
	for _, tc := range []struct{ name, sql, want string }{
		{"duplicate column", `CREATE TABLE t (a INT, a STRING) ` + files + `;`, "column a is declared twice [SQL201]"},
		{"watermark on a missing column", `CREATE TABLE t (a INT, ts TIMESTAMP(3), WATERMARK FOR tss AS tss) ` + files + `;`, "table t has no column tss [SQL207]"},
		{"watermark on a non-time column", `CREATE TABLE t (a INT, ts TIMESTAMP(3), WATERMARK FOR a AS a) ` + files + `;`, "WATERMARK FOR a: the column is INT, but a watermark needs TIMESTAMP(p) or TIMESTAMP_LTZ(p) with p <= 3 [SQL208]"},
		{"primary key on a missing column", `CREATE TABLE t (a INT, PRIMARY KEY (b) NOT ENFORCED) ` + files + `;`, "PRIMARY KEY names b, which is not a column of t [SQL206]"},
		{"a name defined twice", `CREATE TABLE t (a INT) ` + files + `; CREATE TABLE t (b INT) ` + files + `;`, "table t is already defined [SQL200]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, l := session(t, tc.sql)
			if !l.HasErrors() {
				t.Fatalf("no error for %s", tc.sql)
			}
			if msg := l.Err().Error(); !strings.Contains(msg, tc.want) {
				t.Fatalf("the error is not %q: %s", tc.want, msg)
			}
			if tc.name == "a name defined twice" {
				tab, _ := c.Table("t")
				if tab == nil || tab.Column("a") != 0 || tab.Column("b") != -1 {
					t.Fatalf("the second definition replaced the first: %+v", tab)
				}
			}
		})
	}
}

func TestDropAndRecreate(t *testing.T) {
	c, l := session(t, `CREATE TABLE t (a INT) `+files+`; DROP TABLE t; CREATE TABLE t (b INT) `+files+`;`)
	if l.HasErrors() {
		t.Fatal(l.Err())
	}
	tab, ok := c.Table("t")
	if !ok || tab.Column("b") != 0 || tab.Column("a") != -1 {
		t.Fatalf("after DROP and CREATE, t is %+v", tab)
	}
	if got := strings.Join(c.Names(), ","); got != "t" {
		t.Fatalf("Names %s, want t once", got)
	}
	_, l = session(t, `DROP TABLE nope;`)
	if !l.HasErrors() || !strings.Contains(l.Err().Error(), "nope") {
		t.Fatalf("DROP of an unknown table: %v", l.Err())
	}
}

// TestFakerColumnOptions: flink-faker's rules about its 'fields.<col>.'
// options, checked where the columns are known. An option naming a computed
// column is ignored with a warning (flink-faker generates physical columns
// only, and the cookbook's tables give their PROCTIME() column one).
func TestFakerColumnOptions(t *testing.T) {
	const head = `CREATE TABLE t (name STRING, spells ARRAY<STRING>, ages MAP<STRING, INT>, n INT, at AS PROCTIME()) WITH ('connector' = 'faker', `
	const ok = `'fields.name.expression' = '#{harry_potter.character}', 'fields.spells.expression' = '#{harry_potter.spell}', ` +
		`'fields.ages.key.expression' = '#{Name.firstName}', 'fields.ages.value.expression' = '#{number.numberBetween ''1'',''99''}', ` +
		`'fields.n.expression' = '#{number.numberBetween ''1'',''9''}'`
	for _, tc := range []struct{ name, opts, want string }{
		{"computed column", ok + `, 'fields.at.expression' = '#{date.past ''15'',''SECONDS''}'`,
			"warning: option 'fields.at.expression' is ignored: column at is a computed column, and faker generates only the physical columns"},
		{"no such column", ok + `, 'fields.nmae.null-rate' = '0.1'`,
			"error: option 'fields.nmae.null-rate' names no column of the table [SQL204]"},
		{"length of a scalar", ok + `, 'fields.n.length' = '3'`,
			"error: 'fields.n.length' is for ARRAY and MAP columns; column n is INT [SQL205]"},
		{"length below 1", ok + `, 'fields.spells.length' = '0'`, "[SQL205]"},
		{"map needs key and value", `'fields.name.expression' = 'x', 'fields.spells.expression' = 'y', 'fields.ages.expression' = 'z', 'fields.n.expression' = '1'`,
			"needs option 'fields.ages.key.expression'"},
		{"missing expression", `'fields.name.expression' = 'x', 'fields.spells.expression' = 'y', 'fields.ages.key.expression' = 'z', 'fields.ages.value.expression' = '1'`,
			"needs option 'fields.n.expression'"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, l := session(t, head+tc.opts+`);`)
			var got []string
			for _, d := range l.Items {
				got = append(got, d.Error())
			}
			if !strings.Contains(strings.Join(got, "\n"), tc.want) {
				t.Fatalf("diagnostics %q, want one containing %q", got, tc.want)
			}
		})
	}
	_, l := session(t, head+ok+`, 'fields.spells.length' = '3', 'fields.ages.length' = '2', 'fields.n.length' = '1');`)
	if len(l.Items) != 0 {
		t.Fatalf("a valid faker table gave %v", l.Items)
	}
}
