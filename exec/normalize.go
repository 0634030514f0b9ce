package exec

import (
	"bytes"
	"fmt"

	"github.com/streamsql/streamsql/changelogmode"
	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/state"
)

// normalizeOp is a changelog normalize (Flink's ChangelogNormalize): it
// turns an upsert stream — an upsert-kafka source, whose updates come as +U
// alone and whose deletions (tombstones) carry only the key — into a full
// changelog. It runs keyed by the table's primary key, so one key's records
// stay in one partition in order, and keeps each key's last row in state:
//
//	+I/+U of a key it does not hold   +I(row)
//	+I/+U of a key it holds           -U(last), +U(row); nothing when row equals last
//	-D/-U of a key it holds           -D(last): the whole last row, not the tombstone
//	-D/-U of a key it does not hold   nothing
//
// -U is emitted only when the consumer needs it (before). With a state TTL
// a key's row is forgotten once the key had no record for the TTL
// (processing time); a row equal to the last is then emitted again as
// -U/+U, as Flink does, so that downstream state that expires with the same
// TTL is kept alive by it. A key that expired is new again: its next row is
// a +I, and its tombstone emits nothing.
//
// Rows keep their time and watermarks pass through unchanged: the
// operator holds nothing back.
//
// State: a state.Map from the encoded key to the encoded last row (the
// encoding is canonical for row.Value.Equal, so an unchanged row is found
// by comparing bytes).
type normalizeOp struct {
	noLifecycle
	name   string
	key    keyer
	before bool
	ttl    int64 // ms; 0: forever
	clock  func() int64
	store  *state.Store
	rows   *state.Map[[]byte]
	out    collector
	c      *Counters
	buf    row.Batch
	enc    []byte
}

func (o *normalizeOp) process(_ int, b row.Batch) error {
	o.c.In.Add(int64(len(b)))
	now := o.clock()
	expiry := int64(state.NoExpiry)
	if o.ttl > 0 {
		o.rows.Expire(now, nil)
		expiry = min(now+o.ttl, state.NoExpiry-1)
	}
	o.buf = o.buf[:0]
	for _, r := range b {
		kb, _, err := o.key.keyBytes(r.Vals)
		if err != nil {
			return err
		}
		last, held := o.rows.Get(kb)
		if !isAccumulate(r.Kind) {
			if held {
				prev, err := o.decode(last)
				if err != nil {
					return err
				}
				o.buf = append(o.buf, row.Row{Kind: changelogmode.Delete, Vals: prev})
				o.rows.Delete(kb)
			}
			continue
		}
		o.enc = state.AppendValues(o.enc[:0], r.Vals)
		switch {
		case !held:
			o.buf = append(o.buf, row.Row{Kind: changelogmode.Insert, Vals: r.Vals})
		case o.ttl == 0 && bytes.Equal(last, o.enc):
			continue // the same row again: nothing changes
		default:
			if o.before {
				prev, err := o.decode(last)
				if err != nil {
					return err
				}
				o.buf = append(o.buf, row.Row{Kind: changelogmode.UpdateBefore, Vals: prev})
			}
			o.buf = append(o.buf, row.Row{Kind: changelogmode.UpdateAfter, Vals: r.Vals})
		}
		o.rows.Put(kb, bytes.Clone(o.enc), expiry)
	}
	if err := o.store.Err(); err != nil {
		return fmt.Errorf("state: %w", err)
	}
	o.c.setState(o.rows.Len())
	o.c.setStore(o.store)
	if len(o.buf) == 0 {
		return nil
	}
	o.c.Out.Add(int64(len(o.buf)))
	return o.out.push(o.buf)
}

// decode returns a stored row's values in fresh memory.
func (o *normalizeOp) decode(enc []byte) ([]row.Value, error) {
	vals, _, err := state.DecodeValues(nil, enc)
	if err != nil {
		return nil, fmt.Errorf("state: %w", err)
	}
	return vals, nil
}

// advance has nothing to fire: watermarks pass through unchanged.
func (o *normalizeOp) advance(int64) error { return nil }

func (o *normalizeOp) counters() *Counters { return o.c }
