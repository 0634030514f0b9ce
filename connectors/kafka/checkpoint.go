package kafka

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/connector"
)

// The source's side of checkpoints (connector.Positioner,
// connector.CheckpointNotifier): its position is, per partition, the
// offset after the last record Read returned, and the partition's end
// offset for a bounded read (resolved at the first Open: a resumed run
// must end where the first one would have).

var (
	_ connector.Positioner         = (*Source)(nil)
	_ connector.CheckpointNotifier = (*Source)(nil)
)

// positionVersion is the version of the source's position encoding.
const positionVersion = 1

// position is a Source's position in a checkpoint.
type position struct {
	V     int           `json:"v"`
	Parts []partitionAt `json:"parts"`
}

type partitionAt struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Next      int64  `json:"next"`
	End       int64  `json:"end"` // -1: unbounded
}

// Position returns the offset after the last record returned, for every
// partition (connector.Positioner).
func (s *Source) Position() ([]byte, error) {
	pos := position{V: positionVersion, Parts: make([]partitionAt, 0, len(s.parts))}
	for _, p := range s.parts {
		pos.Parts = append(pos.Parts, partitionAt{Topic: p.topic, Partition: p.partition, Next: p.next, End: p.end})
	}
	return json.Marshal(pos)
}

// Seek makes the source continue after pos (connector.Positioner): every
// partition in pos is read from its offset (to its end offset in pos, for
// a bounded read); a partition pos does not have starts as
// 'scan.startup.mode' says. A partition of pos that no longer exists, or
// whose offset is no longer in the topic (deleted by retention: rows would
// be lost) or beyond its end (the topic was recreated), is an error.
func (s *Source) Seek(data []byte) error {
	var pos position
	if err := json.Unmarshal(data, &pos); err != nil {
		return s.errorf("the checkpoint's position is not readable: %v", err)
	}
	if pos.V != positionVersion {
		return s.errorf("the checkpoint's position has version %d; this streamsql reads version %d", pos.V, positionVersion)
	}
	ctx, cancel := context.WithTimeout(context.Background(), OpenTimeout)
	defer cancel()
	admCl, err := kgo.NewClient(s.base...)
	if err != nil {
		return s.errorf("%v", err)
	}
	defer admCl.Close()
	adm := kadm.NewClient(admCl)
	topics := s.topicNames()
	starts, err := adm.ListStartOffsets(ctx, topics...)
	if err == nil {
		err = starts.Error()
	}
	if err != nil {
		return s.errorf("listing start offsets: %v", err)
	}
	ends, err := adm.ListEndOffsets(ctx, topics...)
	if err == nil {
		err = ends.Error()
	}
	if err != nil {
		return s.errorf("listing end offsets: %v", err)
	}
	for _, at := range pos.Parts {
		i, ok := s.index[at.Topic][at.Partition]
		if !ok {
			return s.errorf("the checkpoint reads %s/%d, which this run does not find: "+
				"a topic or partition was deleted, or 'topic' changed; start over with another --state-dir", at.Topic, at.Partition)
		}
		first, _ := starts.Lookup(at.Topic, at.Partition)
		last, _ := ends.Lookup(at.Topic, at.Partition)
		switch {
		case at.Next < first.Offset:
			return s.errorf("%s/%d: the checkpoint continues at offset %d, but the partition now starts at %d "+
				"(records were deleted, by retention or by hand): the rows in between would be lost; "+
				"start over with another --state-dir", at.Topic, at.Partition, at.Next, first.Offset)
		case at.Next > last.Offset:
			return s.errorf("%s/%d: the checkpoint continues at offset %d, but the partition ends at %d "+
				"(was the topic recreated?); start over with another --state-dir", at.Topic, at.Partition, at.Next, last.Offset)
		}
		p := &s.parts[i]
		p.start = at.Next
		if s.bounded() {
			p.end = at.End
		}
	}
	s.doneQ = nil
	for i := range s.parts {
		s.parts[i].done = false
	}
	return s.fetch()
}

// CheckpointComplete commits the offsets of pos to 'properties.group.id',
// when it is set, so that lag tools see the job's progress
// (connector.CheckpointNotifier). The group's offsets are never read back
// by a resumed run (the checkpoint is), unless 'scan.startup.mode' =
// 'group-offsets' starts a new one.
func (s *Source) CheckpointComplete(ctx context.Context, data []byte) error {
	if s.set.group == "" {
		return nil
	}
	var pos position
	if err := json.Unmarshal(data, &pos); err != nil {
		return err
	}
	offs := kadm.Offsets{}
	for _, at := range pos.Parts {
		offs.Add(kadm.Offset{Topic: at.Topic, Partition: at.Partition, At: at.Next, LeaderEpoch: -1})
	}
	// Commits run on the checkpoint coordinator's goroutine, while Read
	// uses the consuming client; the last may come after Close (Ctrl-C's
	// checkpoint completes once the sources stopped).
	s.groupMu.Lock()
	defer s.groupMu.Unlock()
	cl := s.groupCl
	if cl == nil {
		var err error
		if cl, err = kgo.NewClient(s.base...); err != nil {
			return err
		}
		if s.closed {
			defer cl.Close()
		} else {
			s.groupCl = cl
		}
	}
	rs, err := kadm.NewClient(cl).CommitOffsets(ctx, s.set.group, offs)
	if err == nil {
		err = rs.Error()
	}
	if err != nil {
		return fmt.Errorf("committing offsets to group %s: %w", s.set.group,
			s.set.sec.aclAdvice(err, "read", s.topicNames(), s.set.group))
	}
	return nil
}
