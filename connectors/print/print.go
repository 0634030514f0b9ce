package print

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/format"
	"github.com/streamsql/streamsql/row"
)

// Where print sinks made by the registered factory write. A sink reads
// them when it is created.
var (
	Stdout io.Writer = os.Stdout
	Stderr io.Writer = os.Stderr
)

// mu serialises writes of all print sinks.
var mu sync.Mutex

func init() {
	connector.RegisterSink("print", func(spec connector.Spec) (connector.Sink, error) { return NewSink(spec) })
}

// Sink prints rows. See the package comment.
type Sink struct {
	w      io.Writer
	prefix string
	schema []connector.Column
	buf    []byte
}

// NewSink returns a sink printing to Stdout, or Stderr when the table says
// 'standard-error' = 'true'.
func NewSink(spec connector.Spec) (*Sink, error) {
	w := Stdout
	if spec.Stdout != nil {
		w = spec.Stdout
	}
	if spec.Options != nil && strings.EqualFold(spec.Options.Get("standard-error"), "true") {
		w = Stderr
		if spec.Stderr != nil {
			w = spec.Stderr
		}
	}
	return NewSinkTo(spec, w), nil
}

// NewSinkTo returns a sink printing to w.
func NewSinkTo(spec connector.Spec, w io.Writer) *Sink {
	s := &Sink{w: w, schema: spec.Schema}
	if spec.Options != nil {
		if id := spec.Options.Get("print-identifier"); id != "" {
			s.prefix = id + "> "
		}
	}
	return s
}

// Open does nothing.
func (s *Sink) Open(context.Context) error { return nil }

// AppendRow appends the printed form of r, without a newline.
func (s *Sink) AppendRow(b []byte, r row.Row) []byte {
	b = append(b, s.prefix...)
	b = append(b, r.Kind.String()...)
	b = append(b, '[')
	for i, v := range r.Vals {
		if i > 0 {
			b = append(b, ", "...)
		}
		if v.IsNull() {
			b = append(b, "null"...)
			continue
		}
		if i < len(s.schema) {
			b = format.AppendText(b, s.schema[i].Type, v)
		} else {
			b = append(b, v.String()...)
		}
	}
	return append(b, ']')
}

// Write prints the rows.
func (s *Sink) Write(_ context.Context, rows row.Batch) error {
	s.buf = s.buf[:0]
	for _, r := range rows {
		s.buf = s.AppendRow(s.buf, r)
		s.buf = append(s.buf, '\n')
	}
	mu.Lock()
	defer mu.Unlock()
	if _, err := s.w.Write(s.buf); err != nil {
		return fmt.Errorf("print: %w", err)
	}
	return nil
}

// Flush does nothing: every Write is already out.
func (s *Sink) Flush(context.Context) error { return nil }

// Close does nothing.
func (s *Sink) Close() error { return nil }
