package kafka

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/streamsql/streamsql/connector"
)

// The sink's side of checkpoints (connector.SinkCheckpointer,
// connector.SinkCommitter), by 'sink.delivery-guarantee':
//
//   - none: nothing is waited for at a checkpoint.
//   - at-least-once: Checkpoint waits until every record written so far is
//     acknowledged, so that what a resumed job writes again starts at or
//     before the checkpoint: nothing is lost, rows after it may be written
//     twice (upsert-kafka: the same row under the same key, so the
//     compacted topic is the clean run's table).
//   - exactly-once: two-phase commit, as Flink's KafkaSink. Records go into
//     a Kafka transaction; at a checkpoint barrier the transaction is
//     flushed (pre-committed) and its transactional id, producer id and
//     epoch go into the checkpoint; once the checkpoint is complete
//     (CheckpointComplete) it is committed. A transaction whose checkpoint
//     failed stays pending and is committed with the next that completes.
//     Resume commits the checkpoint's pending transactions (EndTxn with
//     their producer id and epoch, as Flink's KafkaCommitter does after a
//     crash between the manifest and the commit; one already committed is
//     a success), then aborts the transactions a crashed run left open
//     after them (as Flink's TransactionAborter: InitProducerID on each
//     transactional id from the checkpoint's next one on, until one that
//     was never used).
//
// Transactional ids are '<sink.transactional-id-prefix>-<n>', n counting
// the sink's transactions from 0 over every run on the same checkpoints:
// each transaction has its own id (and client), so a pre-committed one
// can wait for its checkpoint while the next takes records. The prefix
// must be unique to the sink among every job writing to the cluster.

const sinkStateVersion = 1

// sinkState is the sink's state in a checkpoint.
type sinkState struct {
	V         int          `json:"v"`
	Guarantee string       `json:"guarantee"`
	Prefix    string       `json:"prefix,omitempty"`
	Next      int64        `json:"next,omitempty"`    // the number of the next transaction
	Pending   []pendingTxn `json:"pending,omitempty"` // pre-committed, not yet committed
	// Lineage names the runs on one chain of checkpoints (made when a run
	// starts without one), so that a finish marker of an earlier chain
	// with the same prefix is not taken for this one's.
	Lineage string `json:"lineage,omitempty"`
}

// finishMarker is committed, as the metadata of an offset of group
// '<prefix>' (the sink's topic, partition 0, offset: the transaction's
// number), in the last transaction of a run that reached the end of its
// input, atomically with its last records: a crash after it and before
// the run exits must not make a resumed run write the rows after its
// checkpoint again. Txns are the transactions committed after it (those
// whose checkpoints failed), which a resumed run commits if the crash
// came first.
type finishMarker struct {
	Lineage string       `json:"lineage"`
	Txns    []pendingTxn `json:"txns,omitempty"`
}

// pendingTxn is a pre-committed transaction.
type pendingTxn struct {
	N     int64  `json:"n"`
	ID    string `json:"id"`
	PID   int64  `json:"pid"`
	Epoch int16  `json:"epoch"`
	cl    *kgo.Client
}

var (
	_ connector.SinkCheckpointer   = (*Sink)(nil)
	_ connector.SinkCommitter      = (*Sink)(nil)
	_ connector.CheckpointRequirer = (*Sink)(nil)
)

// NeedsCheckpoints says why an exactly-once sink cannot run without
// checkpoints: its transactions are committed when checkpoints complete
// (connector.CheckpointRequirer).
func (s *Sink) NeedsCheckpoints() string {
	if s.guarantee != "exactly-once" {
		return ""
	}
	return "'sink.delivery-guarantee' = 'exactly-once' commits a Kafka transaction when a checkpoint completes"
}

// txnID is the transactional id of transaction n.
func (s *Sink) txnID(n int64) string { return s.prefix + "-" + strconv.FormatInt(n, 10) }

// begin starts transaction s.next with a client of its own.
func (s *Sink) begin() error {
	n := s.next
	opts := append(slices.Clone(s.produceOpts), kgo.TransactionalID(s.txnID(n)), kgo.TransactionTimeout(s.txnTimeout))
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return fmt.Errorf("%s: table %s: %w", s.connector, s.set.table, err)
	}
	if err := cl.BeginTransaction(); err != nil {
		cl.Close()
		return fmt.Errorf("%s: table %s: transaction %s: %w", s.connector, s.set.table, s.txnID(n), err)
	}
	s.next++
	s.cl, s.curN = cl, n
	return nil
}

// Checkpoint makes the records written so far durable as the guarantee
// says, and returns the sink's state (connector.SinkCheckpointer).
func (s *Sink) Checkpoint(ctx context.Context) ([]byte, error) {
	st := sinkState{V: sinkStateVersion, Guarantee: s.guarantee}
	switch s.guarantee {
	case "at-least-once":
		if err := s.flush(ctx); err != nil {
			return nil, err
		}
	case "exactly-once":
		if err := s.precommit(ctx); err != nil {
			return nil, err
		}
		st.Prefix, st.Next, st.Lineage = s.prefix, s.next, s.lineage
		s.txnMu.Lock()
		st.Pending = slices.Clone(s.pending)
		s.txnMu.Unlock()
	}
	return json.Marshal(st)
}

// precommit flushes the open transaction, if any, and moves it to the
// pending ones; the next record begins a new one.
func (s *Sink) precommit(ctx context.Context) error {
	if s.cl == nil {
		return nil
	}
	if err := s.flush(ctx); err != nil {
		return err
	}
	pid, epoch, err := s.cl.ProducerID(ctx)
	if err != nil {
		return fmt.Errorf("%s: table %s: transaction %s: %w", s.connector, s.set.table, s.txnID(s.curN), err)
	}
	s.txnMu.Lock()
	s.pending = append(s.pending, pendingTxn{N: s.curN, ID: s.txnID(s.curN), PID: pid, Epoch: epoch, cl: s.cl})
	s.txnMu.Unlock()
	s.cl = nil
	return nil
}

// CheckpointComplete commits the transactions pre-committed up to the
// checkpoint whose state is data (connector.SinkCommitter). A commit that
// fails fails the sink: the job stops, and its next run commits them from
// the checkpoint.
func (s *Sink) CheckpointComplete(ctx context.Context, data []byte) error {
	if s.guarantee != "exactly-once" {
		return nil
	}
	var st sinkState
	if err := json.Unmarshal(data, &st); err != nil {
		return err
	}
	upTo := int64(-1)
	for _, p := range st.Pending {
		upTo = max(upTo, p.N)
	}
	if err := s.commitUpTo(ctx, upTo); err != nil {
		s.fail(err)
		return err
	}
	return nil
}

// commitUpTo commits the pending transactions numbered up to upTo with
// their clients.
func (s *Sink) commitUpTo(ctx context.Context, upTo int64) error {
	s.txnMu.Lock()
	defer s.txnMu.Unlock()
	for len(s.pending) > 0 && s.pending[0].N <= upTo {
		p := s.pending[0]
		if err := p.cl.EndTransaction(ctx, kgo.TryCommit); err != nil {
			return fmt.Errorf("committing transaction %s: %w", p.ID, err)
		}
		p.cl.Close()
		s.pending = s.pending[1:]
	}
	return nil
}

// Resume opens the sink where the checkpoint's state left it
// (connector.SinkCheckpointer): exactly-once commits the pending
// transactions and aborts those a crashed run left open after them.
func (s *Sink) Resume(ctx context.Context, data []byte) error {
	var st sinkState
	if err := json.Unmarshal(data, &st); err != nil {
		return fmt.Errorf("%s: table %s: the checkpoint's sink state is not readable: %w", s.connector, s.set.table, err)
	}
	if st.V != sinkStateVersion {
		return fmt.Errorf("%s: table %s: the checkpoint's sink state has version %d; this streamsql reads version %d",
			s.connector, s.set.table, st.V, sinkStateVersion)
	}
	if st.Guarantee == "exactly-once" && s.guarantee == "exactly-once" && st.Prefix != s.prefix {
		return fmt.Errorf("%s: table %s: the checkpoint's transactions have 'sink.transactional-id-prefix' = '%s', the table '%s': "+
			"set it back, or start over with another --state-dir", s.connector, s.set.table, st.Prefix, s.prefix)
	}
	s.resume = &st
	return s.Open(ctx)
}

// recover, at Open of an exactly-once sink, commits the pending
// transactions of the checkpoint resumed from and aborts every one after.
// When the run that stopped had reached the end of its input and committed
// its last transaction (its finish marker is newer than the checkpoint),
// its output is complete: the transactions it listed are committed, and
// this run writes nothing (discard).
func (s *Sink) recover(ctx context.Context) error {
	fail := func(err error) error {
		return fmt.Errorf("%s: table %s: recovering transactions: %w", s.connector, s.set.table, err)
	}
	if st := s.resume; st != nil && st.Guarantee == "exactly-once" {
		if err := s.commitPending(ctx, st.Pending); err != nil {
			return err
		}
		s.next, s.lineage = st.Next, st.Lineage
		m, n, err := s.finishMarker(ctx)
		if err != nil {
			return fail(err)
		}
		if m != nil && m.Lineage == s.lineage && n >= st.Next {
			for _, p := range m.Txns {
				if err := s.commitAgain(ctx, p); err != nil {
					return fail(err)
				}
			}
			s.discard = true
			return nil
		}
	}
	if s.lineage == "" {
		var b [8]byte
		_, _ = rand.Read(b[:])
		s.lineage = hex.EncodeToString(b[:])
	}
	for n := s.next; ; n++ {
		fresh, err := s.abortTxn(ctx, s.txnID(n))
		if err != nil {
			return fail(err)
		}
		if fresh {
			return nil
		}
	}
}

// commitPending commits the pending transactions of a checkpoint.
func (s *Sink) commitPending(ctx context.Context, pending []pendingTxn) error {
	for _, p := range pending {
		if err := s.commitAgain(ctx, p); err != nil {
			return fmt.Errorf("%s: table %s: recovering transactions: %w", s.connector, s.set.table, err)
		}
	}
	return nil
}

// finishMarker reads the finish marker of group '<prefix>' and the number
// of the transaction that committed it (nil: none).
func (s *Sink) finishMarker(ctx context.Context) (*finishMarker, int64, error) {
	rs, err := kadm.NewClient(s.adm).FetchOffsets(ctx, s.prefix)
	if errors.Is(err, kerr.GroupIDNotFound) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("fetching the offsets of group %s: %w", s.prefix, err)
	}
	o, ok := rs.Lookup(s.topic, 0)
	if !ok || o.Err != nil || o.At < 0 || o.Metadata == "" {
		return nil, 0, nil
	}
	var m finishMarker
	if err := json.Unmarshal([]byte(o.Metadata), &m); err != nil {
		return nil, 0, nil // not ours
	}
	return &m, o.At, nil
}

// finish, at the end of the input, commits everything written: the open
// transaction, with the finish marker, then those pre-committed at
// checkpoints that did not complete.
func (s *Sink) finish(ctx context.Context) error {
	if s.discard {
		return nil
	}
	if s.cl == nil {
		if err := s.begin(); err != nil {
			return err
		}
	}
	if err := s.flush(ctx); err != nil {
		return err
	}
	id, n := s.txnID(s.curN), s.curN
	pid, epoch, err := s.cl.ProducerID(ctx)
	if err != nil {
		return fmt.Errorf("%s: table %s: transaction %s: %w", s.connector, s.set.table, id, err)
	}
	s.txnMu.Lock()
	m := finishMarker{Lineage: s.lineage, Txns: slices.Clone(s.pending)}
	s.txnMu.Unlock()
	meta, _ := json.Marshal(m)
	fail := func(err error) error {
		return fmt.Errorf("%s: table %s: committing the last transaction %s: %w", s.connector, s.set.table, id, err)
	}
	add := kmsg.NewPtrAddOffsetsToTxnRequest()
	add.TransactionalID, add.ProducerID, add.ProducerEpoch, add.Group = id, pid, epoch, s.prefix
	if err := s.retry(ctx, func() error {
		resp, err := add.RequestWith(ctx, s.cl)
		if err != nil {
			return err
		}
		return kerr.ErrorForCode(resp.ErrorCode)
	}); err != nil {
		return fail(err)
	}
	// TxnOffsetCommit v6 names the topic by its ID, older versions by name.
	tds, err := kadm.NewClient(s.adm).ListTopics(ctx, s.topic)
	if err == nil {
		err = tds.Error()
	}
	if err != nil {
		return fail(err)
	}
	commit := kmsg.NewPtrTxnOffsetCommitRequest()
	commit.TransactionalID, commit.Group, commit.ProducerID, commit.ProducerEpoch = id, s.prefix, pid, epoch
	commit.Generation, commit.MemberID = -1, ""
	t := kmsg.NewTxnOffsetCommitRequestTopic()
	t.Topic, t.TopicID = s.topic, tds[s.topic].ID
	pt := kmsg.NewTxnOffsetCommitRequestTopicPartition()
	pt.Partition, pt.Offset, pt.LeaderEpoch, pt.Metadata = 0, n, -1, kmsg.StringPtr(string(meta))
	t.Partitions = append(t.Partitions, pt)
	commit.Topics = append(commit.Topics, t)
	if err := s.retry(ctx, func() error {
		resp, err := commit.RequestWith(ctx, s.cl)
		if err != nil {
			return err
		}
		for _, rt := range resp.Topics {
			for _, rp := range rt.Partitions {
				if err := kerr.ErrorForCode(rp.ErrorCode); err != nil {
					return err
				}
			}
		}
		return nil
	}); err != nil {
		return fail(err)
	}
	// The client does not know of the offsets added: EndTxn is sent as
	// the recovery sends it.
	if err := s.commitAgain(ctx, pendingTxn{N: n, ID: id, PID: pid, Epoch: epoch}); err != nil {
		return fail(err)
	}
	s.cl.Close()
	s.cl = nil
	return s.commitUpTo(ctx, math.MaxInt64)
}

// commitAgain commits pending transaction p of a checkpoint with its
// producer id and epoch. One committed already (the run that took the
// checkpoint committed it before it stopped) is a success; one the
// brokers aborted (it outlived 'properties.transaction.timeout.ms') is an
// error: its records are lost.
func (s *Sink) commitAgain(ctx context.Context, p pendingTxn) error {
	req := kmsg.NewPtrEndTxnRequest()
	req.TransactionalID, req.ProducerID, req.ProducerEpoch, req.Commit = p.ID, p.PID, p.Epoch, true
	err := s.retry(ctx, func() error {
		resp, err := req.RequestWith(ctx, s.adm)
		if err != nil {
			return err
		}
		return kerr.ErrorForCode(resp.ErrorCode)
	})
	switch {
	case err == nil:
		return nil
	case errors.Is(err, kerr.InvalidProducerIDMapping):
		// The id expired ('transactional.id.expiration.ms', 7 days by
		// default): it was not in a transaction since, so this one ended
		// long ago; Flink's committer takes it as committed too.
		return nil
	case errors.Is(err, kerr.InvalidTxnState), errors.Is(err, kerr.ProducerFenced), errors.Is(err, kerr.InvalidProducerEpoch):
		return fmt.Errorf("transaction %s of the checkpoint can no longer be committed (%v): the brokers aborted it, "+
			"most likely because it outlived 'properties.transaction.timeout.ms' (%s); its records are lost: "+
			"start over with another --state-dir and a timeout longer than the time between checkpoints and a restart",
			p.ID, err, s.txnTimeout)
	default:
		return fmt.Errorf("committing transaction %s of the checkpoint: %w", p.ID, err)
	}
}

// abortTxn fences transactional id and aborts its open transaction, if
// any, with an InitProducerID; fresh reports that the id was never used.
func (s *Sink) abortTxn(ctx context.Context, id string) (fresh bool, err error) {
	req := kmsg.NewPtrInitProducerIDRequest()
	req.TransactionalID = kmsg.StringPtr(id)
	req.TransactionTimeoutMillis = int32(s.txnTimeout / time.Millisecond)
	var epoch int16
	err = s.retry(ctx, func() error {
		resp, err := req.RequestWith(ctx, s.adm)
		if err != nil {
			return err
		}
		epoch = resp.ProducerEpoch
		return kerr.ErrorForCode(resp.ErrorCode)
	})
	if err != nil {
		return false, fmt.Errorf("aborting transaction %s: %w", id, err)
	}
	return epoch == 0, nil
}

// retry runs f until it succeeds, fails with an error retrying cannot
// mend, or OpenTimeout passes (a coordinator loading, another abort still
// running: CONCURRENT_TRANSACTIONS).
func (s *Sink) retry(ctx context.Context, f func() error) error {
	deadline := time.Now().Add(OpenTimeout)
	for {
		err := f()
		if err == nil || !kerr.IsRetriable(err) && !errors.Is(err, kerr.ConcurrentTransactions) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// abortOpen aborts the open transaction, if any (the job failed or
// stopped without a checkpoint after the records: a resumed run writes
// them again).
func (s *Sink) abortOpen() {
	if s.cl == nil || s.guarantee != "exactly-once" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), OpenTimeout)
	defer cancel()
	s.aborting.Store(true) // the records it fails are not the job's failure
	_ = s.cl.AbortBufferedRecords(ctx)
	_ = s.cl.EndTransaction(ctx, kgo.TryAbort)
}
