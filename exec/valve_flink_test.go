package exec

import (
	"context"
	"fmt"
	"math/rand"
	"strconv"
	"strings"
	"testing"
)

// flinkValve is a model of Flink's StatusWatermarkValve, written from its
// documented algorithm (not from the valve): channels are active or idle
// and aligned or not; the output watermark is the minimum over aligned
// channels; a channel that becomes active below the output is not aligned
// until its watermark catches up; a watermark on an idle channel, or while
// the valve is idle, is ignored; when the last active channel goes idle
// the output moves to the largest watermark of all channels, but only when
// that channel held the output. An ended input is, as in Flink, a channel
// that sent MaxWatermark.
type flinkValve struct {
	wm              []int64
	idle, aligned   []bool
	out             int64
	outIdle         bool
	emitted         []int64
	statusesEmitted []bool
}

func newFlinkValve(n int) *flinkValve {
	f := &flinkValve{wm: make([]int64, n), idle: make([]bool, n), aligned: make([]bool, n), out: MinWatermark}
	for i := range f.wm {
		f.wm[i], f.aligned[i] = MinWatermark, true
	}
	return f
}

func (f *flinkValve) newMin() {
	m, some := MaxWatermark, false
	for i, w := range f.wm {
		if f.aligned[i] {
			m, some = min(m, w), true
		}
	}
	if some && m > f.out {
		f.out = m
		f.emitted = append(f.emitted, m)
	}
}

func (f *flinkValve) watermark(ch int, w int64) {
	if f.outIdle || f.idle[ch] || w <= f.wm[ch] {
		return
	}
	f.wm[ch] = w
	if !f.aligned[ch] && w >= f.out {
		f.aligned[ch] = true
	}
	f.newMin()
}

func (f *flinkValve) setIdle(ch int, idle bool) {
	switch {
	case idle && !f.idle[ch]:
		f.idle[ch], f.aligned[ch] = true, false
		active := false
		for _, i := range f.idle {
			active = active || !i
		}
		if !active {
			if f.wm[ch] == f.out {
				m := MinWatermark
				for _, w := range f.wm {
					m = max(m, w)
				}
				if m > f.out {
					f.out = m
					f.emitted = append(f.emitted, m)
				}
			}
			f.outIdle = true
			f.statusesEmitted = append(f.statusesEmitted, true)
		} else if f.wm[ch] == f.out {
			f.newMin()
		}
	case !idle && f.idle[ch]:
		f.idle[ch] = false
		if f.wm[ch] >= f.out {
			f.aligned[ch] = true
		}
		if f.outIdle {
			f.outIdle = false
			f.statusesEmitted = append(f.statusesEmitted, false)
		}
	}
}

// TestValveAgainstFlink drives the valve (through a driver) and the Flink
// model with the same random inputs — watermarks that sometimes go
// backwards, idleness, ends as a source sends them (active, MaxWatermark,
// end), never a watermark on an idle input — and requires the same output
// watermarks and, while no input has ended, the same idleness, except
// where they part as testdata/valve writes down: when the last active
// input goes idle while behind, Flink keeps its output where it is and the
// valve moves to the largest watermark; when an input comes back from
// idleness, the valve takes it into the minimum at once, Flink at the next
// watermark; and once an input has ended and no other is aligned (all idle
// or behind), Flink, whose ended input is an active one at +inf, moves to
// +inf, where the valve holds (inputs behind) or moves to the largest
// watermark of the idle ones. A run stops comparing at the first step
// where they differ in one of these ways (and counts it); any other
// difference fails. Along the way it checks the lifecycle the operator sees: advances
// strictly rising, endInput once per input after its end, finish once,
// after advance(+inf) and every endInput, then nothing more.
func TestValveAgainstFlink(t *testing.T) {
	parted, compared := map[string]int{}, 0
	for seed := int64(1); seed <= 3000; seed++ {
		rng := rand.New(rand.NewSource(seed))
		n := 1 + rng.Intn(3)
		op := &recOp{hold: -1, c: newCounters("Op")}
		out := &recOut{log: &op.log}
		d := newDriver(op, n, out)
		if err := d.open(context.Background()); err != nil {
			t.Fatal(err)
		}
		f := newFlinkValve(n)
		ended := make([]bool, n)
		own := make([]int64, n) // what each input sent last (for the generator)
		for i := range own {
			own[i] = MinWatermark
		}
		var trace []string
		fail := func(format string, args ...any) {
			t.Helper()
			t.Fatalf("seed %d, %d inputs, after:\n%s\n%s", seed, n, strings.Join(trace, "\n"), fmt.Sprintf(format, args...))
		}
		lastAdvance, lastOut := MinWatermark, MinWatermark
		endInputs, finished, sawMax, outEnded := make([]bool, n), false, false, false
		outIdle := false
		comparing := true
		for step := 0; step < 60; step++ {
			p := rng.Intn(n)
			if ended[p] {
				continue
			}
			var err error
			parting := "" // the documented parting this step may show
			switch k := rng.Intn(20); {
			case k < 12:
				if f.idle[p] {
					continue // no watermark while idle (Flink ignores it; see testdata/valve)
				}
				w := max(own[p], 0) + int64(rng.Intn(14)-3)
				own[p] = max(own[p], w)
				trace = append(trace, fmt.Sprintf("wm %d %d", p, w))
				err = d.watermark(p, w)
				f.watermark(p, w)
			case k < 19:
				idle := !f.idle[p]
				trace = append(trace, map[bool]string{true: "idle ", false: "active "}[idle]+fmt.Sprint(p))
				if idle {
					// The documented parting: the last active input goes
					// idle while not holding Flink's output.
					active := 0
					for i := range f.idle {
						if !f.idle[i] && !ended[i] {
							active++
						}
					}
					if active == 1 && f.wm[p] != f.out {
						parting = "last active input goes idle behind"
					}
				} else {
					parting = "rejoining input: Flink recomputes only at the next watermark"
				}
				err = d.idle(p, idle)
				f.setIdle(p, idle)
			default:
				trace = append(trace, fmt.Sprintf("end %d", p))
				if f.idle[p] {
					if err = d.idle(p, false); err != nil {
						break
					}
					f.setIdle(p, false)
				}
				if err = d.watermark(p, MaxWatermark); err == nil {
					err = d.end(p)
				}
				f.watermark(p, MaxWatermark)
				ended[p] = true
			}
			if err != nil {
				fail("error: %v", err)
			}
			// The lifecycle the operator saw, and what went out.
			for _, l := range op.log {
				var w int64
				var port int
				switch {
				case finished && (l != "out: end" || outEnded):
					fail("%q after finish", l)
				case strings.HasPrefix(l, "op: advance "):
					w = parseWM(l[len("op: advance "):])
					if w <= lastAdvance {
						fail("advance %s after %s", valveWM(w), valveWM(lastAdvance))
					}
					lastAdvance, sawMax = w, w == MaxWatermark
				case strings.HasPrefix(l, "out: watermark "):
					w = parseWM(l[len("out: watermark "):])
					if w != lastAdvance || w <= lastOut {
						fail("out watermark %s, last advance %s, last out %s", valveWM(w), valveWM(lastAdvance), valveWM(lastOut))
					}
					lastOut = w
				case strings.HasPrefix(l, "op: endInput "):
					port, _ = strconv.Atoi(l[len("op: endInput "):])
					if endInputs[port] || !ended[port] {
						fail("endInput %d twice or before its end", port)
					}
					endInputs[port] = true
				case l == "op: finish":
					for i, e := range endInputs {
						if !e {
							fail("finish before endInput %d", i)
						}
					}
					if !sawMax {
						fail("finish before advance(+inf)")
					}
					finished = true
				case l == "out: idle" || l == "out: active":
					if (l == "out: idle") == outIdle {
						fail("%s twice", l)
					}
					outIdle = l == "out: idle"
				case l == "out: end":
					outEnded = true
				}
			}
			op.log = op.log[:0]
			if finished && !outEnded {
				fail("finished but the output did not end")
			}
			if !comparing {
				continue
			}
			// Flink's ended inputs are active channels at +inf, so once no
			// input that has not ended is aligned, its output goes to +inf;
			// the valve leaves ended inputs out.
			anyEnded, aligned := false, false
			for i, e := range ended {
				anyEnded = anyEnded || e
				aligned = aligned || !e && f.aligned[i]
			}
			if anyEnded && !aligned && parting == "" {
				parting = "an input ended, none of the others aligned"
			}
			if got, want := d.v.watermark(), f.out; got != want && parting != "" {
				// Which side is ahead is part of what is written down.
				if ahead := got > want; ahead != (parting != "an input ended, none of the others aligned") {
					fail("%s, but the valve is at %s and Flink at %s", parting, valveWM(got), valveWM(want))
				}
				parted[parting]++
				comparing = false
				continue
			}
			if got, want := d.v.watermark(), f.out; got != want {
				fail("valve %s, Flink %s", valveWM(got), valveWM(want))
			}
			if !anyEnded && outIdle != f.outIdle {
				fail("output idle %v, Flink %v", outIdle, f.outIdle)
			}
			compared++
		}
	}
	t.Logf("%d steps compared with Flink; runs parted where documented: %v", compared, parted)
	if compared < 10000 {
		t.Errorf("only %d steps compared", compared)
	}
}

func parseWM(s string) int64 {
	switch s {
	case "-inf":
		return MinWatermark
	case "+inf":
		return MaxWatermark
	}
	w, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		panic(err) // the test's own log
	}
	return w
}
