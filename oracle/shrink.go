package oracle

// Shrinking: the candidates smaller than a failing case, in the order
// they are tried. Data first (whole tables emptied, then halves of the
// rows, then single rows and single changes, then columns), then the
// query (branches, joins, items, conditions, subexpressions). A candidate
// that is not a valid query of the model is skipped.

func (c *Case) clone() *Case {
	n := &Case{Seed: c.Seed, p1only: c.p1only}
	m := map[*table]*table{}
	for _, t := range c.tables {
		ct := *t
		ct.cols = append([]column(nil), t.cols...)
		ct.changes = append([]change(nil), t.changes...)
		n.tables = append(n.tables, &ct)
		m[t] = &ct
	}
	n.q = c.q.clone()
	n.q.eachRel(func(r *rel) {
		if r.table != nil {
			r.table = m[r.table]
		}
	})
	return n
}

func (s *sel) eachRel(f func(*rel)) {
	if s == nil {
		return
	}
	s.from.each(f)
	s.union.eachRel(f)
}

func (r *rel) each(f func(*rel)) {
	if r == nil {
		return
	}
	f(r)
	r.sub.eachRel(f)
	r.left.each(f)
	r.right.each(f)
}

// dropUnused removes the tables the query does not read.
func (c *Case) dropUnused() {
	used := map[*table]bool{}
	c.q.eachRel(func(r *rel) {
		if r.table != nil {
			used[r.table] = true
		}
	})
	var keep []*table
	for _, t := range c.tables {
		if used[t] {
			keep = append(keep, t)
		}
	}
	c.tables = keep
}

func candidates(c *Case) []*Case {
	var out []*Case
	add := func(f func(*Case) bool) {
		n := c.clone()
		if f(n) {
			n.dropUnused()
			out = append(out, n)
		}
	}
	// Data.
	for ti := range c.tables {
		ids := rowIDs(c.tables[ti])
		if len(ids) == 0 {
			continue
		}
		add(func(n *Case) bool { n.tables[ti].changes = nil; return true })
		for _, part := range [][]int{ids[:len(ids)/2], ids[len(ids)/2:]} {
			if len(part) == 0 || len(part) == len(ids) {
				continue
			}
			add(func(n *Case) bool { n.tables[ti].dropRows(part); return true })
		}
	}
	for ti := range c.tables {
		for _, id := range rowIDs(c.tables[ti]) {
			add(func(n *Case) bool { n.tables[ti].dropRows([]int{id}); return true })
		}
		for ci, ch := range c.tables[ti].changes {
			if ch.op == 'c' {
				continue
			}
			add(func(n *Case) bool {
				t := n.tables[ti]
				t.changes = consistentChanges(append(t.changes[:ci:ci], t.changes[ci+1:]...))
				return true
			})
		}
	}
	for ti, t := range c.tables {
		for ci := range t.cols {
			if ci == t.timeCol || len(t.cols) == 1 {
				continue
			}
			add(func(n *Case) bool { n.tables[ti].dropColumn(ci); return true })
		}
	}
	// The query.
	count := &mutator{target: -1}
	count.sel(c.clone().q, true)
	for i := 0; i < count.n; i++ {
		add(func(n *Case) bool {
			m := &mutator{target: i}
			n.q = m.sel(n.q, true)
			return m.done
		})
	}
	return out
}

func rowIDs(t *table) []int {
	var ids []int
	for _, c := range t.changes {
		if c.op == 'c' {
			ids = append(ids, c.id)
		}
	}
	return ids
}

func (t *table) dropRows(ids []int) {
	drop := map[int]bool{}
	for _, id := range ids {
		drop[id] = true
	}
	var keep []change
	for _, c := range t.changes {
		if !drop[c.id] {
			keep = append(keep, c)
		}
	}
	t.changes = keep
}

func (t *table) dropColumn(ci int) {
	t.cols = append(t.cols[:ci:ci], t.cols[ci+1:]...)
	if t.timeCol > ci {
		t.timeCol--
	}
	for i, c := range t.changes {
		if c.vals != nil {
			c.vals = append(c.vals[:ci:ci], c.vals[ci+1:]...)
			t.changes[i] = c
		}
	}
}

// mutator applies the target-th simplification of a query while walking
// it (target -1 only counts them, in n).
type mutator struct {
	target int
	n      int
	done   bool
}

func (m *mutator) hit() bool {
	h := m.n == m.target
	m.n++
	if h {
		m.done = true
	}
	return h
}

func (m *mutator) sel(s *sel, top bool) *sel {
	if s.union != nil {
		if m.hit() {
			return s.union
		}
		if m.hit() {
			s.union, s.setOp = nil, ""
			return s
		}
		if s.setOp != "" && m.hit() {
			s.setOp = "" // INTERSECT or EXCEPT as UNION ALL
			return s
		}
	}
	if top && s.from.kind == "derived" && s.union == nil && m.hit() {
		return s.from.sub
	}
	if len(s.items) > 1 {
		for i := range s.items {
			if m.hit() {
				s.items = append(s.items[:i:i], s.items[i+1:]...)
				for u := s.union; u != nil; u = u.union {
					if i < len(u.items) {
						u.items = append(u.items[:i:i], u.items[i+1:]...)
					}
				}
				return s
			}
		}
	}
	if s.distinct && m.hit() {
		s.distinct = false
	}
	if s.where != nil && m.hit() {
		s.where = nil
	}
	for i := range s.subs {
		if m.hit() {
			s.subs = append(s.subs[:i:i], s.subs[i+1:]...)
			return s
		}
	}
	if s.having != nil && m.hit() {
		s.having = nil
	}
	for i := range s.group {
		if m.hit() {
			s.group = append(s.group[:i:i], s.group[i+1:]...)
			return s
		}
	}
	if s.aggregate && len(s.group) == 0 && s.having == nil && m.hit() {
		s.aggregate = false
	}
	if s.where != nil {
		s.where = m.node(s.where)
	}
	if s.having != nil {
		s.having = m.node(s.having)
	}
	for i := range s.items {
		s.items[i].e = m.node(s.items[i].e)
	}
	s.from = m.rel(s.from)
	if s.union != nil {
		s.union = m.sel(s.union, false)
	}
	return s
}

func (m *mutator) rel(r *rel) *rel {
	switch r.kind {
	case "join":
		if m.hit() {
			return r.left
		}
		if m.hit() {
			return r.right
		}
		if r.join != "JOIN" && m.hit() {
			r.join = "JOIN"
			return r
		}
		r.on = m.node(r.on)
		r.left = m.rel(r.left)
		r.right = m.rel(r.right)
	case "derived":
		r.sub = m.sel(r.sub, false)
	}
	return r
}

func (m *mutator) node(n *node) *node {
	for _, a := range n.args {
		if m.hit() {
			return a
		}
	}
	if isAgg(n.op) && n.op != "COUNT*" && m.hit() {
		return call("COUNT*")
	}
	if n.distinct && m.hit() {
		n.distinct = false
		return n
	}
	if n.filter != nil && m.hit() {
		n.filter = nil
		return n
	}
	if n.filter != nil {
		n.filter = m.node(n.filter)
	}
	for i, a := range n.args {
		n.args[i] = m.node(a)
	}
	return n
}
