package parser

import (
	"strings"

	"github.com/streamsql/streamsql/ast"
	"github.com/streamsql/streamsql/diag"
)

// createTable parses the rest of CREATE [TEMPORARY] TABLE.
//
//	CREATE TABLE [IF NOT EXISTS] name (
//	  col TYPE [NOT NULL] [PRIMARY KEY NOT ENFORCED] [COMMENT '...']
//	| col AS expr [COMMENT '...']
//	| col TYPE METADATA [FROM 'key'] [VIRTUAL]
//	| WATERMARK FOR col AS expr
//	| [CONSTRAINT name] PRIMARY KEY (col, ...) NOT ENFORCED
//	, ...) [COMMENT '...'] [PARTITIONED BY (col, ...)] [WITH ('k' = 'v', ...)]
//	[LIKE source_table [(INCLUDING | EXCLUDING | OVERWRITING feature, ...)]]
//
// With LIKE the column list may be left out.
func (p *stmtParser) createTable(start diag.Pos, temp bool) ast.Stmt {
	ct := &ast.CreateTable{Temporary: temp, WithSpan: diag.NoSpan}
	ct.IfNotExists = p.acceptSeq("IF", "NOT", "EXISTS")
	ct.Name = p.ident("a table name")
	// With LIKE the column list may be left out: CREATE TABLE t WITH (...)
	// LIKE s.
	if !p.peek().isOp("(") && !p.peek().is("WITH") && !p.peek().is("LIKE") {
		p.expectedf("'(' and the column list after CREATE TABLE %s", ct.Name.Name)
	}
	if p.peek().isOp("(") {
		open := p.next()
		for {
			p.tableElement(ct)
			if p.acceptOp(",") {
				continue
			}
			if p.acceptOp(")") {
				break
			}
			t := p.peek()
			if t.kind == tEOF {
				p.failf(diag.UnbalancedParen, open.span(), "the column list opened here is not closed: expected ')'")
			}
			p.failf(diag.SyntaxError, t.span(), "expected ',' or ')' after a column definition, found %s", t.describe())
		}
	}
	if p.accept("COMMENT") {
		ct.Comment = p.stringLit("a comment")
	}
	if p.acceptSeq("PARTITIONED", "BY") {
		p.expectOp("(")
		ct.PartitionBy = p.identList("a column name")
		p.expectOp(")")
	}
	if w := p.peek(); w.is("WITH") {
		p.next()
		if !p.peek().isOp("(") {
			p.expectedf("'(' after WITH, as in WITH ('connector' = 'kafka', ...)")
		}
		p.next()
		if !p.acceptOp(")") {
			ct.Options = p.optionList("WITH")
			p.expectOp(")")
		}
		ct.WithSpan = p.span(w.start)
	} else if w.kind != tEOF && !w.is("LIKE") {
		p.expectedf("WITH (...) after the column list")
	}
	if l := p.peek(); l.is("LIKE") {
		p.next()
		ct.Like = p.tableLike(l.start)
	}
	if ct.Like == nil && len(ct.Columns)+len(ct.Watermarks)+len(ct.PrimaryKeys) == 0 {
		p.failf(diag.SyntaxError, ct.Name.S, "CREATE TABLE %s has no column list: list the columns, or derive them from another table with LIKE after the WITH clause", ct.Name.Name)
	}
	ct.S = p.span(start)
	return ct
}

// likeFeatures are the features a LIKE option names, with whether
// OVERWRITING applies to them (Flink: not to ALL, CONSTRAINTS and
// PARTITIONS, which a table has one of).
var likeFeatures = map[string]bool{"ALL": false, "CONSTRAINTS": false, "PARTITIONS": false,
	"GENERATED": true, "METADATA": true, "OPTIONS": true, "WATERMARKS": true}

// tableLike parses the rest of LIKE source [(option, ...)].
//
//	option: { INCLUDING | EXCLUDING } { ALL | CONSTRAINTS | PARTITIONS }
//	      | { INCLUDING | EXCLUDING | OVERWRITING } { GENERATED | METADATA | OPTIONS | WATERMARKS }
func (p *stmtParser) tableLike(start diag.Pos) *ast.TableLike {
	tl := &ast.TableLike{Source: p.ident("the name of the table to copy after LIKE")}
	if p.peek().isOp("(") {
		p.next()
		seen := map[string]bool{}
		for {
			st := p.peek()
			if !st.is("INCLUDING") && !st.is("EXCLUDING") && !st.is("OVERWRITING") {
				p.expectedf("INCLUDING, EXCLUDING or OVERWRITING")
			}
			p.next()
			ft := p.peek()
			overwrite, known := likeFeatures[strings.ToUpper(ft.val)]
			if !ft.isName() || !known {
				p.expectedf("ALL, CONSTRAINTS, GENERATED, METADATA, OPTIONS, PARTITIONS or WATERMARKS after %s", strings.ToUpper(st.val))
			}
			p.next()
			o := &ast.LikeOption{Strategy: strings.ToUpper(st.val), Feature: strings.ToUpper(ft.val)}
			o.S = p.span(st.start)
			if o.Strategy == "OVERWRITING" && !overwrite {
				p.failf(diag.SyntaxError, o.S, "OVERWRITING %s is not possible: a table has one primary key and one partitioning, which cannot be merged; use INCLUDING or EXCLUDING %s", o.Feature, o.Feature)
			}
			if seen[o.Feature] {
				p.failf(diag.SyntaxError, o.S, "%s is named twice in the LIKE options: each feature takes one strategy", o.Feature)
			}
			seen[o.Feature] = true
			tl.Options = append(tl.Options, o)
			if p.acceptOp(")") {
				break
			}
			if !p.peek().isOp(",") {
				p.expectedf("',' or ')' after %s %s", o.Strategy, o.Feature)
			}
			p.next()
		}
	}
	tl.S = p.span(start)
	return tl
}

// optionList parses 'k' = 'v' [, ...].
func (p *stmtParser) optionList(where string) []*ast.Option {
	var opts []*ast.Option
	for {
		k := p.peek()
		if k.kind == tIdent || k.kind == tQIdent {
			p.failf(diag.SyntaxError, k.span(), "option keys in %s are quoted strings: write '%s' = '...'", where, k.val)
		}
		o := &ast.Option{Key: p.stringLit("an option key")}
		if !p.peek().isOp("=") {
			p.expectedf("'=' after option '%s'", o.Key.Value)
		}
		p.next()
		v := p.peek()
		if v.kind == tNumber || v.is("TRUE") || v.is("FALSE") {
			p.failf(diag.SyntaxError, v.span(), "option values are quoted strings: write '%s' = '%s'", o.Key.Value, v.val)
		}
		o.Value = p.stringLit("an option value")
		o.S = diag.Span{Start: o.Key.S.Start, End: o.Value.S.End}
		opts = append(opts, o)
		if !p.peek().isOp(",") || p.peekN(1).isOp(")") {
			p.acceptOp(",") // a trailing comma is forgiven
			return opts
		}
		p.next()
	}
}

func (p *stmtParser) tableElement(ct *ast.CreateTable) {
	t := p.peek()
	switch {
	case t.is("WATERMARK") && p.peekN(1).is("FOR"):
		p.next()
		p.next()
		wm := &ast.WatermarkDef{Column: p.ident("the time column of the watermark")}
		if !p.peek().is("AS") {
			p.expectedf("AS and the watermark expression, as in WATERMARK FOR %s AS %s - INTERVAL '5' SECOND", wm.Column.Name, wm.Column.Name)
		}
		p.next()
		wm.Expr = p.elementExpr("a watermark expression")
		wm.S = p.span(t.start)
		ct.Watermarks = append(ct.Watermarks, wm)
	case t.is("PRIMARY") || t.is("CONSTRAINT"):
		pk := &ast.PrimaryKeyDef{}
		p.next()
		if t.is("CONSTRAINT") {
			pk.Name = p.ident("a constraint name")
			p.expect("PRIMARY")
		}
		p.expect("KEY")
		p.expectOp("(")
		pk.Columns = p.identList("a primary key column")
		p.expectOp(")")
		pk.NotEnforced = p.notEnforced()
		pk.S = p.span(t.start)
		ct.PrimaryKeys = append(ct.PrimaryKeys, pk)
	default:
		ct.Columns = append(ct.Columns, p.column(ct))
	}
}

func (p *stmtParser) notEnforced() bool {
	if p.acceptSeq("NOT", "ENFORCED") {
		return true
	}
	if p.accept("ENFORCED") {
		return false
	}
	return false
}

func (p *stmtParser) column(ct *ast.CreateTable) *ast.ColumnDef {
	start := p.peek().start
	c := &ast.ColumnDef{Name: p.ident("a column name, WATERMARK FOR or PRIMARY KEY")}
	if p.accept("AS") {
		c.Kind = ast.ComputedColumn
		c.Expr = p.elementExpr("the expression of computed column " + c.Name.Name)
	} else {
		if t := p.peek(); t.isOp(",") || t.isOp(")") {
			p.failf(diag.SyntaxError, t.span(), "column %s needs a data type (for example %s STRING) or AS and an expression", c.Name.Name, c.Name.Name)
		}
		c.Type = p.typeName()
		c.NotNull = c.Type.NotNull
		if p.accept("METADATA") {
			c.Kind = ast.MetadataColumn
			if p.accept("FROM") {
				c.MetadataKey = p.stringLit("a metadata key")
			}
			c.Virtual = p.accept("VIRTUAL")
		}
		if pk := p.peek(); pk.is("PRIMARY") {
			p.next()
			p.expect("KEY")
			d := &ast.PrimaryKeyDef{Columns: []*ast.Ident{c.Name}, NotEnforced: p.notEnforced()}
			d.S = p.span(pk.start)
			c.InlinePrimaryKey = d
			ct.PrimaryKeys = append(ct.PrimaryKeys, d)
		}
	}
	if p.accept("COMMENT") {
		c.Comment = p.stringLit("a comment")
	}
	c.S = p.span(start)
	return c
}

// elementExpr parses an expression that runs to the next ',' or ')' at the
// current nesting level (a computed column or watermark expression).
func (p *stmtParser) elementExpr(what string) ast.Expr {
	from := p.i
	depth := 0
	for ; p.i < len(p.toks); p.i++ {
		t := p.toks[p.i]
		if t.isOp("(") {
			depth++
		} else if t.isOp(")") {
			if depth == 0 {
				break
			}
			depth--
		} else if depth == 0 && (t.isOp(",") || t.is("COMMENT")) {
			break
		}
	}
	if p.i == from {
		p.expectedf("%s", what)
	}
	e := parseExprRegion(p.src, p.toks[from:p.i], p.l)
	if e == nil {
		panic(bailout{})
	}
	return e
}

// typeName parses a data type:
//
//	STRING | BOOLEAN | INT | BIGINT | DECIMAL(p, s) | VARCHAR(n)
//	TIMESTAMP[(p)] [WITHOUT TIME ZONE | WITH LOCAL TIME ZONE]
//	TIMESTAMP_LTZ[(p)] | BYTES | ... [NOT NULL | NULL]
//
// The name is upper-cased, multi-word names joined by one space; types
// checks that the name and parameters make sense.
func (p *stmtParser) typeName() *ast.TypeName {
	t := p.peek()
	if t.kind != tIdent {
		p.expectedf("a data type (STRING, BIGINT, TIMESTAMP(3), ...)")
	}
	p.next()
	tn := &ast.TypeName{Name: strings.ToUpper(t.val)}
	switch tn.Name {
	case "DOUBLE":
		if p.accept("PRECISION") {
			tn.Name = "DOUBLE PRECISION"
		}
	case "CHARACTER", "CHAR":
		if p.accept("VARYING") {
			tn.Name = "VARCHAR"
		}
	case "ARRAY", "MAP", "ROW":
		p.nestedType(tn, t.start)
		if p.acceptSeq("NOT", "NULL") {
			tn.NotNull = true
		} else {
			p.accept("NULL")
		}
		tn.S = p.span(t.start)
		return tn
	case "MULTISET", "RAW", "STRUCTURED":
		p.failf(diag.InvalidType, t.span(), "%s types are not supported; use ARRAY<T>, MAP<K, V>, ROW<f T, ...> or scalar types (STRING, BIGINT, DECIMAL, TIMESTAMP(3), ...)", tn.Name)
	}
	if p.peek().isOp("<") {
		p.failf(diag.InvalidType, p.peek().span(), "type %s takes no <...> arguments", tn.Name)
	}
	if p.acceptOp("(") {
		tn.HasParams = true
		tn.Params = append(tn.Params, p.intLit("a number (length or precision)"))
		for p.acceptOp(",") {
			tn.Params = append(tn.Params, p.intLit("a number (scale)"))
		}
		p.expectOp(")")
	}
	if tn.Name == "TIMESTAMP" || tn.Name == "TIME" {
		switch {
		case p.acceptSeq("WITH", "LOCAL", "TIME", "ZONE"):
			tn.Name += " WITH LOCAL TIME ZONE"
		case p.acceptSeq("WITHOUT", "TIME", "ZONE"):
			tn.Name += " WITHOUT TIME ZONE"
		case p.peek().is("WITH") && p.peekN(1).is("TIME"):
			p.failf(diag.InvalidType, p.span(t.start), "TIMESTAMP WITH TIME ZONE is not supported (as in Flink); use TIMESTAMP_LTZ(p) or TIMESTAMP(p)")
		}
	}
	if p.acceptSeq("NOT", "NULL") {
		tn.NotNull = true
	} else {
		p.accept("NULL")
	}
	tn.S = p.span(t.start)
	return tn
}

// nestedType parses the element types of ARRAY<T>, MAP<K, V> and
// ROW<name T, ...> (also ROW(name T, ...)); a field may carry a
// description string, which is ignored. A '>>' closing two types at once
// is split.
func (p *stmtParser) nestedType(tn *ast.TypeName, start diag.Pos) {
	closer := ">"
	switch {
	case p.peek().isOp("<>"):
		p.failf(diag.InvalidType, p.peek().span(), "%s needs its element types, as in %s", tn.Name,
			map[string]string{"ARRAY": "ARRAY<STRING>", "MAP": "MAP<STRING, BIGINT>", "ROW": "ROW<name STRING>"}[tn.Name])
	case p.acceptOp("<"):
	case tn.Name == "ROW" && p.acceptOp("("):
		closer = ")"
	case tn.Name == "ROW":
		p.expectedf("'<' or '(' after ROW, as in ROW<name STRING, price DECIMAL(10, 2)>")
	default:
		p.expectedf("'<' after %s, as in %s", tn.Name, map[string]string{"ARRAY": "ARRAY<STRING>", "MAP": "MAP<STRING, BIGINT>"}[tn.Name])
	}
	if tn.Name == "ROW" && p.closes(closer) {
		p.failf(diag.InvalidType, p.peek().span(), "ROW needs at least one field, as in ROW<name STRING>")
	}
	for {
		if tn.Name == "ROW" {
			tn.FieldNames = append(tn.FieldNames, p.ident("a field name"))
		}
		tn.Elems = append(tn.Elems, p.typeName())
		if tn.Name == "ROW" && p.peek().kind == tString {
			p.next() // a field's description
		}
		if !p.acceptOp(",") {
			break
		}
	}
	if !p.closes(closer) {
		p.expectedf("',' or '%s'", closer)
	}
	p.closeType(closer)
	want := map[string]int{"ARRAY": 1, "MAP": 2}[tn.Name]
	if want != 0 && len(tn.Elems) != want {
		p.failf(diag.InvalidType, p.span(start), "%s takes %d element type(s), got %d; write %s", tn.Name, want, len(tn.Elems),
			map[string]string{"ARRAY": "ARRAY<T>", "MAP": "MAP<K, V>"}[tn.Name])
	}
}

// closes reports whether the next token closes a type list with closer
// (a '>>' closes one and the enclosing one).
func (p *stmtParser) closes(closer string) bool {
	t := p.peek()
	return t.isOp(closer) || closer == ">" && t.isOp(">>")
}

// closeType consumes closer; of a '>>' it consumes the first '>' and leaves
// the second for the enclosing type.
func (p *stmtParser) closeType(closer string) {
	if t := p.peek(); closer == ">" && t.isOp(">>") {
		// The tokens may be shared (CAST's come from the rewriter's):
		// split on a copy.
		p.toks = append([]token(nil), p.toks...)
		p.toks[p.i] = token{kind: tOp, start: t.start + 1, end: t.end, val: ">"}
		return
	}
	p.next()
}
