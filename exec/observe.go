package exec

import (
	"fmt"
	"strconv"
	"sync/atomic"

	"github.com/streamsql/streamsql/connector"
)

// Read-only views of a running job for observers (metrics, the web UI).
// Everything here is read from atomics the runtime updates anyway, so that
// watching a job adds no work to its rows' path.

// InputWatermark is the watermark of one input of a multi-input operator,
// published by its operator's valve as the input's watermark advances.
type InputWatermark struct {
	// Name is the input's table (its alias in the query), or "…" when the
	// input is not one table.
	Name string
	WM   atomic.Int64
}

// publish makes v publish its inputs' watermarks under names (by number
// from 1 where names has none) and returns them.
func (v *valve) publish(names []string, n int) []*InputWatermark {
	v.pub = make([]*InputWatermark, n)
	for i := range v.pub {
		name := strconv.Itoa(i + 1)
		if i < len(names) {
			name = names[i]
		}
		w := &InputWatermark{Name: name}
		w.WM.Store(v.in[i])
		v.pub[i] = w
	}
	return v.pub
}

// nameSides records the names of op's inputs (their tables' aliases).
func (b *builder) nameSides(op operator, names []string) {
	if b.sides == nil {
		b.sides = map[operator][]string{}
	}
	b.sides[op] = names
}

// SplitWatermark is the watermark of one split of a source (a Kafka
// partition, a file), published as the split's rows arrive.
type SplitWatermark struct {
	// Name is the split's name: "topic-partition" for Kafka, else its
	// number from 0.
	Name string
	WM   atomic.Int64
	// meter measures the split's bytes and lag (nil when the source does
	// not), split its number there.
	meter connector.SplitMeter
	split int
}

// Bytes is the bytes of input the split has given, and false when its
// source does not count them.
func (w *SplitWatermark) Bytes() (int64, bool) {
	if w.meter == nil {
		return 0, false
	}
	return w.meter.SplitBytes(w.split), true
}

// Lag is how many records of the split are not read yet (a Kafka
// partition's consumer lag), and false when it is not known.
func (w *SplitWatermark) Lag() (int64, bool) {
	if w.meter == nil {
		return 0, false
	}
	return w.meter.SplitLag(w.split)
}

// Splits returns the watermarks of a source's splits (nil before it
// opened).
func (c *Counters) Splits() []*SplitWatermark {
	if p := c.splits.Load(); p != nil {
		return *p
	}
	return nil
}

// publishSplits makes the n splits of src visible through c.Splits.
func (c *Counters) publishSplits(src connector.Source, n int) []*SplitWatermark {
	named, _ := src.(interface {
		Partition(split int) (string, int32)
	})
	meter, _ := src.(connector.SplitMeter)
	if src.Splits() != n {
		named, meter = nil, nil // one split stands for a source without any
	}
	out := make([]*SplitWatermark, n)
	for i := range out {
		name := strconv.Itoa(i)
		if named != nil {
			topic, part := named.Partition(i)
			name = topic + "-" + strconv.Itoa(int(part))
		}
		out[i] = &SplitWatermark{Name: name, meter: meter, split: i}
		out[i].WM.Store(MinWatermark)
	}
	c.splits.Store(&out)
	return out
}

// checkGap raises or clears the source's gap alert: max event time minus
// watermark over 'scan.watermark.gap-alert'. Each time the gap goes over,
// the alert is counted and a warning says which table and by how much.
// It reads two atomics the runner keeps anyway, once per read.
func (r *sourceRunner) checkGap() {
	wm, maxT := r.counters.Watermark.Load(), r.counters.MaxTime.Load()
	over := wm != MinWatermark && wm != MaxWatermark && maxT != MinWatermark && maxT-wm > r.gapAlert
	if over == r.alerting {
		return
	}
	r.alerting = over
	r.counters.GapAlerting.Store(over)
	if !over {
		return
	}
	n := r.counters.GapAlerts.Add(1)
	if r.warn != nil {
		r.warn(fmt.Sprintf("gap:%s:%d", r.name, n), fmt.Sprintf("source %s: event-time gap alert: its max event time %s "+
			"is %s ahead of its watermark %s, over 'scan.watermark.gap-alert' (%s): a split (partition) is far behind "+
			"the others (rewound or lagging), and the operators downstream keep state for the whole gap",
			r.name, FormatMillis(maxT), FormatDuration(maxT-wm), FormatMillis(wm), FormatDuration(r.gapAlert)))
	}
}
