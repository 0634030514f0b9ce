package kafka

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/streamsql/streamsql/exec"
	"github.com/streamsql/streamsql/internal/plantest"
)

// TestSharedTopicReadOnce (#11.9): two INSERTs over one Kafka table read
// its topic once: the broker sees one fetch from the start of each
// partition (it saw two when each statement read the topic itself), the
// job has one source that read each record once, and both sinks get every
// record.
func TestSharedTopicReadOnce(t *testing.T) {
	c, addr := killableCluster(t, map[string]int32{"in": 2, "out1": 1, "out2": 1})
	var recs []rec
	for i := range 200 {
		recs = append(recs, rec{partition: int32(i % 2), value: fmt.Sprintf(`{"id": %d}`, i)})
	}
	produce(t, addr, "in", recs...)
	var fromStart atomic.Int32 // partition fetches at offset 0
	c.ControlKey(int16(kmsg.Fetch), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		for _, tp := range req.(*kmsg.FetchRequest).Topics {
			for _, p := range tp.Partitions {
				if p.FetchOffset == 0 {
					fromStart.Add(1)
				}
			}
		}
		return nil, nil, false
	})
	plans, settings := plan(t, fmt.Sprintf(`
CREATE TABLE src (id BIGINT, part INT METADATA FROM 'partition' VIRTUAL, off BIGINT METADATA FROM 'offset' VIRTUAL)
WITH ('connector' = 'kafka', 'topic' = 'in', 'properties.bootstrap.servers' = '%[1]s', 'format' = 'json',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset');
CREATE TABLE out1 (id BIGINT, part INT, off BIGINT)
WITH ('connector' = 'kafka', 'topic' = 'out1', 'properties.bootstrap.servers' = '%[1]s', 'format' = 'json');
CREATE TABLE out2 (id BIGINT)
WITH ('connector' = 'kafka', 'topic' = 'out2', 'properties.bootstrap.servers' = '%[1]s', 'format' = 'json');
INSERT INTO out1 SELECT id, part, off FROM src;
INSERT INTO out2 SELECT id FROM src WHERE part >= 0;
`, addr))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	job, err := exec.Build(ctx, plantest.Lower(t, plans), exec.Options{Settings: settings})
	if err != nil {
		t.Fatal(err)
	}
	if err := job.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if n := fromStart.Load(); n != 2 {
		t.Errorf("the broker saw %d fetches from the start of a partition of 'in', want 2 (one per partition)", n)
	}
	if len(job.Sources) != 1 || job.Sources[0].In.Load() != 200 {
		var read []int64
		for _, s := range job.Sources {
			read = append(read, s.In.Load())
		}
		t.Errorf("want one source that read 200 records, got %d sources that read %v", len(job.Sources), read)
	}
	for _, topic := range []string{"out1", "out2"} {
		var got []string
		for _, r := range consume(t, addr, topic) {
			got = append(got, r.value)
		}
		if len(got) != 200 || len(slices.Compact(slices.Sorted(slices.Values(got)))) != 200 {
			t.Errorf("%s has %d records (%d distinct), want the 200 of 'in' once each", topic, len(got), len(slices.Compact(slices.Sorted(slices.Values(got)))))
		}
	}
}
