package oracle

import (
	"fmt"
	"sort"
	"strings"
)

// Features are the parts of SQL the generator may use. A feature is
// switched off only while a known bug in it is being fixed (so that the
// short run in `make test` stays green) and switched on again as soon as
// the fix lands; DefaultFeatures is the state of main.
type Features struct {
	// MixedKeyTypes: join keys of different numeric types or scales
	// (INT = DECIMAL(5, 2), DECIMAL(10, 1) = DOUBLE).
	MixedKeyTypes bool
	// NullJoinKeys: join keys that can be NULL (nullable columns, the
	// padded side of an earlier outer join).
	NullJoinKeys bool
	// UnionMixedTypes: UNION ALL branches whose column types differ (the
	// union converts them to the common type).
	UnionMixedTypes bool
	// ParallelUnion: UNION ALL run at parallelism 4 too (at 1 otherwise).
	ParallelUnion bool
	// Changelog: debezium-json inputs with updates and deletes.
	Changelog bool
	// AvgDecimal: AVG over a DECIMAL (Flink's result is DECIMAL(38,
	// max(6, s))).
	AvgDecimal bool
	// CappedDecimals: DECIMAL expressions whose type Flink's rules make
	// wider than 38 digits (a CASE over a SUM, a product of wide
	// decimals), where Flink gives up scale differently than streamsql.
	CappedDecimals bool
	// KeylessJoins: joins without an equality between the two sides (a
	// cross join with a condition).
	KeylessJoins bool
	// Interval: interval joins (inner and outer) over time tables.
	Interval bool
	// Tumble: TUMBLE window aggregates over time tables.
	Tumble bool
	// HopCumulate: HOP and CUMULATE window aggregates too.
	HopCumulate bool
	// AggFilter: aggregates with FILTER (WHERE ...).
	AggFilter bool
	// SetOps: INTERSECT and EXCEPT.
	SetOps bool
	// DistinctGroupBy: SELECT DISTINCT with GROUP BY.
	DistinctGroupBy bool
	// Subqueries: [NOT] IN and [NOT] EXISTS subqueries in WHERE
	// (correlated or not): semi and anti joins.
	Subqueries bool
	// NullSafe: IS [NOT] DISTINCT FROM in filters, and IS NOT DISTINCT
	// FROM as join keys and subquery correlations (null-safe keys).
	NullSafe bool
}

// DefaultFeatures is what the oracle generates by default. Every feature
// is on unless the comment names the open bug that keeps it off; switch it
// on as soon as the fix is on main.
var DefaultFeatures = Features{
	MixedKeyTypes:   true,
	NullJoinKeys:    true,
	UnionMixedTypes: true,
	ParallelUnion:   true,
	Changelog:       true,
	AvgDecimal:      true,
	CappedDecimals:  true,
	KeylessJoins:    true,
	Interval:        true,
	Tumble:          true,
	HopCumulate:     true,
	AggFilter:       true,
	SetOps:          true,
	DistinctGroupBy: true,
	Subqueries:      true,
	NullSafe:        true,
}

// featureNames lists the switches by name, for -oracle.features and the
// reports.
func (f *Features) byName() map[string]*bool {
	return map[string]*bool{
		"mixed-key-types":   &f.MixedKeyTypes,
		"null-join-keys":    &f.NullJoinKeys,
		"union-mixed-types": &f.UnionMixedTypes,
		"parallel-union":    &f.ParallelUnion,
		"changelog":         &f.Changelog,
		"avg-decimal":       &f.AvgDecimal,
		"keyless-joins":     &f.KeylessJoins,
		"capped-decimals":   &f.CappedDecimals,
		"agg-filter":        &f.AggFilter,
		"set-ops":           &f.SetOps,
		"distinct-group-by": &f.DistinctGroupBy,
		"subqueries":        &f.Subqueries,
		"null-safe":         &f.NullSafe,
		"interval":          &f.Interval,
		"tumble":            &f.Tumble,
		"hop-cumulate":      &f.HopCumulate,
	}
}

// Set applies a list like "+mixed-key-types,-changelog" (or "all").
func (f *Features) Set(list string) error {
	m := f.byName()
	for _, p := range strings.Split(list, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if p == "all" || p == "+all" {
			for _, b := range m {
				*b = true
			}
			continue
		}
		on := !strings.HasPrefix(p, "-")
		name := strings.TrimLeft(p, "+-")
		b, ok := m[name]
		if !ok {
			return fmt.Errorf("unknown feature %q (known: %s)", name, strings.Join(f.names(), ", "))
		}
		*b = on
	}
	return nil
}

func (f *Features) names() []string {
	var out []string
	for n := range f.byName() {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Off lists the features that are switched off.
func (f Features) Off() []string {
	var out []string
	for n, b := range f.byName() {
		if !*b {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// allow says why a query uses a feature that is switched off (nil: it
// does not). The generator and the shrinker both ask: a condition such as
// a.x = b.y added to a join is a join key whatever made it.
func (f Features) allow(q *sel) error {
	var err error
	var walkSel func(s *sel)
	var walkNode func(n *node)
	walkNode = func(n *node) {
		if n == nil || err != nil {
			return
		}
		if n.op == "AVG" && !f.AvgDecimal && n.args[0].t.k == kDecimal {
			err = fail("AVG of a DECIMAL (avg-decimal is off)")
		}
		if n.capped && !f.CappedDecimals {
			err = fail("a DECIMAL wider than 38 digits (capped-decimals is off)")
		}
		if (n.op == opDistinct || n.op == opNotDistinct) && !f.NullSafe {
			err = fail("%s (null-safe is off)", n.op)
		}
		for _, a := range n.args {
			walkNode(a)
		}
	}
	walkSel = func(s *sel) {
		for ; s != nil && err == nil; s = s.union {
			for _, it := range s.items {
				walkNode(it.e)
			}
			walkNode(s.having)
			walkNode(s.where)
			for _, p := range s.subs {
				walkNode(p.corr)
				walkNode(p.where)
			}
			s.from.each(func(r *rel) {
				if r.kind == "derived" {
					walkSel(r.sub)
				}
				if r.kind == "join" && err == nil {
					walkNode(r.on)
					err = f.allowKeys(r)
				}
			})
			if s.capped && !f.CappedDecimals && err == nil {
				err = fail("a UNION ALL column wider than 38 digits (capped-decimals is off)")
			}
			if u := s.union; u != nil && !f.UnionMixedTypes && err == nil {
				for i, c := range s.out.cols {
					if i < len(u.out.cols) && u.out.cols[i].t != c.t {
						err = fail("UNION ALL of %s and %s (union-mixed-types is off)", c.t, u.out.cols[i].t)
					}
				}
			}
		}
	}
	walkSel(q)
	return err
}

// allowKeys checks a join's equi-keys: the conjuncts a = b (or a IS NOT
// DISTINCT FROM b) of its condition with a over one side and b over the
// other.
func (f Features) allowKeys(r *rel) error {
	side := func(n *node) int { // 0 left, 1 right, 2 both, -1 neither
		s := -1
		var walk func(n *node)
		walk = func(n *node) {
			if n.op == "col" {
				x := 2
				switch {
				case r.left.sc.lookup(n.q, n.name) != nil:
					x = 0
				case r.right.sc.lookup(n.q, n.name) != nil:
					x = 1
				}
				if s == -1 {
					s = x
				} else if s != x {
					s = 2
				}
			}
			for _, a := range n.args {
				walk(a)
			}
		}
		walk(n)
		return s
	}
	keys := 0
	var conj func(n *node) error
	conj = func(n *node) error {
		if n.op == "and" {
			if err := conj(n.args[0]); err != nil {
				return err
			}
			return conj(n.args[1])
		}
		if !isEquality(n.op) {
			return nil
		}
		a, b := n.args[0], n.args[1]
		sa, sb := side(a), side(b)
		if (sa != 0 || sb != 1) && (sa != 1 || sb != 0) {
			return nil
		}
		keys++
		if !f.MixedKeyTypes && a.t != b.t {
			return fail("join key %s = %s (mixed-key-types is off)", a.t, b.t)
		}
		if !f.NullJoinKeys && (a.nullable || b.nullable) {
			return fail("a join key that can be NULL (null-join-keys is off)")
		}
		return nil
	}
	if err := conj(r.on); err != nil {
		return err
	}
	if keys == 0 && !f.KeylessJoins {
		return fail("a join without equi-keys (keyless-joins is off)")
	}
	return nil
}
