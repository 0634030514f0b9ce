package conntest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/connector"
)

// PositionedSource is a source that can say where it is.
type PositionedSource interface {
	connector.Source
	connector.Positioner
}

// ReadPositions reads src to io.EOF, recording after every Read its rows
// as text (one line of values a row) and the source's Position:
// batches[i] and pos[i] are those of Read i. It fails the test on an error
// or when no io.EOF comes within 1<<16 Reads.
func ReadPositions(t testing.TB, src PositionedSource) (batches []string, pos [][]byte) {
	t.Helper()
	for range 1 << 16 {
		_, b, err := src.Read(context.Background())
		if errors.Is(err, io.EOF) {
			return batches, pos
		}
		if err != nil {
			t.Fatal(err)
		}
		p, err := src.Position()
		if err != nil {
			t.Fatal(err)
		}
		var sb strings.Builder
		for _, r := range b {
			fmt.Fprintln(&sb, r.Vals)
		}
		batches, pos = append(batches, sb.String()), append(pos, p)
	}
	t.Fatal("no io.EOF")
	return nil, nil
}
