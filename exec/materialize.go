package exec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/streamsql/streamsql/changelogmode"
	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/state"
)

// materializeOp is the sink upsert materializer (Flink's
// SinkUpsertMaterializer), in front of a keyed sink whose primary key is not
// an upsert key of the query: changes of one sink key can then come from
// different rows of the query, in any order (an update of a join row that
// moves it between partitions retracts it in one and adds it in another).
// It runs partitioned by the sink key and keeps, per key, the list of the
// query's live rows with that key, in the order they came:
//
//	+I/+U row   append it (or, matched by upsert key, replace the row with
//	            the same upsert key in place); emit +I (the list was empty)
//	            or +U of it
//	-U/-D row   remove the first matching row; emit -D when the list is
//	            now empty, +U of the new last row when the last one went,
//	            nothing otherwise (nothing either when no row matches: it
//	            expired, or was never seen)
//
// A row is matched by its upsert key when the query has one (upsertKey),
// else by all its values. The sink thus always holds the last live row of
// each key, and a key is deleted only when no live row has it.
//
// State: a state.Map from the encoded sink key to the list (matList),
// with the TTL as its expiry when one is set.
type materializeOp struct {
	noLifecycle
	name      string
	key       keyer
	upsertKey []int // nil: match by the whole row
	ttl       int64
	clock     func() int64
	store     *state.Store
	lists     *state.Map[*matList]
	out       collector
	c         *Counters
	buf       row.Batch
	enc, menc []byte
}

// matList is one sink key's live rows, encoded, in the order they came;
// with an upsert key, also each row's encoded upsert key (match).
type matList struct {
	match [][]byte // nil when rows are matched by all their values
	rows  [][]byte
}

func (o *materializeOp) process(_ int, b row.Batch) error {
	o.c.In.Add(int64(len(b)))
	now := o.clock()
	expiry := int64(state.NoExpiry)
	if o.ttl > 0 {
		o.lists.Expire(now, nil)
		expiry = min(now+o.ttl, state.NoExpiry-1)
	}
	o.buf = o.buf[:0]
	for _, r := range b {
		kb, _, err := o.key.keyBytes(r.Vals)
		if err != nil {
			return err
		}
		l, held := o.lists.Get(kb)
		o.enc = state.AppendValues(o.enc[:0], r.Vals)
		if o.upsertKey != nil {
			o.menc = o.menc[:0]
			for _, c := range o.upsertKey {
				o.menc = state.AppendValue(o.menc, r.Vals[c])
			}
		}
		if isAccumulate(r.Kind) {
			if !held {
				l = &matList{}
			}
			kind := changelogmode.UpdateAfter
			if len(l.rows) == 0 {
				kind = changelogmode.Insert
			}
			i := -1
			if o.upsertKey != nil {
				i = l.find(o.menc, nil)
			}
			switch {
			case i >= 0:
				l.rows[i] = bytes.Clone(o.enc) // the same upsert key: replaced in place
			case o.upsertKey != nil:
				l.match = append(l.match, bytes.Clone(o.menc))
				l.rows = append(l.rows, bytes.Clone(o.enc))
			default:
				l.rows = append(l.rows, bytes.Clone(o.enc))
			}
			o.buf = append(o.buf, row.Row{Kind: kind, Vals: r.Vals})
			o.lists.Put(kb, l, expiry)
			continue
		}
		if !held {
			continue
		}
		var i int
		if o.upsertKey != nil {
			i = l.find(o.menc, nil)
		} else {
			i = l.find(nil, o.enc)
		}
		if i < 0 {
			continue // a row it does not hold: expired, or never seen
		}
		last := i == len(l.rows)-1
		if l.match != nil {
			l.match = append(l.match[:i], l.match[i+1:]...)
		}
		l.rows = append(l.rows[:i], l.rows[i+1:]...)
		switch {
		case len(l.rows) == 0:
			o.buf = append(o.buf, row.Row{Kind: changelogmode.Delete, Vals: r.Vals})
			o.lists.Delete(kb)
			continue
		case last:
			vals, _, err := state.DecodeValues(nil, l.rows[len(l.rows)-1])
			if err != nil {
				return fmt.Errorf("state: %w", err)
			}
			o.buf = append(o.buf, row.Row{Kind: changelogmode.UpdateAfter, Vals: vals})
		}
		o.lists.Put(kb, l, expiry)
	}
	if err := o.store.Err(); err != nil {
		return fmt.Errorf("state: %w", err)
	}
	o.c.setState(o.lists.Len())
	o.c.setStore(o.store)
	if len(o.buf) == 0 {
		return nil
	}
	o.c.Out.Add(int64(len(o.buf)))
	return o.out.push(o.buf)
}

// find returns the index of the first row whose upsert key is key (when
// key is set) or whose values are vals, or -1.
func (l *matList) find(key, vals []byte) int {
	in, want := l.rows, vals
	if key != nil {
		in, want = l.match, key
	}
	for i, x := range in {
		if bytes.Equal(x, want) {
			return i
		}
	}
	return -1
}

// advance has nothing to fire: watermarks pass through.
func (o *materializeOp) advance(int64) error { return nil }

func (o *materializeOp) counters() *Counters { return o.c }

// matCodec encodes a matList: the number of rows, then per row its match
// bytes and its values, each length-prefixed.
type matCodec struct{}

// Append appends the encoding of l to dst.
func (matCodec) Append(dst []byte, l *matList) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(l.rows)))
	if l.match != nil {
		dst = append(dst, 1)
	} else {
		dst = append(dst, 0)
	}
	for i := range l.rows {
		if l.match != nil {
			dst = binary.AppendUvarint(dst, uint64(len(l.match[i])))
			dst = append(dst, l.match[i]...)
		}
		dst = binary.AppendUvarint(dst, uint64(len(l.rows[i])))
		dst = append(dst, l.rows[i]...)
	}
	return dst
}

var errMatList = errors.New("materializer state: truncated list")

// Decode is the inverse of Append; a cut or garbled encoding is an error.
func (matCodec) Decode(b []byte) (*matList, error) {
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)) || len(b) < k+1 {
		return nil, errMatList
	}
	byKey := b[k] == 1
	b = b[k+1:]
	l := &matList{rows: make([][]byte, 0, n)}
	if byKey {
		l.match = make([][]byte, 0, n)
	}
	next := func() ([]byte, error) {
		m, k := binary.Uvarint(b)
		if k <= 0 || m > uint64(len(b)-k) {
			return nil, errMatList
		}
		out := bytes.Clone(b[k : k+int(m)])
		b = b[k+int(m):]
		return out, nil
	}
	for range n {
		if byKey {
			m, err := next()
			if err != nil {
				return nil, err
			}
			l.match = append(l.match, m)
		}
		r, err := next()
		if err != nil {
			return nil, err
		}
		l.rows = append(l.rows, r)
	}
	return l, nil
}

// Size estimates l's memory, for the state budget.
func (matCodec) Size(l *matList) int64 {
	n := int64(64 + 48*len(l.rows))
	for i := range l.rows {
		n += int64(cap(l.rows[i]))
		if l.match != nil {
			n += int64(cap(l.match[i]))
		}
	}
	return n
}
