package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	osexec "os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Kafka queries read their input from, and write their output to, the
// development broker: `streamsql dev kafka` (franz-go's in-memory kfake) as
// a process of its own on this machine, started once per query. The inputs
// are produced to it with franz-go before the runs (timed apart, not in the
// job's numbers), and the output topic is emptied before each run. The
// broker shares the cores with the job: its CPU time during each run is
// measured from /proc and reported apart.

// kafkaPartitions is the partitions of every topic of a Kafka query.
const kafkaPartitions = 4

// devBroker is a running `streamsql dev kafka`.
type devBroker struct {
	cmd    *osexec.Cmd
	addr   string
	stderr bytes.Buffer
	exited chan struct{}
}

// startBroker starts the development broker with topics (each with
// kafkaPartitions partitions) and waits for the address it prints.
func startBroker(bin string, topics ...string) (*devBroker, error) {
	spec := make([]string, len(topics))
	for i, t := range topics {
		spec[i] = fmt.Sprintf("%s:%d", t, kafkaPartitions)
	}
	b := &devBroker{exited: make(chan struct{})}
	b.cmd = osexec.Command(bin, "dev", "kafka", "--listen", "127.0.0.1:0", "--topics", strings.Join(spec, ","))
	b.cmd.Stderr = &b.stderr
	out, err := b.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := b.cmd.Start(); err != nil {
		return nil, err
	}
	atExit = append(atExit, b.stop)
	first := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			select {
			case first <- sc.Text():
			default:
			}
		}
		_ = b.cmd.Wait()
		close(b.exited)
	}()
	select {
	case line := <-first:
		addr, ok := strings.CutPrefix(line, "streamsql dev kafka: listening on ")
		if !ok {
			b.stop()
			return nil, fmt.Errorf("streamsql dev kafka printed %q", line)
		}
		b.addr = addr
		return b, nil
	case <-b.exited:
		return nil, fmt.Errorf("streamsql dev kafka ended: %s", b.stderr.String())
	case <-time.After(30 * time.Second):
		b.stop()
		return nil, errors.New("streamsql dev kafka printed no address within 30 s")
	}
}

// stop ends the broker (Ctrl-C, then a kill) and waits for it.
func (b *devBroker) stop() {
	if b.cmd.Process == nil {
		return
	}
	_ = b.cmd.Process.Signal(os.Interrupt)
	select {
	case <-b.exited:
	case <-time.After(10 * time.Second):
		_ = b.cmd.Process.Kill()
		<-b.exited
	}
}

// cpu is the broker's user + system CPU time so far, from /proc (Linux);
// 0 where /proc is not there.
func (b *devBroker) cpu() time.Duration {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", b.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	// The fields after the command name (in parentheses, which may hold
	// spaces): utime and stime are fields 14 and 15 of the line, in clock
	// ticks (100 per second on Linux).
	s := string(data)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0
	}
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * (time.Second / 100)
}

func (b *devBroker) client(opts ...kgo.Opt) (*kgo.Client, error) {
	return kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(b.addr)}, opts...)...)
}

// produceLines produces every line of path to topic, keyed by the value of
// the JSON field keyField (partitioned by its hash, as Kafka's Java client
// does), and returns the records produced.
func (b *devBroker) produceLines(topic, path, keyField string) (int64, error) {
	cl, err := b.client(kgo.ProducerLinger(5*time.Millisecond), kgo.MaxBufferedRecords(100_000))
	if err != nil {
		return 0, err
	}
	defer cl.Close()
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	ctx := context.Background()
	var failed atomic.Pointer[error]
	var n int64
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	marker := []byte(`"` + keyField + `": "`)
	for sc.Scan() {
		line := bytes.Clone(sc.Bytes())
		var key []byte
		if i := bytes.Index(line, marker); i >= 0 {
			rest := line[i+len(marker):]
			if j := bytes.IndexByte(rest, '"'); j >= 0 {
				key = rest[:j]
			}
		}
		cl.Produce(ctx, &kgo.Record{Topic: topic, Key: key, Value: line}, func(_ *kgo.Record, err error) {
			if err != nil {
				failed.CompareAndSwap(nil, &err)
			}
		})
		n++
	}
	if err := sc.Err(); err != nil {
		return n, err
	}
	if err := cl.Flush(ctx); err != nil {
		return n, err
	}
	if e := failed.Load(); e != nil {
		return n, fmt.Errorf("producing %s: %w", topic, *e)
	}
	return n, nil
}

// resetTopic deletes topic and creates it again, empty.
func (b *devBroker) resetTopic(topic string) error {
	cl, err := b.client()
	if err != nil {
		return err
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := adm.DeleteTopic(ctx, topic); err != nil {
		return fmt.Errorf("deleting %s: %w", topic, err)
	}
	for {
		r, err := adm.CreateTopic(ctx, kafkaPartitions, 1, nil, topic)
		if err == nil {
			err = r.Err
		}
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("creating %s: %w", topic, err)
		}
		time.Sleep(50 * time.Millisecond) // the deletion is still under way
	}
}
