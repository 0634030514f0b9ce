package state

// Codec turns a Map's values into bytes when they spill and back when they
// are read again. Size estimates a value's memory for the budget.
type Codec[V any] interface {
	Append(dst []byte, v V) []byte
	Decode(b []byte) (V, error)
	Size(v V) int64
}

type anyCodec struct {
	append func(dst []byte, v any) []byte
	decode func(b []byte) (any, error)
	size   func(v any) int64
}

// Map is the one-value-per-key flavour of a table, for operators whose
// state per key is an object (a group's accumulators): the hot tier keeps
// the value itself, so a hot key costs no encoding; the codec runs only
// when the key spills, is flushed or is read back. Each key has one expiry.
type Map[V any] struct {
	t *Table
	c Codec[V]
}

// NewMap returns the Map table called name (see Store.Table).
func NewMap[V any](s *Store, name string, c Codec[V], o TableOptions) *Map[V] {
	ac := &anyCodec{
		append: func(dst []byte, v any) []byte { return c.Append(dst, v.(V)) },
		decode: func(b []byte) (any, error) { return c.Decode(b) },
		size:   func(v any) int64 { return c.Size(v.(V)) },
	}
	return &Map[V]{t: s.table(name, o, ac), c: c}
}

// Get returns key's value. A cold key is read from Badger and becomes hot.
// The value stays the Map's: after changing a value in place (a pointer),
// Put it again, since a key that spilled in between would lose the change.
func (m *Map[V]) Get(key []byte) (V, bool) {
	t := m.t
	t.s.checkCallback()
	e := t.lookup(key, false)
	if e == nil {
		var zero V
		return zero, false
	}
	v := e.obj.(V)
	t.s.maybeSpill()
	return v, true
}

// Put sets key's value and expiry (NoExpiry: never).
func (m *Map[V]) Put(key []byte, v V, expiry int64) {
	t := m.t
	t.s.checkCallback()
	e := t.lookup(key, true)
	if len(e.recs) == 0 {
		t.appendRec(e, rec{seq: t.seq, expiry: NoExpiry})
		t.seq++
		t.rows++
	}
	r := &e.recs[0]
	if old := r.expiry; old != expiry {
		t.unindex(r)
		r.expiry = expiry
		t.reindex(e, r.seq, old, expiry)
	}
	size := m.c.Size(v)
	t.grow(e, size-e.objSize)
	e.obj, e.objSize = v, size
	t.changed(e)
	t.s.maybeSpill()
}

// AddTimer adds a timer at expiry to key, which must hold a value (it
// reports false, doing nothing, when key has none). When Expire passes the
// timer it calls fn for the key's value, as it does at the key's own
// expiry (Put's), but takes only the timer away: the key stays until its
// own expiry. Timers and the key's own expiry reach fn in (expiry, order
// of adding) like all records, so a timer earlier than the key's own
// expiry is always heard of first; one added for a time at or after it
// may outlive the key's own expiry, and the key stays until its last
// timer. A timer counts in Len until it expires.
func (m *Map[V]) AddTimer(key []byte, expiry int64) bool {
	t := m.t
	t.s.checkCallback()
	e := t.lookup(key, false)
	if e == nil || len(e.recs) == 0 {
		return false
	}
	r := rec{seq: t.seq, expiry: expiry}
	t.seq++
	t.appendRec(e, r)
	t.rows++
	if expiry != NoExpiry {
		t.bucketAdd(expiry, r.seq, e)
	}
	t.changed(e)
	t.s.maybeSpill()
	return true
}

// Delete removes key, with its timers, and reports whether it was there.
func (m *Map[V]) Delete(key []byte) bool {
	t := m.t
	t.s.checkCallback()
	e := t.lookup(key, false)
	if e == nil {
		return false
	}
	t.grow(e, -e.objSize)
	e.obj, e.objSize = nil, 0
	t.rows -= int64(len(e.recs))
	t.removeEntry(e, false)
	t.s.maybeSpill()
	return true
}

// Expire removes every key whose expiry <= upTo, calling fn for each just
// before, in order of expiry then first Put (see Table.Expire); a due timer
// (AddTimer) calls fn too, in its place in that order, and leaves the key.
// fn may change the value of a key that stays (one with a record still
// pending): the change is kept, whichever tier the key is in.
func (m *Map[V]) Expire(upTo int64, fn func(key []byte, v V)) int {
	var f func([]byte, any)
	if fn != nil {
		f = func(k []byte, v any) { fn(k, v.(V)) }
	}
	return m.t.expire(upTo, nil, f)
}

// Len is the number of keys, hot and cold, plus their pending timers.
func (m *Map[V]) Len() int64 { return m.t.rows }

// MemBytes is the estimated size of the Map's hot tier.
func (m *Map[V]) MemBytes() int64 { return m.t.MemBytes() }

// BytesCodec stores []byte values as they are.
type BytesCodec struct{}

// Append appends v to dst.
func (BytesCodec) Append(dst []byte, v []byte) []byte { return append(dst, v...) }

// Decode returns a copy of b.
func (BytesCodec) Decode(b []byte) ([]byte, error) { return append([]byte(nil), b...), nil }

// Size is v's memory: its capacity and the slice header.
func (BytesCodec) Size(v []byte) int64 { return int64(cap(v)) + 24 }
