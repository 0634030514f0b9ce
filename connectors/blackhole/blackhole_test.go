package blackhole

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/row"
)

func TestBlackhole(t *testing.T) {
	f, ok := connector.LookupSink("blackhole")
	if !ok {
		t.Fatal("blackhole not registered")
	}
	s, err := f(connector.Spec{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := s.Open(ctx); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if err := s.Write(ctx, row.Batch{row.Insert(row.IntValue(1)), row.Insert()}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if n := s.(*Sink).Rows(); n != 6 {
		t.Errorf("Rows() = %d, want 6", n)
	}
}

// A blackhole takes part in checkpoints: its state is JSON (a checkpoint's
// meta part embeds it) and a resumed one takes rows again.
func TestBlackholeCheckpoints(t *testing.T) {
	f, _ := connector.LookupSink("blackhole")
	s, err := f(connector.Spec{})
	if err != nil {
		t.Fatal(err)
	}
	cp, ok := s.(connector.SinkCheckpointer)
	if !ok {
		t.Fatal("the blackhole sink does not take part in checkpoints")
	}
	ctx := context.Background()
	if err := s.Open(ctx); err != nil {
		t.Fatal(err)
	}
	st, err := cp.Checkpoint(ctx)
	if err != nil || !json.Valid(st) {
		t.Fatalf("Checkpoint = %q, %v: want JSON", st, err)
	}
	r, _ := f(connector.Spec{})
	if err := r.(connector.SinkCheckpointer).Resume(ctx, st); err != nil {
		t.Fatal(err)
	}
	if err := r.Write(ctx, row.Batch{row.Insert(row.IntValue(1))}); err != nil {
		t.Fatal(err)
	}
	if n := r.(*Sink).Rows(); n != 1 {
		t.Errorf("Rows() = %d after a resume and one row, want 1", n)
	}
}
