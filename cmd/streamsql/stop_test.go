package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// writtenBySink reads the summary's "sink NAME  N rows written" lines.
func writtenBySink(t *testing.T, stderr string) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	for _, m := range regexp.MustCompile(`(?m)^  sink (\S+) +(\d+) rows? written$`).FindAllStringSubmatch(stderr, -1) {
		n, _ := strconv.ParseInt(m[2], 10, 64)
		out[m[1]] = n
	}
	return out
}

// topicRecords counts the records in a topic (the sum of its end offsets).
func topicRecords(t *testing.T, addr, topic string) int64 {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ends, err := kadm.NewClient(cl).ListEndOffsets(context.Background(), topic)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	ends.Each(func(o kadm.ListedOffset) { n += o.Offset })
	return n
}

// TestRunStopsOnSignal (#19.6): SIGINT or SIGTERM stops `streamsql run`:
// the sinks flush what they were given (the file, the Kafka topic and the
// printed lines hold exactly what the summary counts), the summary is
// printed, run says "stopped", not "failed", and exits 128 + the signal.
func TestRunStopsOnSignal(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(2, "out"))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			addr := c.ListenAddrs()[0]
			dir := t.TempDir()
			job := writeJobIn(t, dir, "gen.sql", fmt.Sprintf(`CREATE TABLE g (id BIGINT) WITH (
  'connector' = 'datagen', 'rows-per-second' = '20000',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '1000000000');
CREATE TABLE f (id BIGINT) WITH ('connector' = 'filesystem', 'path' = 'out/f.json', 'format' = 'json');
CREATE TABLE k (id BIGINT) WITH ('connector' = 'kafka', 'topic' = 'out', 'properties.bootstrap.servers' = '%s',
  'format' = 'json', 'properties.linger.ms' = '100');
CREATE TABLE p (id BIGINT) WITH ('connector' = 'print');
INSERT INTO f SELECT id FROM g;
INSERT INTO k SELECT id FROM g;
INSERT INTO p SELECT id FROM g;
`, addr))
			cmd, stdout, stderr := startRun(t, job)
			waitFor(t, "rows on stdout and in the topic", func() bool {
				return strings.Count(stdout.String(), "\n") > 2000 && topicRecords(t, addr, "out") > 2000
			})
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			err = cmd.Wait()
			var exit *osexec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 128+int(sig) {
				t.Fatalf("want exit status %d, got %v\n%s", 128+int(sig), err, stderr)
			}
			errText := stderr.String()
			if !strings.Contains(errText, "streamsql run: stopped\n") || strings.Contains(errText, "failed") {
				t.Fatalf("want \"stopped\" and no failure:\n%s", errText)
			}
			written := writtenBySink(t, errText)
			if len(written) != 3 {
				t.Fatalf("the summary should list three sinks:\n%s", errText)
			}
			data, err := os.ReadFile(filepath.Join(dir, "out", "f.json"))
			if err != nil {
				t.Fatal(err)
			}
			if n := sequenceLines(t, data); int64(n) != written["f"] || n == 0 {
				t.Errorf("the file holds %d rows, the summary says %d", n, written["f"])
			}
			if n := topicRecords(t, addr, "out"); n != written["k"] || n == 0 {
				t.Errorf("the topic holds %d records, the summary says %d", n, written["k"])
			}
			if n := int64(strings.Count(stdout.String(), "+I[")); n != written["p"] || n == 0 {
				t.Errorf("%d rows were printed, the summary says %d", n, written["p"])
			}
		})
	}
}
