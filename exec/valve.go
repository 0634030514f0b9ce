package exec

import "fmt"

// valve combines the watermarks, idleness and ends of an operator's
// inputs into the operator's own watermark, as Flink's StatusWatermarkValve
// does. The runtime keeps one per operator (driver); operators never see
// a single input's watermark, only the combined one advancing.
//
// The combined watermark is the minimum over the inputs that are aligned:
// neither ended, nor idle, nor behind. It never goes backwards, and a
// watermark that does not raise its input's is ignored. When every input
// that has not ended is idle, it is the largest of theirs: nothing is
// known to hold time back any more. An idle input that becomes active
// again below the combined watermark is behind: it does not hold the
// others back (its rows are late), and it counts in the minimum again once
// its own watermark reaches the combined one. When every input has ended
// it is MaxWatermark.
//
// Where Flink differs (testdata/valve shows each case; TestValveAgainstFlink
// runs both on random inputs and allows only these):
//   - Flink ignores a watermark that comes while its input (or every input)
//     is idle; the valve records it, because a source sends one while idle
//     exactly when all its splits have gone idle and time moves to the
//     largest of theirs (sourceRunner.emitWM).
//   - When the last active input goes idle while behind, Flink keeps its
//     output; the valve moves to the largest watermark, as it does whenever
//     all inputs are idle.
//   - An input back from idleness at or above the combined watermark joins
//     the minimum at once, which may advance it; Flink waits for the next
//     watermark.
//   - An ended input is out of the valve; in Flink it is an active input at
//     +inf. So once the inputs that have not ended are all idle or behind,
//     Flink is at +inf while the valve holds (inputs behind) or takes the
//     largest watermark of the idle ones — unless they went idle before the
//     end, when the ended input's +inf was the minimum of those not idle.
//     This keeps rows of an idle input that comes back in time, at the cost
//     of depending on the order.
type valve struct {
	in     []int64
	ended  []bool
	idle   []bool
	behind []bool // active again, but its watermark is below cur
	cur    int64
	// outIdle is the idleness last reported downstream.
	outIdle bool
	// drift, when set, warns once when one input runs far ahead of another.
	drift *driftCheck
	// pub, when set, publishes each input's watermark for readers outside
	// the operator's goroutine (metrics, the web UI): see Counters.Inputs.
	pub []*InputWatermark
}

func newValve(n int) *valve {
	v := &valve{in: make([]int64, n), ended: make([]bool, n), idle: make([]bool, n), behind: make([]bool, n),
		cur: MinWatermark}
	for i := range v.in {
		v.in[i] = MinWatermark
	}
	return v
}

// watermark returns the combined watermark; it is what the operator's
// latest advance was given (MinWatermark before any).
func (v *valve) watermark() int64 { return v.cur }

// inputWatermark returns port's own watermark: the largest it has sent
// (MaxWatermark once it has ended).
func (v *valve) inputWatermark(port int) int64 { return v.in[port] }

// update records port's watermark and returns the combined watermark and
// whether it advanced.
func (v *valve) update(port int, wm int64) (int64, bool) {
	if wm > v.in[port] {
		v.in[port] = wm
		if v.pub != nil {
			v.pub[port].WM.Store(wm)
		}
	}
	if v.behind[port] && v.in[port] >= v.cur {
		v.behind[port] = false // caught up: aligned again
	}
	if v.drift != nil {
		v.drift.check(v)
	}
	return v.advance()
}

// advance recomputes the combined watermark from the inputs.
func (v *valve) advance() (int64, bool) {
	m, aligned, active := MaxWatermark, false, false
	for i, w := range v.in {
		if v.ended[i] || v.idle[i] {
			continue
		}
		active = true
		if !v.behind[i] {
			aligned = true
			m = min(m, w)
		}
	}
	switch {
	case active && !aligned:
		// Only inputs that are behind: nothing moves until one catches up.
		return v.cur, false
	case !active:
		idle := MinWatermark
		anyIdle := false
		for i, w := range v.in {
			if !v.ended[i] {
				anyIdle = true
				idle = max(idle, w)
			}
		}
		if anyIdle {
			m = idle
		}
	}
	if m > v.cur {
		v.cur = m
		return m, true
	}
	return v.cur, false
}

// setIdle marks port idle or active; the combined watermark may advance.
// An input that becomes active below it is behind until it catches up.
func (v *valve) setIdle(port int, idle bool) (int64, bool) {
	v.idle[port] = idle
	v.behind[port] = !idle && v.in[port] < v.cur
	return v.advance()
}

// end marks port ended: it no longer holds the watermark back, nor counts
// for idleness. It returns the combined watermark, whether it advanced,
// and whether every input has now ended (the watermark is then
// MaxWatermark).
func (v *valve) end(port int) (w int64, advanced, all bool) {
	v.ended[port] = true
	w, advanced = v.update(port, MaxWatermark)
	all = true
	for _, e := range v.ended {
		all = all && e
	}
	return w, advanced, all
}

// allIdle reports whether every input that has not ended is idle (and at
// least one has not ended).
func (v *valve) allIdle() bool {
	open := false
	for i := range v.in {
		if !v.ended[i] {
			if !v.idle[i] {
				return false
			}
			open = true
		}
	}
	return open
}

// idleChanged reports the operator's idleness — idle exactly when all its
// inputs are — when it differs from what was last reported.
func (v *valve) idleChanged() (idle, changed bool) {
	if now := v.allIdle(); now != v.outIdle {
		v.outIdle = now
		return now, true
	}
	return v.outIdle, false
}

// driftCheck warns when the watermarks of two inputs of one operator are
// further apart than a threshold: the operator keeps the rows of the input
// that is ahead until the other catches up, so state grows with the gap
// (a consumer rewound by days, a partition stuck). It warns once per
// operator.
type driftCheck struct {
	threshold int64
	names     []string
	op        string
	warn      func(key, msg string)
	warned    bool
}

func (d *driftCheck) check(v *valve) {
	if d.warned {
		return
	}
	lo, hi := -1, -1
	for i, w := range v.in {
		if v.ended[i] || v.idle[i] || w == MinWatermark || w == MaxWatermark {
			continue
		}
		if lo < 0 || w < v.in[lo] {
			lo = i
		}
		if hi < 0 || w > v.in[hi] {
			hi = i
		}
	}
	if lo < 0 || lo == hi || v.in[hi]-v.in[lo] <= d.threshold {
		return
	}
	d.warned = true
	d.warn(d.op, fmt.Sprintf("%s: the watermark of input %s (%s) is %s behind input %s (%s): rows of %s wait in state "+
		"until %s catches up, so state grows with the gap; if %s was rewound or is lagging, consider "+
		"'scan.watermark.alignment.group' and 'scan.watermark.alignment.max-drift' on both tables",
		d.op, d.names[lo], FormatMillis(v.in[lo]), FormatDuration(v.in[hi]-v.in[lo]), d.names[hi], FormatMillis(v.in[hi]),
		d.names[hi], d.names[lo], d.names[lo]))
}
