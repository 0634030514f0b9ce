package blackhole

import (
	"context"
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
