package exec

import (
	"fmt"
	"sort"

	"github.com/streamsql/streamsql/changelogmode"
	"github.com/streamsql/streamsql/row"
)

// temporalJoinOp is an event-time temporal join (FOR SYSTEM_TIME AS OF):
// each probe (left) row joins the version of the versioned (right) side
// that was valid at the probe row's time. Probe rows wait until the
// watermark reaches their time, so every version up to then is known; then
// they are joined and leave state. Versions older than the one valid at the
// watermark are dropped. An INNER join emits nothing for a probe row
// without a valid version, a LEFT join emits it padded with NULLs.
type temporalJoinOp struct {
	name     string
	nl, nr   int
	leftTime int
	ltime    int // time column of the versioned side
	lkey     keyer
	rkey     keyer
	cond     predFunc
	left     bool // LEFT JOIN
	wm       *wmTracker
	probes   []probe
	versions map[string][]version // by key, ordered by time
	out      collector
	c        *Counters
	late     *lateWriter
	lcols    []Column
	buf      row.Batch
}

type probe struct {
	vals []row.Value
	t    int64
	key  string
	null bool
}

type version struct {
	t       int64
	vals    []row.Value // nil: deleted at t
	deleted bool
}

func (o *temporalJoinOp) process(port int, b row.Batch) error {
	o.c.In.Add(int64(len(b)))
	wm := o.wm.cur
	if port == 0 {
		for _, r := range b {
			tv := r.Vals[o.leftTime]
			key, null, err := o.lkey.key(r.Vals)
			if err != nil {
				return fmt.Errorf("%s: %w", o.name, err)
			}
			t := tv.Int()
			if tv.IsNull() {
				null = true
			}
			if !tv.IsNull() && t <= wm {
				// Late: its versions may already be gone. Join with what is
				// left, and count it.
				o.c.Late.Add(1)
				if err := o.late.write(o.name, r, t, wm, o.lcols); err != nil {
					return err
				}
			}
			o.probes = append(o.probes, probe{vals: r.Vals, t: t, key: key, null: null})
		}
		o.c.setState(int64(len(o.probes)))
		if len(o.probes) > 0 && o.probes[len(o.probes)-1].t <= wm {
			return o.fire(wm)
		}
		return nil
	}
	for _, r := range b {
		if r.Kind == changelogmode.UpdateBefore {
			continue // the +U that follows is the new version
		}
		key, null, err := o.rkey.key(r.Vals)
		if err != nil {
			return fmt.Errorf("%s: %w", o.name, err)
		}
		if null {
			continue
		}
		v := version{t: r.Vals[o.ltime].Int(), vals: r.Vals}
		if r.Kind == changelogmode.Delete {
			v.deleted = true
		}
		vs := o.versions[key]
		i := sort.Search(len(vs), func(i int) bool { return vs[i].t > v.t })
		vs = append(vs, version{})
		copy(vs[i+1:], vs[i:])
		vs[i] = v
		o.versions[key] = vs
	}
	return nil
}

// fire joins every probe row with time <= wm, then drops versions no probe
// can need any more.
func (o *temporalJoinOp) fire(wm int64) error {
	o.buf = o.buf[:0]
	kept := o.probes[:0]
	for _, p := range o.probes {
		if p.t > wm && !p.null {
			kept = append(kept, p)
			continue
		}
		var match []row.Value
		if !p.null {
			vs := o.versions[p.key]
			i := sort.Search(len(vs), func(i int) bool { return vs[i].t > p.t }) - 1
			if i >= 0 && !vs[i].deleted {
				match = vs[i].vals
			}
		}
		if match != nil && o.cond != nil {
			ok, err := o.cond(concat(p.vals, o.nl, match, o.nr))
			if err != nil {
				return fmt.Errorf("%s: %w", o.name, err)
			}
			if !ok {
				match = nil
			}
		}
		switch {
		case match != nil:
			o.buf = append(o.buf, row.Row{Kind: changelogmode.Insert, Vals: concat(p.vals, o.nl, match, o.nr)})
		case o.left:
			o.buf = append(o.buf, row.Row{Kind: changelogmode.Insert, Vals: concat(p.vals, o.nl, nil, o.nr)})
		}
	}
	o.probes = kept
	// Keep, per key, the version valid at wm and everything after it.
	for k, vs := range o.versions {
		i := sort.Search(len(vs), func(i int) bool { return vs[i].t > wm }) - 1
		if i > 0 {
			o.versions[k] = append(vs[:0:0], vs[i:]...)
		}
	}
	o.c.setState(int64(len(o.probes)))
	if len(o.buf) == 0 {
		return nil
	}
	o.c.Out.Add(int64(len(o.buf)))
	return o.out.push(o.buf)
}

func (o *temporalJoinOp) watermark(port int, wm int64) error {
	w, ok := o.wm.update(port, wm)
	if !ok {
		return nil
	}
	o.c.Watermark.Store(w)
	// Probe rows must be joined in time order for the output to be ordered.
	sort.SliceStable(o.probes, func(i, j int) bool { return o.probes[i].t < o.probes[j].t })
	if err := o.fire(w); err != nil {
		return err
	}
	return o.out.watermark(w)
}

func (o *temporalJoinOp) end(port int) error {
	if !o.wm.finish(port) {
		return o.watermark(port, MaxWatermark)
	}
	if err := o.watermark(port, MaxWatermark); err != nil {
		return err
	}
	return o.out.end()
}
