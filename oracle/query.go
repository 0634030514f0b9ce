package oracle

import (
	"fmt"
	"math"
	"strings"
)

// rel is a FROM item of a generated query.
type rel struct {
	// kind is scan, window (a TUMBLE, HOP or CUMULATE window TVF over a
	// time table),
	// derived (a subquery) or join.
	kind  string
	table *table
	alias string
	// window: fn is TUMBLE, HOP or CUMULATE; size the window size in ms,
	// step HOP's slide or CUMULATE's step (a divisor of size).
	fn         string
	size, step int64
	sub        *sel // derived
	// join: left-deep, right is a scan or a derived table.
	left, right *rel
	join        string // JOIN, LEFT JOIN, RIGHT JOIN, FULL JOIN
	on          *node

	sc scope // derived by typecheck
}

// item is a select item; every item is named.
type item struct {
	e    *node
	name string
}

// sel is a SELECT (with its UNION ALL branches).
type sel struct {
	distinct bool
	items    []item
	from     *rel
	where    *node
	// subs are WHERE conjuncts over subqueries, after where.
	subs []*subPred
	// aggregate marks a GROUP BY select (group may be empty: a global
	// aggregate).
	aggregate bool
	group     []*node
	having    *node
	union     *sel
	// setOp is how union joins s: "" for UNION ALL, or INTERSECT or
	// EXCEPT (distinct; then union is a single select).
	setOp string

	out scope // derived by typecheck; q is empty
	// capped: a UNION ALL column's common type is wider than 38 digits.
	capped bool
}

// maxRows bounds the rows of a generated table (the cardinality bound
// of aggregates and joins).
const maxRows = 40

func (r *rel) clone() *rel {
	if r == nil {
		return nil
	}
	c := *r
	c.sub = r.sub.clone()
	c.left, c.right = r.left.clone(), r.right.clone()
	c.on = r.on.clone()
	return &c
}

func (s *sel) clone() *sel {
	if s == nil {
		return nil
	}
	c := *s
	c.items = make([]item, len(s.items))
	for i, it := range s.items {
		c.items[i] = item{e: it.e.clone(), name: it.name}
	}
	c.from = s.from.clone()
	c.where = s.where.clone()
	c.subs = make([]*subPred, len(s.subs))
	for i, p := range s.subs {
		c.subs[i] = p.clone()
	}
	c.group = make([]*node, len(s.group))
	for i, g := range s.group {
		c.group[i] = g.clone()
	}
	c.having = s.having.clone()
	c.union = s.union.clone()
	return &c
}

func baseCol(c *column) scopeCol {
	sc := scopeCol{name: c.name, t: c.t, mag: c.mag(), nullable: c.dom.nulls > 0, base: c}
	switch c.t.k {
	case kInt, kBigint:
		sc.minAbs = 1
	case kDecimal:
		sc.minAbs = math.Pow10(-c.t.s)
	case kDouble:
		sc.minAbs = 0.125
	default:
	}
	return sc
}

func (r *rel) typecheck() error {
	r.sc = scope{}
	switch r.kind {
	case "scan", "window":
		q := r.alias
		if r.kind == "window" {
			q = ""
			if r.table.timeCol < 0 {
				return fail("a window over a table without event time")
			}
			if r.fn != "TUMBLE" && (r.step <= 0 || r.size%r.step != 0) {
				return fail("a window step must divide its size")
			}
		}
		for i := range r.table.cols {
			c := baseCol(&r.table.cols[i])
			c.q = q
			c.time = i == r.table.timeCol
			r.sc.cols = append(r.sc.cols, c)
		}
		if r.kind == "window" {
			for _, n := range []string{"window_start", "window_end"} {
				r.sc.cols = append(r.sc.cols, scopeCol{name: n, t: tTimestamp})
			}
		}
		r.sc.card = maxRows
	case "derived":
		if err := r.sub.typecheck(); err != nil {
			return err
		}
		for _, c := range r.sub.out.cols {
			c.q = r.alias
			r.sc.cols = append(r.sc.cols, c)
		}
		r.sc.card = r.sub.out.card
	case "join":
		if r.right.kind == "join" {
			return fail("joins are left-deep")
		}
		if r.on == nil {
			return fail("a join without a condition")
		}
		if err := r.left.typecheck(); err != nil {
			return err
		}
		if err := r.right.typecheck(); err != nil {
			return err
		}
		l, rr := r.left.sc.cols, r.right.sc.cols
		for _, c := range l {
			if r.join == "RIGHT JOIN" || r.join == "FULL JOIN" {
				c.padded, c.nullable = true, true
			}
			r.sc.cols = append(r.sc.cols, c)
		}
		for _, c := range rr {
			if r.join == "LEFT JOIN" || r.join == "FULL JOIN" {
				c.padded, c.nullable = true, true
			}
			r.sc.cols = append(r.sc.cols, c)
		}
		r.sc.card = r.left.sc.card * r.right.sc.card
		on := scope{cols: append(append([]scopeCol(nil), l...), rr...), card: r.sc.card}
		if err := r.on.typecheck(ctx{sc: &on}); err != nil {
			return err
		}
		if r.on.t.k != kBool || r.on.hasAgg {
			return fail("join condition")
		}
		if eqNegZero(r.on) {
			return fail("a join equality over a DOUBLE that can be -0.0")
		}
		if r.join != "JOIN" && plainTimeBound(r.on, &r.left.sc, &r.right.sc) {
			// streamsql refuses it (SQL403): without watermarks the padded
			// rows would never come out.
			return fail("an outer join bounded in time on columns without watermarks")
		}
	default:
		return fail("unknown rel %q", r.kind)
	}
	seen := map[string]bool{}
	for _, c := range r.sc.cols {
		if seen[c.q+"."+c.name] {
			return fail("duplicate column %s.%s", c.q, c.name)
		}
		seen[c.q+"."+c.name] = true
	}
	return nil
}

// typecheck derives the select's output and refuses what is not a valid
// query of the model.
func (s *sel) typecheck() error {
	if err := s.from.typecheck(); err != nil {
		return err
	}
	in := &s.from.sc
	if s.where != nil {
		if err := s.where.typecheck(ctx{sc: in}); err != nil {
			return err
		}
		if s.where.t.k != kBool || s.where.hasAgg {
			return fail("WHERE")
		}
	}
	for _, p := range s.subs {
		if err := p.typecheck(in); err != nil {
			return err
		}
	}
	for _, g := range s.group {
		if g.op != "col" {
			return fail("GROUP BY takes columns")
		}
		if err := g.typecheck(ctx{sc: in}); err != nil {
			return err
		}
		if g.negZero {
			return fail("GROUP BY a DOUBLE that can be -0.0")
		}
	}
	if !s.aggregate && (len(s.group) > 0 || s.having != nil) {
		return fail("GROUP BY or HAVING outside an aggregate select")
	}
	if s.from.kind == "window" && (!s.aggregate || !s.groupedBy("window_start") || !s.groupedBy("window_end")) {
		return fail("a TUMBLE is grouped by window_start and window_end")
	}
	if len(s.items) == 0 {
		return fail("no items")
	}
	c := ctx{sc: in, agg: s.aggregate, group: s.group}
	s.out = scope{card: in.card}
	if s.aggregate && len(s.group) == 0 {
		s.out.card = 1
	}
	names := map[string]bool{}
	for _, it := range s.items {
		if err := it.e.typecheck(c); err != nil {
			return err
		}
		if names[it.name] {
			return fail("duplicate item %s", it.name)
		}
		names[it.name] = true
		oc := scopeCol{name: it.name, t: it.e.t, mag: it.e.mag, minAbs: it.e.minAbs, nullable: it.e.nullable,
			padded: paddedIn(it.e, in), negZero: it.e.negZero}
		if s.distinct && it.e.negZero {
			// Flink and streamsql tell -0.0 from 0.0 in keys (they compare
			// bits), PostgreSQL does not.
			return fail("DISTINCT over a DOUBLE that can be -0.0")
		}
		if it.e.op == "col" && !s.aggregate && s.union == nil && len(s.subs) == 0 {
			// (A semi or anti join's rows have no time attributes.)
			sc := in.lookup(it.e.q, it.e.name)
			oc.time, oc.base = sc.time, sc.base
		}
		s.out.cols = append(s.out.cols, oc)
	}
	if s.having != nil {
		if err := s.having.typecheck(c); err != nil {
			return err
		}
		if s.having.t.k != kBool {
			return fail("HAVING")
		}
	}
	if s.union != nil {
		if err := s.union.typecheck(); err != nil {
			return err
		}
		o := s.union.out
		if len(o.cols) != len(s.out.cols) {
			return fail("UNION ALL of %d and %d columns", len(s.out.cols), len(o.cols))
		}
		s.capped = false
		for i := range s.out.cols {
			a, b := &s.out.cols[i], o.cols[i]
			s.capped = s.capped || commonCapped(a.t, b.t)
			t, ok := common(a.t, b.t)
			if !ok || t.k == kBool {
				return fail("UNION ALL of %s and %s", a.t, b.t)
			}
			a.t, a.mag, a.nullable, a.padded = t, math.Max(a.mag, b.mag), a.nullable || b.nullable, a.padded || b.padded
			a.negZero = a.negZero || b.negZero
			if s.setOp != "" && a.negZero {
				// -0.0 and 0.0 are one row: which one shows differs.
				return fail("%s over a DOUBLE that can be -0.0", s.setOp)
			}
			a.minAbs = math.Min(a.minAbs, b.minAbs)
			a.time, a.base = false, nil
			if a.mag > limit(t) {
				return fail("UNION ALL may overflow %s", t)
			}
		}
		if s.setOp != "" && s.union.union != nil {
			return fail("%s of a UNION ALL chain", s.setOp)
		}
		s.out.card += o.card
	}
	return nil
}

func (s *sel) setOpWord() string {
	if s.setOp == "" {
		return "UNION ALL"
	}
	return s.setOp
}

func (s *sel) groupedBy(name string) bool {
	for _, g := range s.group {
		if g.name == name {
			return true
		}
	}
	return false
}

// paddedIn reports whether n reads a column of an outer join's padded
// side.
func paddedIn(n *node, sc *scope) bool {
	if n.op == "col" {
		if c := sc.lookup(n.q, n.name); c != nil && c.padded {
			return true
		}
	}
	for _, a := range n.args {
		if paddedIn(a, sc) {
			return true
		}
	}
	return false
}

// flink renders the select as a streamsql query.
func (s *sel) flink(b *strings.Builder) {
	b.WriteString("SELECT ")
	if s.distinct {
		b.WriteString("DISTINCT ")
	}
	for i, it := range s.items {
		if i > 0 {
			b.WriteString(", ")
		}
		it.e.flink(b)
		b.WriteString(" AS " + it.name)
	}
	b.WriteString(" FROM ")
	s.from.flink(b)
	if s.where != nil {
		b.WriteString(" WHERE ")
		s.where.flink(b)
	}
	for i, p := range s.subs {
		b.WriteString([]string{" WHERE ", " AND "}[min(i+boolInt(s.where != nil), 1)])
		p.flink(b)
	}
	if len(s.group) > 0 {
		b.WriteString(" GROUP BY ")
		for i, g := range s.group {
			if i > 0 {
				b.WriteString(", ")
			}
			g.flink(b)
		}
	}
	if s.having != nil {
		b.WriteString(" HAVING ")
		s.having.flink(b)
	}
	if s.union != nil {
		b.WriteString(" " + s.setOpWord() + " ")
		s.union.flink(b)
	}
}

func (r *rel) flink(b *strings.Builder) {
	switch r.kind {
	case "scan":
		b.WriteString(r.table.name + " AS " + r.alias)
	case "window":
		fmt.Fprintf(b, "TABLE(%s(TABLE %s, DESCRIPTOR(%s), ", r.fn, r.table.name, r.table.cols[r.table.timeCol].name)
		if r.fn != "TUMBLE" {
			fmt.Fprintf(b, "INTERVAL '%d' SECOND, ", r.step/1000)
		}
		fmt.Fprintf(b, "INTERVAL '%d' SECOND))", r.size/1000)
	case "derived":
		b.WriteString("(")
		r.sub.flink(b)
		b.WriteString(") AS " + r.alias)
	case "join":
		r.left.flink(b)
		b.WriteString(" " + r.join + " ")
		r.right.flink(b)
		b.WriteString(" ON ")
		r.on.flink(b)
	}
}

// pg renders the select as PostgreSQL must run it to give streamsql's
// answer.
func (s *sel) pg(b *pgw) {
	b.WriteString("SELECT ")
	if s.distinct {
		b.WriteString("DISTINCT ")
	}
	// The renames of the FROM clause (a rewritten FULL JOIN) hold for
	// this select only.
	saved := b.rename
	b.rename = copyMap(saved)
	from := pgw{rename: b.rename, fulls: b.fulls}
	s.from.pg(&from)
	b.rename = from.rename
	for i, it := range s.items {
		if i > 0 {
			b.WriteString(", ")
		}
		it.e.pgAs(b, s.out.cols[i].t)
		b.WriteString(" AS " + it.name)
	}
	b.WriteString(" FROM ")
	b.WriteString(from.String())
	if s.where != nil {
		b.WriteString(" WHERE ")
		s.where.pg(b)
	}
	for i, p := range s.subs {
		b.WriteString([]string{" WHERE ", " AND "}[min(i+boolInt(s.where != nil), 1)])
		p.pg(b)
	}
	if len(s.group) > 0 {
		b.WriteString(" GROUP BY ")
		for i, g := range s.group {
			if i > 0 {
				b.WriteString(", ")
			}
			g.pg(b)
		}
	}
	switch {
	case s.aggregate && len(s.group) == 0:
		// A streaming global aggregate has a row only while its input has
		// rows: none before the first, and a retraction after the last.
		b.WriteString(" HAVING COUNT(*) > 0")
		if s.having != nil {
			b.WriteString(" AND ")
			s.having.pg(b)
		}
	case s.having != nil:
		b.WriteString(" HAVING ")
		s.having.pg(b)
	}
	b.rename = saved
	if s.union != nil {
		b.WriteString(" " + s.setOpWord() + " ")
		// The branches are converted to the union's types.
		u := s.union
		saved := u.out.cols
		u.out.cols = s.out.cols
		u.pg(b)
		u.out.cols = saved
	}
}

func copyMap(m map[string]string) map[string]string {
	c := make(map[string]string, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

func (r *rel) pg(b *pgw) {
	switch r.kind {
	case "scan":
		b.WriteString(r.table.name + " AS " + r.alias)
	case "window":
		ts := r.table.cols[r.table.timeCol].name
		bin := func(ms int64, origin string) string {
			return fmt.Sprintf("DATE_BIN(INTERVAL '%d seconds', %s, %s)", ms/1000, ts, origin)
		}
		const epoch = "TIMESTAMP '1970-01-01'"
		iv := func(ms int64) string { return fmt.Sprintf("INTERVAL '%d seconds'", ms/1000) }
		switch r.fn {
		case "TUMBLE":
			// A row is in the window [start, start + size) that holds it.
			fmt.Fprintf(b, "(SELECT *, %s AS window_start, %s + %s AS window_end FROM %s) AS w",
				bin(r.size, epoch), bin(r.size, epoch), iv(r.size), r.table.name)
		case "HOP":
			// A row is in every window [s, s + size) with s a multiple of
			// the slide and s <= ts < s + size.
			fmt.Fprintf(b, "(SELECT %s.*, ws AS window_start, ws + %s AS window_end FROM %s, "+
				"LATERAL GENERATE_SERIES(%s - %s + %s, %s, %s) AS ws) AS w",
				r.table.name, iv(r.size), r.table.name, bin(r.step, epoch), iv(r.size), iv(r.step), bin(r.step, epoch), iv(r.step))
		case "CUMULATE":
			// A row is in the windows [s, e) of its size-aligned s whose
			// end e (a multiple of the step after s, at most s + size) is
			// past it.
			start := bin(r.size, epoch)
			fmt.Fprintf(b, "(SELECT %s.*, %s AS window_start, we AS window_end FROM %s, "+
				"LATERAL GENERATE_SERIES(%s + %s, %s + %s, %s) AS we) AS w",
				r.table.name, start, r.table.name, bin(r.step, start), iv(r.step), start, iv(r.size), iv(r.step))
		}
	case "derived":
		b.WriteString("(")
		sub := &pgw{rename: map[string]string{}, fulls: b.fulls}
		r.sub.pg(sub)
		b.WriteString(sub.String())
		b.WriteString(") AS " + r.alias)
	case "join":
		if r.join == "FULL JOIN" && !equiOnly(r.on, &r.left.sc, &r.right.sc) {
			r.pgFull(b)
			return
		}
		r.left.pg(b)
		b.WriteString(" " + r.join + " ")
		r.right.pg(b)
		b.WriteString(" ON ")
		r.on.pg(b)
	}
}

// pgFull writes X FULL JOIN Y ON c for a condition PostgreSQL cannot run
// as a full join (it needs hash- or merge-joinable conditions) as
//
//	(SELECT X's and Y's columns FROM X LEFT JOIN Y ON c
//	 UNION ALL
//	 SELECT NULLs, Y's columns FROM Y WHERE NOT EXISTS (SELECT 1 FROM X WHERE c)) AS fjN
//
// and renames every column of X and Y to fjN.q__name for the rest of the
// query.
func (r *rel) pgFull(b *pgw) {
	*b.fulls++
	name := fmt.Sprintf("fj%d", *b.fulls)
	// X is written once and used twice: in the NOT EXISTS subquery its
	// aliases shadow the outer ones, and c's references to Y reach the
	// outer Y.
	left := &pgw{rename: copyMap(b.rename), fulls: b.fulls}
	r.left.pg(left)
	right := &pgw{rename: left.rename, fulls: b.fulls}
	r.right.pg(right)
	on := &pgw{rename: left.rename, fulls: b.fulls}
	r.on.pg(on)
	colName := func(c scopeCol) string { return c.q + "__" + c.name }
	ref := func(c scopeCol) string {
		if x, ok := left.rename[c.q+"."+c.name]; ok {
			return x
		}
		return c.q + "." + c.name
	}
	var first, second []string
	for _, c := range r.left.sc.cols {
		first = append(first, ref(c)+" AS "+colName(c))
		second = append(second, "CAST(NULL AS "+pgType(c.t)+") AS "+colName(c))
	}
	for _, c := range r.right.sc.cols {
		first = append(first, ref(c)+" AS "+colName(c))
		second = append(second, ref(c)+" AS "+colName(c))
	}
	fmt.Fprintf(b, "(SELECT %s FROM %s LEFT JOIN %s ON %s UNION ALL SELECT %s FROM %s WHERE NOT EXISTS (SELECT 1 FROM %s WHERE %s)) AS %s",
		strings.Join(first, ", "), left.String(), right.String(), on.String(),
		strings.Join(second, ", "), right.String(), left.String(), on.String(), name)
	for _, c := range append(append([]scopeCol(nil), r.left.sc.cols...), r.right.sc.cols...) {
		b.rename[c.q+"."+c.name] = name + "." + colName(c)
	}
}

// sideOf says which side of a join n reads: 0 left, 1 right, 2 both, -1
// neither; plain is set when a column it reads is not an event-time
// attribute.
func sideOf(n *node, l, r *scope) (side int, plain bool) {
	side = -1
	var walk func(n *node)
	walk = func(n *node) {
		if n.op == "col" {
			x := 2
			var c *scopeCol
			if c = l.lookup(n.q, n.name); c != nil {
				x = 0
			} else if c = r.lookup(n.q, n.name); c != nil {
				x = 1
			}
			if c == nil || !c.time {
				plain = true
			}
			switch side {
			case -1:
				side = x
			case x:
			default:
				side = 2
			}
		}
		for _, a := range n.args {
			walk(a)
		}
	}
	walk(n)
	return side, plain
}

// plainTimeBound reports whether a join condition compares timestamps of
// the two sides with <, <=, >, >= or BETWEEN where one of them is not an
// event-time attribute.
func plainTimeBound(n *node, l, r *scope) bool {
	switch n.op {
	case "<", "<=", ">", ">=", "between":
		if n.args[0].t.k == kTimestamp {
			sides := map[int]bool{}
			anyPlain := false
			for _, a := range n.args {
				s, plain := sideOf(a, l, r)
				sides[s] = true
				anyPlain = anyPlain || plain
			}
			if (sides[0] && sides[1] || sides[2]) && anyPlain {
				return true
			}
		}
	}
	for _, a := range n.args {
		if plainTimeBound(a, l, r) {
			return true
		}
	}
	return false
}

// eqNegZero reports whether a condition has an equality over a value
// that can be -0.0: it may be a join key, and keys compare bits.
func eqNegZero(n *node) bool {
	if isEquality(n.op) && (n.args[0].negZero || n.args[1].negZero) {
		return true
	}
	for _, a := range n.args {
		if eqNegZero(a) {
			return true
		}
	}
	return false
}

// equiOnly reports whether a join condition is a conjunction of
// equalities between the two sides (what PostgreSQL can run as a FULL
// JOIN; not a.x = 3).
func equiOnly(n *node, l, r *scope) bool {
	switch n.op {
	case "and":
		return equiOnly(n.args[0], l, r) && equiOnly(n.args[1], l, r)
	case "=":
		a, _ := sideOf(n.args[0], l, r)
		b, _ := sideOf(n.args[1], l, r)
		return a == 0 && b == 1 || a == 1 && b == 0
	}
	return false
}

// subPred is a WHERE conjunct over a subquery (a semi or anti join):
//
//	x [NOT] IN (SELECT a.col FROM t AS a [WHERE corr AND where])
//	[NOT] EXISTS (SELECT 1 FROM t AS a WHERE corr [AND where])
//
// corr equates a column of the subquery's table with one of the outer
// query (a correlated subquery), where filters the subquery's rows.
type subPred struct {
	not, exists bool
	x           *node // IN's operand, over the outer scope
	from        *rel  // a scan
	col         string
	corr        *node // over the subquery's scope and the outer one
	where       *node // over the subquery's scope
}

func (p *subPred) clone() *subPred {
	c := *p
	c.x, c.corr, c.where = p.x.clone(), p.corr.clone(), p.where.clone()
	c.from = p.from.clone()
	return &c
}

func (p *subPred) typecheck(outer *scope) error {
	if err := p.from.typecheck(); err != nil {
		return err
	}
	in := &p.from.sc
	if p.where != nil {
		if err := p.where.typecheck(ctx{sc: in}); err != nil {
			return err
		}
	}
	if p.corr != nil {
		both := &scope{cols: append(append([]scopeCol(nil), in.cols...), outer.cols...), card: in.card}
		if err := p.corr.typecheck(ctx{sc: both}); err != nil {
			return err
		}
	}
	if !p.exists {
		if err := p.x.typecheck(ctx{sc: outer}); err != nil {
			return err
		}
		c := in.lookup(p.from.alias, p.col)
		if c == nil {
			return fail("IN selects no column %s", p.col)
		}
		if !comparableTypes(p.x.t, c.t) || p.x.negZero || c.negZero {
			return fail("IN over %s and %s", p.x.t, c.t)
		}
	}
	return nil
}

func (p *subPred) head() string {
	s := " IN (SELECT " + p.from.alias + "." + p.col
	switch {
	case p.exists && p.not:
		s = "NOT EXISTS (SELECT 1"
	case p.exists:
		s = "EXISTS (SELECT 1"
	}
	return s + " FROM " + p.from.table.name + " AS " + p.from.alias
}

func (p *subPred) flink(b *strings.Builder) {
	if !p.exists {
		p.x.flink(b)
		if p.not {
			b.WriteString(" NOT")
		}
	}
	b.WriteString(p.head())
	for i, c := range []*node{p.corr, p.where} {
		if c == nil {
			continue
		}
		b.WriteString([]string{" WHERE ", " AND "}[min(i, boolInt(p.corr != nil))])
		c.flink(b)
	}
	b.WriteString(")")
}

func (p *subPred) pg(b *pgw) {
	if !p.exists {
		p.x.pg(b)
		if p.not {
			b.WriteString(" NOT")
		}
	}
	b.WriteString(p.head())
	for i, c := range []*node{p.corr, p.where} {
		if c == nil {
			continue
		}
		b.WriteString([]string{" WHERE ", " AND "}[min(i, boolInt(p.corr != nil))])
		c.pg(b)
	}
	b.WriteString(")")
}

func boolInt(v bool) int {
	if v {
		return 1
	}
	return 0
}
