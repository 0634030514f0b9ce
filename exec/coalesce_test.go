package exec

import (
	"slices"
	"testing"
)

// buffering wraps a feed as a connector.Buffered: items already in the
// feed's channel are what a Kafka source has fetched and not returned.
type buffering struct{ *feedSource }

func (b buffering) Buffered() bool { return len(b.feed) > 0 }

// TestSourceCoalescesBuffered: what a source has already fetched, of
// several splits, goes downstream as one batch followed by one watermark
// (issue #18), the rows in the order Read returned them.
func TestSourceCoalescesBuffered(t *testing.T) {
	f := newFeed(2, false)
	f.feed <- feedItem{split: 0, times: []int64{1000, 1010}}
	f.feed <- feedItem{split: 1, times: []int64{1100}}
	f.feed <- feedItem{split: 0, times: []int64{1200}}
	r := &sourceRunner{name: "orders", src: buffering{f}, timeCol: 0}
	c := runSources(t, r)
	waitFor(t, "the watermark of both splits", func() bool { return c.watermark(0) == 1100 })
	s := c.seq(0)
	if len(s) != 2 || s[0].kind != msgBatch || s[1].kind != msgWatermark {
		t.Fatalf("messages %v, want one batch and one watermark", kinds(s))
	}
	var times []int64
	for _, rw := range s[0].batch {
		times = append(times, rw.Vals[0].Int())
	}
	if want := []int64{1000, 1010, 1100, 1200}; !slices.Equal(times, want) {
		t.Errorf("batch times %v, want %v", times, want)
	}
	// Nothing buffered: the next rows go as soon as they are read.
	f.feed <- feedItem{split: 1, times: []int64{1300}}
	waitFor(t, "the next batch", func() bool { return c.batches(0) == 2 })
	waitFor(t, "the next watermark", func() bool { return c.watermark(0) == 1200 })
}

// TestSourceWithoutBufferedSendsEachRead: a source that does not say what
// it has buffered gets a batch per Read, and a watermark whenever it moves.
func TestSourceWithoutBufferedSendsEachRead(t *testing.T) {
	f := newFeed(2, false)
	f.feed <- feedItem{split: 0, times: []int64{1000}}
	f.feed <- feedItem{split: 1, times: []int64{1100}}
	f.feed <- feedItem{split: 0, times: []int64{1200}}
	r := &sourceRunner{name: "orders", src: f, timeCol: 0}
	c := runSources(t, r)
	waitFor(t, "the watermark of both splits", func() bool { return c.watermark(0) == 1100 })
	waitFor(t, "three batches", func() bool { return c.batches(0) == 3 })
	if got, want := kinds(c.seq(0)), []string{"rows", "rows", "wm", "rows", "wm"}; !slices.Equal(got, want) {
		t.Errorf("messages %v, want %v", got, want)
	}
}

// kinds names the messages a source sent.
func kinds(s []msg) []string {
	var out []string
	for _, m := range s {
		switch m.kind {
		case msgBatch:
			out = append(out, "rows")
		case msgWatermark:
			out = append(out, "wm")
		default:
			out = append(out, "other")
		}
	}
	return out
}
