package oracle

import (
	"fmt"
	"math/rand"
	"sort"
	"strings"
)

// Case is one generated test: input tables and a query over them.
type Case struct {
	Seed   int64
	tables []*table
	q      *sel
	// p1only: run at parallelism 1 only (a feature switched off at 4).
	p1only bool
}

type family uint8

const (
	fAny family = iota
	fNum
	fStr
	fTs
	fBool
)

func familyOf(t typ) family {
	switch {
	case t.numeric():
		return fNum
	case t.k == kString:
		return fStr
	case t.k == kTimestamp:
		return fTs
	case t.k == kBool:
		return fBool
	}
	return fAny
}

type gen struct {
	r       *rand.Rand
	f       Features
	tables  []*table
	aliases int
	// keyType is the type of the first column of every table of a case
	// when MixedKeyTypes is off (joins need comparable keys).
	keyType typ
}

// Generate makes the case of a seed.
func Generate(seed int64, f Features) *Case {
	for attempt := int64(0); ; attempt++ {
		g := &gen{r: rand.New(rand.NewSource(seed*7919 + attempt)), f: f}
		c := g.attempt()
		if c == nil || c.q == nil {
			continue
		}
		c.Seed = seed
		if err := c.q.typecheck(); err == nil && f.allow(c.q) == nil {
			return c
		}
	}
}

// attempt generates a case, or nil when the attempt is abandoned.
func (g *gen) attempt() (c *Case) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(retry); !ok {
				panic(r)
			}
			c = nil
		}
	}()
	return g.generate()
}

func (g *gen) generate() *Case {
	g.keyType = g.randomType()
	c := &Case{}
	p := g.r.Float64()
	switch {
	case g.f.Interval && p < 0.15:
		c.q = g.intervalQuery()
	case g.f.Tumble && p < 0.28:
		c.q = g.windowQuery()
	default:
		c.q = g.plainQuery()
		if c.q.union != nil && !g.f.ParallelUnion {
			c.p1only = true
		}
	}
	c.tables = g.tables
	return c
}

func (g *gen) chance(p float64) bool { return g.r.Float64() < p }

// eqOp is the equality of a join key or a subquery's correlation: now and
// then the null-safe one (NULL matches NULL), when that feature is on.
func (g *gen) eqOp() string {
	if g.f.NullSafe && g.chance(0.3) {
		return opNotDistinct
	}
	return "="
}

func (g *gen) alias(prefix string) string {
	g.aliases++
	return fmt.Sprintf("%s%d", prefix, g.aliases)
}

func (g *gen) randomType() typ {
	switch g.r.Intn(7) {
	case 0, 1:
		return tInt
	case 2:
		return tBigint
	case 3, 4:
		p := 2 + g.r.Intn(9)
		return tDecimal(p, g.r.Intn(min(p, 4)+1))
	case 5:
		return tDouble
	}
	return tString
}

// newTable makes a table: a key column k (narrow), a few others, and for
// a time table an event-time column ts with a watermark.
func (g *gen) newTable(timed bool) *table {
	t := &table{name: fmt.Sprintf("t%d", len(g.tables)), timeCol: -1}
	g.tables = append(g.tables, t)
	kt := g.keyType
	if g.f.MixedKeyTypes && g.chance(0.5) {
		kt = g.randomType()
		if familyOf(kt) != familyOf(g.keyType) {
			kt = g.keyType
		}
	}
	key := column{name: "k", t: kt, dom: domain{narrow: true}}
	if g.chance(0.3) {
		key.dom.nulls = 0.15
	}
	t.cols = append(t.cols, key)
	for i, n := 0, 1+g.r.Intn(4); i < n; i++ {
		c := column{name: fmt.Sprintf("c%d", i), t: g.randomType(), dom: domain{narrow: g.chance(0.3)}}
		if g.chance(0.1) {
			c.t = tTimestamp
		}
		if g.chance(0.5) {
			c.dom.nulls = 0.2
		}
		t.cols = append(t.cols, c)
	}
	if timed {
		t.timeCol = len(t.cols)
		t.delay = int64(1+g.r.Intn(5)) * 1000
		t.cols = append(t.cols, column{name: "ts", t: tTimestamp})
	} else if g.f.Changelog && g.chance(0.4) {
		t.changelog = true
	}
	g.fill(t)
	return t
}

// fill generates the table's input.
func (g *gen) fill(t *table) {
	n := g.r.Intn(maxRows + 1)
	if g.chance(0.6) {
		n = g.r.Intn(16)
	}
	row := func() []value {
		v := make([]value, len(t.cols))
		for i, c := range t.cols {
			if i != t.timeCol {
				v[i] = genValue(g.r, c)
			}
		}
		return v
	}
	if t.timeCol >= 0 {
		// Times over a minute; rows come in order of time plus a noise
		// below the watermark delay, so no row is late: every row
		// before one at time x has a time below x + delay.
		type timed struct {
			v   []value
			key int64
		}
		var rows []timed
		for i := 0; i < n; i++ {
			v := row()
			ts := epoch + g.r.Int63n(60_000)
			if g.chance(0.2) && len(rows) > 0 {
				ts = rows[g.r.Intn(len(rows))].v[t.timeCol].(int64) // equal times
			}
			v[t.timeCol] = ts
			rows = append(rows, timed{v: v, key: ts + g.r.Int63n(t.delay)})
		}
		sort.SliceStable(rows, func(i, j int) bool { return rows[i].key < rows[j].key })
		for i, r := range rows {
			t.changes = append(t.changes, change{op: 'c', id: i, vals: r.v})
		}
		return
	}
	var live []int
	id := 0
	for inserts := 0; inserts < n; {
		switch {
		case !t.changelog || len(live) == 0 || g.chance(0.55):
			t.changes = append(t.changes, change{op: 'c', id: id, vals: row()})
			live = append(live, id)
			id++
			inserts++
		case g.chance(0.6):
			i := live[g.r.Intn(len(live))]
			old := g.current(t, i)
			v := append([]value(nil), old...)
			for k := 0; k < 1+g.r.Intn(2); k++ {
				j := g.r.Intn(len(t.cols))
				v[j] = genValue(g.r, t.cols[j])
			}
			t.changes = append(t.changes, change{op: 'u', id: i, vals: v})
		default:
			j := g.r.Intn(len(live))
			t.changes = append(t.changes, change{op: 'd', id: live[j]})
			live = append(live[:j], live[j+1:]...)
		}
	}
}

func (g *gen) current(t *table, id int) []value {
	var cur []value
	for _, c := range t.changes {
		if c.id == id && c.op != 'd' {
			cur = c.vals
		}
	}
	return cur
}

// scan reads a new table (or, sometimes, one the case already has: a
// self-join).
func (g *gen) scan(timed bool) *rel {
	var t *table
	if len(g.tables) > 0 && g.chance(0.15) {
		cand := g.tables[g.r.Intn(len(g.tables))]
		if (cand.timeCol >= 0) == timed {
			t = cand
		}
	}
	if t == nil {
		t = g.newTable(timed)
	}
	return &rel{kind: "scan", table: t, alias: g.alias("a")}
}

// retry abandons a generation attempt (a FROM item came out invalid,
// say a join key that may be -0.0); Generate starts another.
type retry struct{ err error }

func (g *gen) checked(r *rel) *rel {
	if err := r.typecheck(); err != nil {
		panic(retry{err})
	}
	return r
}

// input is a join input: a table, or a subquery over one.
func (g *gen) input() *rel {
	s := g.checked(g.scan(false))
	if !g.chance(0.25) {
		return s
	}
	sub := g.selectOver(s, g.chance(0.5), false)
	return &rel{kind: "derived", sub: sub, alias: g.alias("s")}
}

func (g *gen) plainQuery() *sel {
	from := g.input()
	for i, n := 0, g.r.Intn(3); i < n; i++ {
		right := g.checked(g.input())
		left := g.checked(from)
		on := g.joinCond(&left.sc, &right.sc)
		if on == nil {
			break
		}
		from = &rel{kind: "join", left: left, right: right, join: g.joinKind(), on: on}
	}
	g.checked(from)
	s := g.selectOver(from, g.chance(0.35), true)
	if g.chance(0.2) {
		// A query over the query: a subquery in FROM.
		if err := s.typecheck(); err == nil {
			d := g.checked(&rel{kind: "derived", sub: s, alias: g.alias("s")})
			s = g.selectOver(d, g.chance(0.3), true)
		}
	}
	if g.chance(0.15) {
		if err := s.typecheck(); err == nil {
			s.union = g.unionBranch(s)
		}
	} else if g.f.SetOps && g.chance(0.25) {
		if err := s.typecheck(); err == nil {
			s.setOp = []string{"INTERSECT", "EXCEPT"}[g.r.Intn(2)]
			s.union = g.unionBranch(s)
			if g.chance(0.6) {
				// The same select with another WHERE: rows in common.
				b := s.clone()
				b.union, b.setOp = nil, ""
				b.where = g.pred(&b.from.sc, 1)
				s.union = b
			}
		}
	}
	return s
}

func (g *gen) joinKind() string {
	switch g.r.Intn(6) {
	case 0, 1, 2:
		return "JOIN"
	case 3:
		return "LEFT JOIN"
	case 4:
		return "RIGHT JOIN"
	}
	return "FULL JOIN"
}

// keyOK says whether a column may be a join key under the features.
func (g *gen) keyOK(c scopeCol) bool {
	return (g.f.NullJoinKeys || !c.nullable) && c.t.k != kBool
}

// joinCond equates one or two pairs of comparable columns of the two
// sides, and sometimes adds another condition.
func (g *gen) joinCond(l, r *scope) *node {
	type pair struct{ a, b scopeCol }
	var pairs, narrow []pair
	for _, a := range l.cols {
		for _, b := range r.cols {
			if !g.keyOK(a) || !g.keyOK(b) || !comparableTypes(a.t, b.t) {
				continue
			}
			if !g.f.MixedKeyTypes && a.t != b.t {
				continue
			}
			p := pair{a, b}
			pairs = append(pairs, p)
			if a.base != nil && a.base.dom.narrow && b.base != nil && b.base.dom.narrow {
				narrow = append(narrow, p)
			}
		}
	}
	if len(narrow) > 0 && g.chance(0.8) {
		pairs = narrow
	}
	var on *node
	if len(pairs) == 0 {
		if !g.f.KeylessJoins {
			return nil // the case is generated again
		}
		// Nothing comparable: a condition that holds for no row, or for
		// every pair (a cross join).
		on = call("=", lit(int64(0), tInt), lit(int64(g.r.Intn(2)), tInt))
	}
	for i, n := 0, 1+g.r.Intn(2); i < n && len(pairs) > 0; i++ {
		p := pairs[g.r.Intn(len(pairs))]
		eq := call(g.eqOp(), col(p.a.q, p.a.name), col(p.b.q, p.b.name))
		if on == nil {
			on = eq
		} else {
			on = call("and", on, eq)
		}
	}
	if g.chance(0.25) {
		both := &scope{cols: append(append([]scopeCol(nil), l.cols...), r.cols...), card: l.card * r.card}
		on = call("and", on, g.pred(both, 1))
	}
	return on
}

// selectOver makes a select over a FROM item: an aggregate (GROUP BY) or a
// projection with a filter.
func (g *gen) selectOver(from *rel, aggregate, top bool) *sel {
	g.checked(from)
	sc := &from.sc
	s := &sel{from: from}
	if g.chance(0.5) {
		s.where = g.pred(sc, 2)
	}
	for g.f.Subqueries && g.chance(0.25) && len(s.subs) < 2 {
		if p := g.subPred(sc); p != nil {
			s.subs = append(s.subs, p)
		}
	}
	if aggregate {
		s.aggregate = true
		var groupable []scopeCol
		for _, c := range sc.cols {
			if c.t.k != kBool {
				groupable = append(groupable, c)
			}
		}
		for i, n := 0, g.r.Intn(3); i < n && len(groupable) > 0; i++ {
			// A second draw when the first is not a narrow column: groups
			// of a handful of values are likelier.
			c := groupable[g.r.Intn(len(groupable))]
			if c.base == nil || !c.base.dom.narrow {
				c = groupable[g.r.Intn(len(groupable))]
			}
			dup := false
			for _, x := range s.group {
				dup = dup || x.q == c.q && x.name == c.name
			}
			if !dup {
				s.group = append(s.group, col(c.q, c.name))
			}
		}
		for _, gc := range s.group {
			if g.chance(0.8) {
				e := gc.clone()
				if g.chance(0.2) {
					e = g.wrapGroupExpr(sc, gc)
				}
				s.items = append(s.items, item{e: e})
			}
		}
		for i, n := 0, 1+g.r.Intn(3); i < n; i++ {
			s.items = append(s.items, item{e: g.aggExpr(sc)})
		}
		if g.chance(0.3) {
			s.having = g.havingPred(sc)
		}
		// SELECT DISTINCT ... GROUP BY: the groups' rows, each once.
		s.distinct = g.f.DistinctGroupBy && len(s.group) > 0 && g.chance(0.15)
	} else {
		for i, n := 0, 1+g.r.Intn(4); i < n; i++ {
			s.items = append(s.items, item{e: g.expr(sc, fAny, 2)})
		}
		s.distinct = g.chance(0.15)
	}
	for i := range s.items {
		s.items[i].name = fmt.Sprintf("o%d", i)
	}
	return s
}

// subPred is an IN or EXISTS subquery over a table, for WHERE: IN pairs
// a column of the outer query with one of the table's; EXISTS (and
// sometimes IN) correlates the two on another such pair.
func (g *gen) subPred(outer *scope) *subPred {
	from := g.checked(g.scan(false))
	in := &from.sc
	type pair struct{ a, b scopeCol }
	var pairs []pair
	for _, a := range outer.cols {
		for _, b := range in.cols {
			if a.q != "" && g.keyOK(a) && g.keyOK(b) && comparableTypes(a.t, b.t) && !a.negZero && !b.negZero &&
				(g.f.MixedKeyTypes || a.t == b.t) {
				pairs = append(pairs, pair{a, b})
			}
		}
	}
	if len(pairs) == 0 {
		return nil
	}
	p := &subPred{not: g.chance(0.5), exists: g.chance(0.4), from: from}
	if !p.exists {
		pp := pairs[g.r.Intn(len(pairs))]
		p.x, p.col = col(pp.a.q, pp.a.name), pp.b.name
	}
	if p.exists || g.chance(0.4) {
		pp := pairs[g.r.Intn(len(pairs))]
		p.corr = call(g.eqOp(), col(pp.b.q, pp.b.name), col(pp.a.q, pp.a.name))
	}
	if g.chance(0.5) {
		p.where = g.pred(in, 1)
	}
	if p.typecheck(outer) != nil {
		return nil
	}
	return p
}

// wrapGroupExpr is an expression over a group column.
func (g *gen) wrapGroupExpr(sc *scope, gc *node) *node {
	c := sc.lookup(gc.q, gc.name)
	for try := 0; try < 10; try++ {
		var e *node
		switch familyOf(c.t) {
		case fNum:
			e = call([]string{"+", "-", "*"}[g.r.Intn(3)], gc.clone(), g.litLike(c))
		case fStr:
			e = call("concat", gc.clone(), lit("x", tString))
		default:
			e = call("coalesce", gc.clone(), g.litLike(c))
		}
		if e.typecheck(ctx{sc: sc}) == nil {
			return e
		}
	}
	return gc.clone()
}

var aggFns = []string{"COUNT*", "COUNT", "SUM", "AVG", "MIN", "MAX"}

// aggExpr is an aggregate call, sometimes inside arithmetic.
func (g *gen) aggExpr(sc *scope) *node {
	for try := 0; try < 20; try++ {
		fn := aggFns[g.r.Intn(len(aggFns))]
		var a *node
		switch fn {
		case "COUNT*":
			a = call(fn)
		case "SUM", "AVG":
			a = call(fn, g.expr(sc, fNum, 1))
		default:
			a = call(fn, g.expr(sc, fAny, 1))
		}
		a.distinct = fn != "COUNT*" && g.chance(0.2)
		if g.f.AggFilter && g.chance(0.25) {
			a.filter = g.pred(sc, 1)
		}
		if err := a.typecheck(ctx{sc: sc, agg: true}); err != nil {
			continue
		}
		if a.op == "AVG" && a.args[0].t.k == kDecimal && !g.f.AvgDecimal {
			continue
		}
		if a.t.numeric() && g.chance(0.15) {
			e := call([]string{"+", "*", "-"}[g.r.Intn(3)], a, lit(int64(1+g.r.Intn(3)), tInt))
			if e.typecheck(ctx{sc: sc, agg: true}) == nil {
				return e
			}
		}
		return a
	}
	return call("COUNT*")
}

func (g *gen) havingPred(sc *scope) *node {
	for try := 0; try < 10; try++ {
		a := g.aggExpr(sc)
		if a.typecheck(ctx{sc: sc, agg: true}) != nil || a.t.k == kBool {
			continue
		}
		var l *node
		switch familyOf(a.t) {
		case fNum:
			l = lit(int64(g.r.Intn(4)), tInt)
		default:
			l = g.litOf(a.t, nil)
		}
		p := call([]string{">", ">=", "<", "<>", "="}[g.r.Intn(5)], a, l)
		if p.typecheck(ctx{sc: sc, agg: true}) == nil {
			return p
		}
	}
	return call(">", call("COUNT*"), lit(int64(1), tInt))
}

// unionBranch is a second select whose columns match s's: of the same
// family, or of the same type when UnionMixedTypes is off.
func (g *gen) unionBranch(s *sel) *sel {
	from := g.checked(g.input())
	b := &sel{from: from}
	if g.chance(0.5) {
		b.where = g.pred(&from.sc, 1)
	}
	for i, oc := range s.out.cols {
		var e *node
		for try := 0; try < 30; try++ {
			e = g.expr(&from.sc, familyOf(oc.t), 1)
			if e.typecheck(ctx{sc: &from.sc}) != nil {
				continue
			}
			if g.f.UnionMixedTypes || e.t == oc.t {
				break
			}
			e = nil
		}
		if e == nil {
			e = g.litOf(oc.t, nil)
		}
		b.items = append(b.items, item{e: e, name: fmt.Sprintf("o%d", i)})
	}
	return b
}

// expr is a scalar expression of a family (fAny: any) over sc.
func (g *gen) expr(sc *scope, fam family, depth int) *node {
	if fam == fAny {
		fam = []family{fNum, fNum, fNum, fStr, fStr, fTs, fBool}[g.r.Intn(7)]
		if fam == fBool && g.chance(0.7) {
			fam = fNum
		}
	}
	for try := 0; try < 20; try++ {
		e := g.tryExpr(sc, fam, depth)
		if e != nil && e.typecheck(ctx{sc: sc}) == nil && familyOf(e.t) == fam {
			return e
		}
	}
	if c := g.colOf(sc, fam); c != nil {
		return c
	}
	return g.litOf(map[family]typ{fNum: tInt, fStr: tString, fTs: tTimestamp, fBool: tBool}[fam], nil)
}

func (g *gen) colOf(sc *scope, fam family) *node {
	var cands []scopeCol
	for _, c := range sc.cols {
		if familyOf(c.t) == fam {
			cands = append(cands, c)
		}
	}
	if len(cands) == 0 {
		return nil
	}
	c := cands[g.r.Intn(len(cands))]
	return col(c.q, c.name)
}

func (g *gen) tryExpr(sc *scope, fam family, depth int) *node {
	leaf := depth <= 0 || g.chance(0.35)
	if fam == fBool {
		return g.pred(sc, depth)
	}
	if leaf {
		if g.chance(0.85) {
			if c := g.colOf(sc, fam); c != nil {
				return c
			}
		}
		return g.litOf(map[family]typ{fNum: []typ{tInt, tDecimal(3, 1), tDouble}[g.r.Intn(3)], fStr: tString, fTs: tTimestamp}[fam], nil)
	}
	sub := func(f family) *node { return g.expr(sc, f, depth-1) }
	switch fam {
	case fNum:
		switch g.r.Intn(10) {
		case 0, 1, 2:
			return call([]string{"+", "-", "*"}[g.r.Intn(3)], sub(fNum), sub(fNum))
		case 3:
			// A division by a divisor that cannot be zero.
			var d *node
			if g.chance(0.5) {
				d = call("nullif", sub(fNum), lit(int64(0), tInt))
			} else {
				d = g.nonzeroLit()
			}
			op := "/"
			if g.chance(0.2) {
				op = "%"
			}
			return call(op, sub(fNum), d)
		case 4:
			switch g.r.Intn(4) {
			case 0, 1:
				return call([]string{"neg", "abs"}[g.r.Intn(2)], sub(fNum))
			case 2:
				return call([]string{"floor", "ceil"}[g.r.Intn(2)], sub(fNum))
			}
			return call("round", sub(fNum), lit(int64(g.r.Intn(6)-2), tInt))
		case 5:
			return g.caseExpr(sc, fNum, depth)
		case 6:
			switch g.r.Intn(3) {
			case 0:
				return call("ifnull", sub(fNum), sub(fNum))
			case 1:
				return call("if", g.pred(sc, depth-1), sub(fNum), sub(fNum))
			}
			return call("coalesce", sub(fNum), sub(fNum))
		case 7:
			switch g.r.Intn(3) {
			case 0:
				return call("charlen", sub(fStr))
			case 1:
				return call([]string{"hour", "minute", "second"}[g.r.Intn(3)], sub(fTs))
			}
			x := call("extract", sub(fTs))
			x.name = []string{"DAY", "HOUR", "MINUTE", "SECOND"}[g.r.Intn(4)]
			return x
		case 8:
			x := sub(fNum)
			if x.typecheck(ctx{sc: sc}) != nil {
				return nil
			}
			return call("cast", x).as(g.widerThan(x.t))
		default:
			return call("nullif", sub(fNum), sub(fNum))
		}
	case fStr:
		switch g.r.Intn(9) {
		case 7:
			from := []string{"a", "b", " ", "é", "ab"}[g.r.Intn(5)]
			to := []string{"", "x", "é", "  "}[g.r.Intn(4)]
			return call("replace", sub(fStr), lit(from, tString), lit(to, tString))
		case 8:
			switch g.r.Intn(3) {
			case 0:
				return call([]string{"trim", "ltrim", "rtrim"}[g.r.Intn(3)], sub(fStr))
			case 1:
				return call("concatws", lit([]string{",", "", "-"}[g.r.Intn(3)], tString), sub(fStr), sub(fStr))
			}
			return call("ifnull", sub(fStr), sub(fStr))
		case 0:
			return call([]string{"upper", "lower"}[g.r.Intn(2)], sub(fStr))
		case 1:
			return call("substr", sub(fStr), lit(int64(1+g.r.Intn(3)), tInt), lit(int64(g.r.Intn(4)), tInt))
		case 2, 3:
			return call("concat", sub(fStr), sub(fStr))
		case 4:
			return g.caseExpr(sc, fStr, depth)
		case 5:
			return call("coalesce", sub(fStr), sub(fStr))
		default:
			x := g.expr(sc, fNum, depth-1)
			if !x.t.exact() {
				return nil
			}
			return call("cast", x).as(tString)
		}
	case fTs:
		switch g.r.Intn(3) {
		case 0:
			n := call("tsadd", sub(fTs))
			n.ms = int64(g.r.Intn(11)-5) * 1000
			return n
		case 1:
			return g.caseExpr(sc, fTs, depth)
		default:
			return call("coalesce", sub(fTs), sub(fTs))
		}
	default:
	}
	return nil
}

func (n *node) as(t typ) *node { n.lt = t; return n }

// widerThan is a numeric type a value of t converts to without loss.
func (g *gen) widerThan(t typ) typ {
	switch t.k {
	case kInt:
		return []typ{tBigint, tDouble, tDecimal(12, g.r.Intn(3))}[g.r.Intn(3)]
	case kBigint:
		return []typ{tDouble, tDecimal(19+g.r.Intn(3), 0)}[g.r.Intn(2)]
	case kDecimal:
		if g.chance(0.5) {
			return tDouble
		}
		return tDecimal(min(t.p+2, maxPrecision), min(t.s+1, t.p+2))
	default:
	}
	return tDouble
}

func (g *gen) nonzeroLit() *node {
	switch g.r.Intn(3) {
	case 0:
		v := int64(1 + g.r.Intn(7))
		if g.chance(0.3) {
			v = -v
		}
		return lit(v, tInt)
	case 1:
		return decLit(int64(5+g.r.Intn(40)), 1) // 0.5 .. 4.4
	}
	return lit(float64(1+g.r.Intn(16))/4, tDouble)
}

func (g *gen) caseExpr(sc *scope, fam family, depth int) *node {
	var args []*node
	for i, n := 0, 1+g.r.Intn(2); i < n; i++ {
		args = append(args, g.pred(sc, depth-1), g.expr(sc, fam, depth-1))
	}
	if g.chance(0.2) {
		args = append(args, g.litOf(map[family]typ{fNum: tInt, fStr: tString, fTs: tTimestamp}[fam], nil))
		args[len(args)-1].val = nil // ELSE NULL
	} else {
		args = append(args, g.expr(sc, fam, depth-1))
	}
	return call("case", args...)
}

// pred is a boolean expression.
func (g *gen) pred(sc *scope, depth int) *node {
	for try := 0; try < 20; try++ {
		var p *node
		switch k := g.r.Intn(10); {
		case depth > 0 && k == 0:
			p = call([]string{"and", "or"}[g.r.Intn(2)], g.pred(sc, depth-1), g.pred(sc, depth-1))
		case depth > 0 && k == 1:
			p = call("not", g.pred(sc, depth-1))
		case k == 2:
			p = call([]string{"isnull", "notnull"}[g.r.Intn(2)], g.expr(sc, fAny, depth-1))
		case k == 3:
			x := g.expr(sc, []family{fNum, fStr, fTs}[g.r.Intn(3)], depth-1)
			if x.typecheck(ctx{sc: sc}) != nil {
				continue
			}
			p = call("between", x, g.litNear(sc, x), g.litNear(sc, x))
		case k == 4:
			x := g.expr(sc, []family{fNum, fStr}[g.r.Intn(2)], depth-1)
			if x.typecheck(ctx{sc: sc}) != nil {
				continue
			}
			args := []*node{x}
			for i, n := 0, 1+g.r.Intn(3); i < n; i++ {
				args = append(args, g.litNear(sc, x))
			}
			p = call("in", args...)
		case k == 5:
			x := g.expr(sc, fStr, depth-1)
			p = call("like", x, lit(g.pattern(), tString))
		default:
			fam := []family{fNum, fNum, fStr, fTs}[g.r.Intn(4)]
			x := g.expr(sc, fam, depth-1)
			if x.typecheck(ctx{sc: sc}) != nil {
				continue
			}
			var y *node
			if g.chance(0.5) {
				y = g.litNear(sc, x)
			} else {
				y = g.expr(sc, fam, depth-1)
			}
			ops := []string{"=", "<>", "<", "<=", ">", ">="}
			if g.f.NullSafe {
				ops = append(ops, opDistinct, opNotDistinct)
			}
			p = call(ops[g.r.Intn(len(ops))], x, y)
		}
		if p.typecheck(ctx{sc: sc}) == nil {
			return p
		}
	}
	return call("notnull", g.expr(sc, fNum, 0))
}

func (g *gen) pattern() string {
	parts := []string{"a", "b", "A", "é", "%", "_", "c"}
	var b strings.Builder
	for i, n := 0, 1+g.r.Intn(3); i < n; i++ {
		b.WriteString(parts[g.r.Intn(len(parts))])
	}
	return b.String()
}

// litNear is a literal comparable with x, drawn from x's column's values
// when x is a column.
func (g *gen) litNear(sc *scope, x *node) *node {
	var base *column
	if x.op == "col" {
		if c := sc.lookup(x.q, x.name); c != nil {
			base = c.base
		}
	}
	return g.litOf(x.t, base)
}

// litLike is a literal of a scope column's type.
func (g *gen) litLike(c *scopeCol) *node { return g.litOf(c.t, c.base) }

// litOf is a literal of type t (from base's domain when given). Its
// model type is the type streamsql and Flink give such a literal.
func (g *gen) litOf(t typ, base *column) *node {
	var v value
	if base != nil {
		b := *base
		b.dom.nulls = 0
		v = genValue(g.r, b)
	} else {
		v = genValue(g.r, column{t: t, dom: domain{narrow: g.chance(0.5)}})
	}
	switch t.k {
	case kInt, kBigint:
		x := v.(int64)
		if x >= -2147483648 && x <= 2147483647 {
			return lit(x, tInt)
		}
		return lit(x, tBigint)
	case kDecimal:
		return decLit(v.(int64), t.s)
	case kBool:
		return lit(g.chance(0.5), tBool)
	default:
	}
	return lit(v, t)
}

// decLit is the literal u/10^s, typed as a literal of its text is: as
// many digits as it has (without leading zeros), s of them after the
// point; with s = 0 an INT (or BIGINT).
func decLit(u int64, s int) *node {
	if s == 0 {
		// Written without a point, it is an integer literal.
		if u >= -2147483648 && u <= 2147483647 {
			return lit(u, tInt)
		}
		return lit(u, tBigint)
	}
	text := decimalText(u, s)
	text = strings.TrimPrefix(text, "-")
	intPart, frac, _ := strings.Cut(text, ".")
	intPart = strings.TrimLeft(intPart, "0")
	return lit(u, tDecimal(max(len(intPart)+len(frac), 1), s))
}

// intervalQuery joins two time tables with a time bound.
func (g *gen) intervalQuery() *sel {
	l := g.checked(g.scan(true))
	r := g.checked(g.scan(true))
	lts := col(l.alias, l.table.cols[l.table.timeCol].name)
	rts := col(r.alias, r.table.cols[r.table.timeCol].name)
	lo := int64(g.r.Intn(7)-4) * 1000
	hi := lo + int64(g.r.Intn(6))*1000
	lower, upper := call("tsadd", rts), call("tsadd", rts.clone())
	lower.ms, upper.ms = lo, hi
	var bound *node
	if g.chance(0.5) {
		bound = call("between", lts, lower, upper)
	} else {
		bound = call("and", call(">=", lts, lower), call("<=", lts.clone(), upper))
	}
	keys := g.joinCond(&l.sc, &r.sc)
	if keys == nil || keys.op == "=" && keys.args[0].op == "lit" {
		// No comparable keys: an interval join needs an equality.
		lk, rk := l.sc.lookup(l.alias, "k"), r.sc.lookup(r.alias, "k")
		if !g.keyOK(*lk) || !g.keyOK(*rk) || !g.f.MixedKeyTypes && lk.t != rk.t {
			return nil
		}
		keys = call("=", col(l.alias, "k"), col(r.alias, "k"))
	}
	on := call("and", keys, bound)
	from := g.checked(&rel{kind: "join", left: l, right: r, join: g.joinKind(), on: on})
	return g.selectOver(from, g.chance(0.25), true)
}

// windowQuery aggregates a time table per window: TUMBLE, or HOP and
// CUMULATE (their step divides their size).
func (g *gen) windowQuery() *sel {
	t := g.newTable(true)
	w := &rel{kind: "window", table: t, fn: "TUMBLE", size: int64([]int{2, 5, 10, 30}[g.r.Intn(4)]) * 1000}
	if g.f.HopCumulate && g.chance(0.5) {
		w.fn = []string{"HOP", "CUMULATE"}[g.r.Intn(2)]
		w.step = int64(1+g.r.Intn(5)) * 1000
		w.size = w.step * int64(2+g.r.Intn(4))
	}
	from := g.checked(w)
	sc := &from.sc
	s := &sel{from: from, aggregate: true}
	if g.chance(0.4) {
		s.where = g.pred(sc, 1)
	}
	s.group = []*node{col("", "window_start"), col("", "window_end")}
	if g.chance(0.5) {
		s.group = append(s.group, col("", "k"))
	}
	for _, gc := range s.group {
		if gc.name == "window_end" && g.chance(0.3) {
			continue
		}
		s.items = append(s.items, item{e: gc.clone()})
	}
	for i, n := 0, 1+g.r.Intn(3); i < n; i++ {
		s.items = append(s.items, item{e: g.aggExpr(sc)})
	}
	if g.chance(0.2) {
		s.having = g.havingPred(sc)
	}
	for i := range s.items {
		s.items[i].name = fmt.Sprintf("o%d", i)
	}
	return s
}
