package exec

import (
	"container/list"
	"context"
	"fmt"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/physical"
	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/state"
)

// lookupOp is a lookup join (physical.LookupJoin), as Flink's
// LookupJoinRunner with a CachingLookupFunction: for each batch of probe
// rows it collects the distinct keys the cache does not hold, asks the
// table for all of them in one Lookup, matches the rows returned to their
// keys with streamsql's = (row.AppendKey: the database may compare more
// loosely), caches them, and then joins the probe rows in order. A probe
// row with a NULL key matches nothing (nothing is asked). It keeps no
// state a checkpoint needs: the cache is a cache, and a resumed job asks
// the table again.
type lookupOp struct {
	noLifecycle
	table    connector.LookupTable
	name     string
	keys     keyer
	dimKeys  []int // positions of the key columns in a dim row
	place    []int // where the connector's columns go in a dim row
	width    int   // the dim table's columns
	nl       int   // the probe side's columns
	residual predFunc
	// computed fills the dim table's computed columns of each row joined,
	// after the cache, as Flink's Calc over a lookup: a PROCTIME() column
	// is the time of the join.
	computed *computed
	outer    bool
	cache    *lookupCache // nil: no cache
	now      func() int64 // ms, for the cache's expiry
	out      collector
	c        *Counters
	ctx      context.Context

	// per batch
	found   map[string][]row.Row // key -> dim rows
	ask     [][]row.Value        // keys to look up, distinct
	askKeys []string
	rowKeys []string // each probe row's key; "" when it has a NULL
	buf     row.Batch
	kbuf    []byte
}

func (b *builder) lookupJoin(x *physical.LookupJoin, out collector) error {
	f, ok := connector.FindLookup(x.Dim.Spec.Connector)
	if !ok {
		return fmt.Errorf("table %s: connector '%s' cannot be looked up by this build of streamsql", x.Dim.TableName, x.Dim.Spec.Connector)
	}
	t, err := f(b.spec(x.Dim.Spec), x.DimKeys)
	if err != nil {
		return fmt.Errorf("lookup table %s: %w", x.Dim.TableName, err)
	}
	nl := len(x.Input.Base().Cols)
	op := &lookupOp{table: t, name: x.Name, place: x.Dim.Place, width: len(x.Cols) - nl, nl: nl,
		outer: x.Outer, now: b.opts.Clock, out: out, found: map[string][]row.Row{}}
	op.c = b.counters(x.Name, &b.job.Operators)
	b.job.closers = append(b.job.closers, t.Close)
	if op.keys, err = b.keyer(x.Keys); err != nil {
		return err
	}
	for _, k := range x.DimKeys {
		op.dimKeys = append(op.dimKeys, x.Dim.Place[k])
	}
	if op.residual, err = b.predicate(x.Residual); err != nil {
		return err
	}
	if len(x.Dim.Computed) > 0 {
		if op.computed, err = b.computed(x.Dim); err != nil {
			return err
		}
	}
	if x.Cache.Enabled() {
		op.cache = newLookupCache(x.Cache)
	}
	return b.node(x.Input, b.drive(op, 1, out).port(0))
}

func (o *lookupOp) open(ctx context.Context, _ inputs) error {
	o.ctx = ctx
	return o.table.Open(ctx)
}

func (o *lookupOp) process(_ int, b row.Batch) error {
	o.c.In.Add(int64(len(b)))
	clear(o.found)
	o.ask, o.askKeys, o.rowKeys = o.ask[:0], o.askKeys[:0], o.rowKeys[:0]
	now := int64(0)
	if o.cache != nil {
		now = o.now()
	}
	for _, r := range b {
		kb, null, err := o.keys.keyBytes(r.Vals)
		if err != nil {
			return err
		}
		if null {
			o.rowKeys = append(o.rowKeys, "")
			continue
		}
		k := string(kb)
		o.rowKeys = append(o.rowKeys, k)
		if _, seen := o.found[k]; seen {
			continue
		}
		if o.cache != nil {
			if rows, hit := o.cache.get(k, now); hit {
				o.found[k] = rows
				o.c.CacheHits.Add(1)
				continue
			}
		}
		vals, err := o.keys.values(r.Vals)
		if err != nil {
			return err
		}
		o.found[k] = nil
		o.ask = append(o.ask, vals)
		o.askKeys = append(o.askKeys, k)
	}
	if len(o.ask) > 0 {
		if err := o.lookup(now); err != nil {
			return err
		}
	}
	out := o.buf[:0]
	for i, r := range b {
		matched := false
		if k := o.rowKeys[i]; k != "" {
			for _, d := range o.found[k] {
				vals := concat(r.Vals, o.nl, d.Vals, o.width)
				if o.computed != nil {
					if err := o.computed.fill(vals[o.nl:]); err != nil {
						return err
					}
				}
				if o.residual != nil {
					ok, err := o.residual(vals)
					if err != nil {
						return err
					}
					if !ok {
						continue
					}
				}
				matched = true
				out = append(out, row.Row{Kind: r.Kind, Vals: vals})
			}
		}
		if !matched && o.outer {
			out = append(out, row.Row{Kind: r.Kind, Vals: concat(r.Vals, o.nl, nil, o.width)})
		}
	}
	o.buf = out[:0]
	if len(out) == 0 {
		return nil
	}
	o.c.Out.Add(int64(len(out)))
	return o.out.push(out)
}

// lookup asks the table for o.ask and files the rows under their keys.
func (o *lookupOp) lookup(now int64) error {
	o.c.Lookups.Add(int64(len(o.ask)))
	got, err := o.table.Lookup(o.ctx, o.ask)
	if err != nil {
		return err
	}
	for _, r := range got {
		vals := make([]row.Value, o.width)
		for i, p := range o.place {
			if i < len(r.Vals) {
				vals[p] = r.Vals[i]
			}
		}
		o.kbuf = o.kbuf[:0]
		for _, p := range o.dimKeys {
			o.kbuf = row.AppendKey(o.kbuf, vals[p])
		}
		rows, asked := o.found[string(o.kbuf)]
		if !asked {
			continue // equal only as the database compares
		}
		o.found[string(o.kbuf)] = append(rows, row.Row{Kind: r.Kind, Vals: vals})
	}
	if o.cache != nil {
		for _, k := range o.askKeys {
			if rows := o.found[k]; len(rows) > 0 || o.cache.cfg.Missing {
				o.cache.put(k, rows, now)
			}
		}
		o.c.StateRows.Store(int64(o.cache.len()))
	}
	return nil
}

// stateStore makes the operator checkpointable: it keeps no state (its
// cache is a cache, and a resumed job asks the table again).
func (o *lookupOp) stateStore() *state.Store { return nil }

func (o *lookupOp) advance(int64) error { return nil }
func (o *lookupOp) counters() *Counters { return o.c }

// lookupCache keeps the rows of the keys a lookup join asked for, least
// recently used first out, each until it expires (Flink's
// DefaultLookupCache: maximum size, expire after write, expire after
// access). It is written for one goroutine and a clock given by the caller
// (the job's, which tests control). The standard library's container/list
// is enough: golang-lru's expirable cache runs a goroutine per cache that
// nothing stops and reads the wall clock itself.
type lookupCache struct {
	cfg   physical.LookupCache
	byKey map[string]*list.Element
	order *list.List // front: most recently used
}

type cacheEntry struct {
	key              string
	rows             []row.Row
	written, touched int64 // ms
}

func newLookupCache(cfg physical.LookupCache) *lookupCache {
	return &lookupCache{cfg: cfg, byKey: map[string]*list.Element{}, order: list.New()}
}

func (c *lookupCache) expired(e *cacheEntry, now int64) bool {
	return c.cfg.AfterWrite > 0 && now-e.written >= c.cfg.AfterWrite.Milliseconds() ||
		c.cfg.AfterAccess > 0 && now-e.touched >= c.cfg.AfterAccess.Milliseconds()
}

// get returns the rows of key when it is cached and not expired.
func (c *lookupCache) get(key string, now int64) ([]row.Row, bool) {
	el, ok := c.byKey[key]
	if !ok {
		return nil, false
	}
	e := el.Value.(*cacheEntry)
	if c.expired(e, now) {
		c.order.Remove(el)
		delete(c.byKey, key)
		return nil, false
	}
	e.touched = now
	c.order.MoveToFront(el)
	return e.rows, true
}

// put caches rows under key, then drops the least recently used keys
// beyond MaxRows and the expired ones at the back: whatever stays was used
// within the expiry.
func (c *lookupCache) put(key string, rows []row.Row, now int64) {
	if el, ok := c.byKey[key]; ok {
		e := el.Value.(*cacheEntry)
		e.rows, e.written, e.touched = rows, now, now
		c.order.MoveToFront(el)
	} else {
		c.byKey[key] = c.order.PushFront(&cacheEntry{key: key, rows: rows, written: now, touched: now})
	}
	for c.order.Len() > 0 {
		back := c.order.Back()
		e := back.Value.(*cacheEntry)
		over := c.cfg.MaxRows > 0 && int64(c.order.Len()) > c.cfg.MaxRows
		if !over && !c.expired(e, now) {
			break
		}
		c.order.Remove(back)
		delete(c.byKey, e.key)
	}
}

func (c *lookupCache) len() int { return c.order.Len() }
