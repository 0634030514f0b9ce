package exec

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/streamsql/streamsql/row"
)

// TestValve runs testdata/valve: scripts of what an operator's inputs do,
// and what the runtime makes of it — the calls the operator gets (its
// lifecycle), what goes downstream, and the valve's state after each
// command. Times are plain milliseconds; -inf and +inf are MinWatermark
// and MaxWatermark.
//
//	valve inputs=N [hold=D] [drift=D]   a driver over a recording operator with N
//	                                    ports; hold: its output watermark lags by D
//	                                    ms (as the interval join's); drift: warn when
//	                                    two inputs are more than D ms apart
//	wm P T                              input P sends watermark T
//	idle P / active P                   input P goes idle / becomes active again
//	end P                               input P ends (as a source: +inf, then end)
//	rows P                              a batch on input P: which watermark the
//	                                    operator judges it against
//
//	align drift=D sources=N             an alignment group of N sources
//	source-wm S T / source-idle S /     a source of the group publishes its
//	source-active S / source-leave S    watermark, goes idle, active, or stops
func TestValve(t *testing.T) {
	datadriven.RunTest(t, "testdata/valve", func(t *testing.T, d *datadriven.TestData) string {
		return valveCmd(t, d)
	})
}

// valveRun is the state of one script.
type valveRun struct {
	d     *driver
	op    *recOp
	out   *recOut
	warns []string
	// the alignment group and its members.
	group   *alignGroup
	members []*alignMember
	drift   int64
}

var vr *valveRun

func valveCmd(t *testing.T, d *datadriven.TestData) string {
	arg := func(i int) int64 {
		t.Helper()
		if i >= len(d.CmdArgs) {
			d.Fatalf(t, "%s: want %d arguments", d.Cmd, i+1)
		}
		s := d.CmdArgs[i].Key
		switch s {
		case "-inf":
			return MinWatermark
		case "+inf":
			return MaxWatermark
		}
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			d.Fatalf(t, "%s: %v", d.Cmd, err)
		}
		return n
	}
	opt := func(key string) int64 {
		for _, a := range d.CmdArgs {
			if a.Key == key && len(a.Vals) == 1 {
				n, err := strconv.ParseInt(a.Vals[0], 10, 64)
				if err != nil {
					d.Fatalf(t, "%s: %v", key, err)
				}
				return n
			}
		}
		return -1
	}
	switch d.Cmd {
	case "valve":
		n := opt("inputs")
		if n <= 0 {
			d.Fatalf(t, "valve: want inputs=N")
		}
		r := &valveRun{}
		r.op = &recOp{hold: opt("hold"), c: newCounters("Op")}
		r.out = &recOut{log: &r.op.log}
		var err error
		r.d = newDriver(r.op, int(n), r.out)
		if drift := opt("drift"); drift >= 0 {
			r.d.v.drift = &driftCheck{threshold: drift, names: []string{"a", "b", "c", "d"}[:n], op: "Op",
				warn: func(_, msg string) { r.warns = append(r.warns, msg) }}
		}
		if err = r.d.open(context.Background()); err != nil {
			d.Fatalf(t, "open: %v", err)
		}
		vr = r
		return vr.state(nil)
	case "wm", "idle", "active", "end", "rows":
		if vr == nil {
			d.Fatalf(t, "no valve yet")
		}
		p := int(arg(0))
		var err error
		switch d.Cmd {
		case "wm":
			err = vr.d.watermark(p, arg(1))
		case "idle", "active":
			err = vr.d.idle(p, d.Cmd == "idle")
		case "end":
			// As a source ends: its final watermark, then its end.
			if err = vr.d.watermark(p, MaxWatermark); err == nil {
				err = vr.d.end(p)
			}
		case "rows":
			err = vr.d.process(p, row.Batch{row.Insert(row.IntValue(1))})
		}
		return vr.state(err)
	case "align":
		vr = &valveRun{group: &alignGroup{}, drift: opt("drift")}
		for range opt("sources") {
			vr.members = append(vr.members, vr.group.join(vr.drift, time.Second))
		}
		return vr.alignState()
	case "source-wm", "source-idle", "source-active", "source-leave":
		if vr == nil || vr.group == nil {
			d.Fatalf(t, "no alignment group yet")
		}
		m := vr.members[arg(0)]
		switch d.Cmd {
		case "source-wm":
			m.set(arg(1))
		case "source-idle", "source-active":
			m.setIdle(d.Cmd == "source-idle")
		case "source-leave":
			m.leave()
		}
		return vr.alignState()
	}
	d.Fatalf(t, "unknown command %q", d.Cmd)
	return ""
}

func valveWM(w int64) string {
	switch w {
	case MinWatermark:
		return "-inf"
	case MaxWatermark:
		return "+inf"
	}
	return strconv.FormatInt(w, 10)
}

// state prints what the last command made the operator see and send, then
// the valve.
func (r *valveRun) state(err error) string {
	var b strings.Builder
	for _, l := range r.op.log {
		fmt.Fprintf(&b, "%s\n", l)
	}
	for _, w := range r.warns {
		fmt.Fprintf(&b, "warning: %s\n", w)
	}
	r.op.log, r.warns = nil, nil
	if err != nil {
		fmt.Fprintf(&b, "error: %v\n", err)
	}
	v := r.d.v
	fmt.Fprintf(&b, "combined %s;", valveWM(v.watermark()))
	for i := range v.in {
		fmt.Fprintf(&b, " %d:%s", i, valveWM(v.inputWatermark(i)))
		switch {
		case v.ended[i]:
			b.WriteString("(ended)")
		case v.idle[i]:
			b.WriteString("(idle)")
		case v.behind[i]:
			b.WriteString("(behind)")
		}
	}
	b.WriteString("\n")
	return b.String()
}

// alignState prints the group's minimum, the limit of its members, and
// which are ahead of it: those alignment stops reading.
func (r *valveRun) alignState() string {
	var b strings.Builder
	groupMin, limit, _ := r.members[0].limit()
	if groupMin == MinWatermark {
		fmt.Fprintf(&b, "group min -inf, limit -inf+%d\n", r.drift)
	} else {
		fmt.Fprintf(&b, "group min %s, limit %s\n", valveWM(groupMin), valveWM(limit))
	}
	for i, m := range r.members {
		m.g.mu.Lock()
		wm, idle, left := m.wm, m.idle, m.left
		m.g.mu.Unlock()
		state := "reads"
		switch {
		case left:
			state = "left"
		case idle:
			state = "idle"
		case pastLimit(wm, limit):
			state = "paused"
		}
		fmt.Fprintf(&b, "source %d: %s %s\n", i, valveWM(wm), state)
	}
	return b.String()
}

// recOp records the lifecycle calls it gets.
type recOp struct {
	log  []string
	hold int64 // output watermark lag, -1: none
	in   inputs
	c    *Counters
}

func (o *recOp) open(_ context.Context, in inputs) error {
	o.in = in
	return nil
}

func (o *recOp) process(port int, b row.Batch) error {
	o.log = append(o.log, fmt.Sprintf("op: process port %d, %d rows, late at or below %s", port, len(b), valveWM(o.in.watermark())))
	return nil
}

func (o *recOp) advance(wm int64) error {
	o.log = append(o.log, "op: advance "+valveWM(wm))
	return nil
}

func (o *recOp) endInput(port int) error {
	o.log = append(o.log, fmt.Sprintf("op: endInput %d", port))
	return nil
}

func (o *recOp) finish() error {
	o.log = append(o.log, "op: finish")
	return nil
}

func (o *recOp) close() error        { return nil }
func (o *recOp) counters() *Counters { return o.c }

// outputWatermark holds the output back by hold, when set.
func (o *recOp) outputWatermark(w int64) int64 {
	if o.hold < 0 || w == MaxWatermark {
		return w
	}
	return satAdd(w, -o.hold)
}

// recOut records what goes downstream, in one log with the operator's
// calls (nil: nowhere).
type recOut struct{ log *[]string }

func (o *recOut) add(s string) error {
	if o.log != nil {
		*o.log = append(*o.log, "out: "+s)
	}
	return nil
}

func (o *recOut) push(b row.Batch) error   { return o.add(fmt.Sprintf("%d rows", len(b))) }
func (o *recOut) watermark(wm int64) error { return o.add("watermark " + valveWM(wm)) }
func (o *recOut) idle(idle bool) error {
	return o.add(map[bool]string{true: "idle", false: "active"}[idle])
}
func (o *recOut) end() error { return o.add("end") }

func (o *recOut) barrier(b *barrier) error { return o.add(fmt.Sprintf("barrier %d", b.id)) }

// failOp fails or panics at its first batch.
type failOp struct {
	noLifecycle
	panics bool
	calls  int
	c      *Counters
}

func (o *failOp) process(int, row.Batch) error {
	o.calls++
	if o.panics {
		panic("index out of range [3] with length 3")
	}
	return errors.New("boom")
}
func (o *failOp) advance(int64) error { o.calls++; return nil }
func (o *failOp) counters() *Counters { return o.c }

// TestDriverErrors: an operator's error, or panic, stops it with a
// RuntimeError that names it (and where its SQL is, when known); it gets
// no call after that, and an error coming back from downstream keeps the
// name of the operator that failed.
func TestDriverErrors(t *testing.T) {
	for _, panics := range []bool{false, true} {
		op := &failOp{panics: panics, c: newCounters("Join INNER(a, b)")}
		op.c.ID = "join-7"
		d := newDriver(op, 2, &recOut{})
		if err := d.open(context.Background()); err != nil {
			t.Fatal(err)
		}
		err := d.process(0, row.Batch{row.Insert(row.IntValue(1))})
		var re *RuntimeError
		if !errors.As(err, &re) || re.Op != "Join INNER(a, b)" || re.ID != "join-7" {
			t.Fatalf("panics=%v: got %#v, want a RuntimeError of Join INNER(a, b), join-7", panics, err)
		}
		want := "runtime error in Join INNER(a, b): boom"
		if panics {
			want = "runtime error in Join INNER(a, b): internal error: index out of range [3] with length 3 (please report it with the job file)"
		}
		if err.Error() != want {
			t.Errorf("got %q, want %q", err, want)
		}
		if err := d.watermark(0, 5); err == nil || op.calls != 1 {
			t.Errorf("after its error the operator got %d calls (want 1) and the driver said %v", op.calls, err)
		}
		// Upstream of it, the error keeps its name.
		up := newDriver(&recOp{c: newCounters("Filter"), hold: -1}, 1, failing{newDriver(&failOp{c: newCounters("Sink")}, 1, nil)})
		_ = up.open(context.Background())
		if err := up.watermark(0, 1); err == nil || !strings.Contains(err.Error(), "in Sink:") || strings.Contains(err.Error(), "Filter") {
			t.Errorf("an error from downstream: got %v, want it named after Sink only", err)
		}
	}
}

// failing is a collector whose watermark calls an operator that fails.
type failing struct{ d *driver }

func (f failing) push(b row.Batch) error { return f.d.process(0, b) }
func (f failing) watermark(int64) error {
	return f.d.process(0, row.Batch{row.Insert(row.IntValue(1))})
}
func (f failing) idle(bool) error { return nil }
func (f failing) end() error      { return nil }

func (f failing) barrier(*barrier) error { return nil }
