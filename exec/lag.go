package exec

import (
	"errors"
	"fmt"

	"github.com/streamsql/streamsql/expr"
	"github.com/streamsql/streamsql/physical"
	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/state"
)

// lagAcc is LAG(x, offset, default) OVER a window (Flink's
// LagAggFunction): it keeps the last offset+1 values folded, and its
// result is the oldest of them, the value offset rows before the last one
// folded; def while fewer were folded. An OVER aggregate folds every row
// of a partition in order, so the last one folded is the current row (or,
// over RANGE, the last of its peers, which then share the result, as in
// Flink).
type lagAcc struct {
	offset int
	def    row.Value
	buf    []row.Value
}

func (a *lagAcc) add(v row.Value, retract bool) error {
	if retract {
		return errors.New("LAG cannot take a row back: its input must be insert-only")
	}
	if len(a.buf) == a.offset+1 {
		copy(a.buf, a.buf[1:])
		a.buf = a.buf[:a.offset]
	}
	a.buf = append(a.buf, v)
	return nil
}

func (a *lagAcc) result() row.Value {
	if len(a.buf) < a.offset+1 {
		return a.def
	}
	return a.buf[0]
}

func (a *lagAcc) appendState(dst []byte) []byte { return state.AppendValues(dst, a.buf) }

func (a *lagAcc) decodeState(b []byte) ([]byte, error) {
	vals, rest, err := getValues(b)
	if err != nil {
		return nil, err
	}
	if len(vals) > a.offset+1 {
		return nil, fmt.Errorf("LAG state holds %d values, more than offset %d + 1", len(vals), a.offset)
	}
	a.buf = vals
	return rest, nil
}

// lagSpec builds LAG's accumulators: the planner passes the value, the
// offset as a constant and the default as a constant expression (both
// already of the result type).
func (b *builder) lagSpec(c *physical.AggCall, arg scalarFunc, retract bool) (*aggSpec, error) {
	if retract {
		return nil, errors.New("internal: LAG over an input that retracts rows")
	}
	if len(c.Args) != 3 {
		return nil, fmt.Errorf("internal: LAG with %d arguments, not 3", len(c.Args))
	}
	k, ok := c.Args[1].(*expr.Const)
	off, isInt := int64(0), false
	if ok {
		off, isInt = k.V.(int64)
	}
	if !isInt || off < 0 {
		return nil, fmt.Errorf("internal: LAG's offset %s is not a non-negative integer constant", c.Args[1])
	}
	f, err := b.compile(c.Args[2])
	if err != nil {
		return nil, err
	}
	def, err := f(nil)
	if err != nil {
		return nil, fmt.Errorf("LAG's default: %w", err)
	}
	s := &aggSpec{call: c, arg: arg, argT: c.Args[0].Type()}
	offset := int(off)
	s.new = func() accumulator { return &lagAcc{offset: offset, def: def} }
	return s, nil
}
