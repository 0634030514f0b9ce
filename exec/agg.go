package exec

import (
	"context"
	"encoding/binary"
	"fmt"
	"github.com/streamsql/streamsql/connector"
	"math"
	"math/big"
	"slices"
	"strings"

	"github.com/streamsql/streamsql/changelogmode"
	"github.com/streamsql/streamsql/expr"
	"github.com/streamsql/streamsql/physical"
	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/state"
	"github.com/streamsql/streamsql/types"
)

// accumulator folds values of one aggregate call for one group. add with
// retract=true takes a value back out (for changelog inputs).
type accumulator interface {
	add(v row.Value, retract bool) error
	result() row.Value
	// appendState and decodeState move the accumulator to and from bytes,
	// when its group spills to disk.
	appendState(dst []byte) []byte
	decodeState(b []byte) ([]byte, error)
}

// aggSpec builds accumulators for one AggCall.
type aggSpec struct {
	call *physical.AggCall
	arg  scalarFunc // nil for COUNT(*)
	argT types.T
	new  func() accumulator
}

// newAggSpec picks the accumulator of an aggregate call. retract says that
// the input may retract rows (-U, -D): FIRST_VALUE and LAST_VALUE then keep
// every value, as Flink's *WithRetractAggFunction do; over an insert-only
// input they keep one. DISTINCT (but COUNT's, which has its own) wraps the
// accumulator in a count per distinct value.
func newAggSpec(call *physical.AggCall, arg scalarFunc, retract bool) (*aggSpec, error) {
	s := &aggSpec{call: call, arg: arg}
	if len(call.Args) > 0 {
		s.argT = call.Args[0].Type()
	}
	k := s.argT.Kind
	isFloat := k == types.Float || k == types.Double
	switch call.Fn {
	case "COUNT":
		if call.Distinct {
			s.new = func() accumulator { return &distinctCount{seen: map[string]int64{}} }
		} else {
			star := call.Star
			s.new = func() accumulator { return &countAcc{star: star} }
		}
	case "SUM":
		if isFloat {
			single := k == types.Float
			s.new = func() accumulator { return &sumFloat{single: single} }
		} else {
			s.new = func() accumulator { return &sumInt{} }
		}
	case "AVG":
		switch {
		case isFloat:
			single := k == types.Float
			s.new = func() accumulator { return &avgFloat{sumFloat{single: single}} }
		case k == types.Decimal:
			// The result has more scale than the argument (Flink's
			// DECIMAL(38, max(6, s))): up digits more.
			up := call.T.Scale - s.argT.Scale
			if up < 0 || up > 18 {
				return nil, fmt.Errorf("AVG of %s as %s is not supported", s.argT, call.T)
			}
			s.new = func() accumulator { return &avgInt{round: true, up: up} }
		default:
			s.new = func() accumulator { return &avgInt{} }
		}
	case "STDDEV_POP", "STDDEV_SAMP", "VAR_POP", "VAR_SAMP":
		acc, err := newStatAcc(call.Fn, s.argT, call.T)
		if err != nil {
			return nil, err
		}
		s.new = func() accumulator { c := *acc; return &c }
	case "MIN", "MAX":
		isMax := call.Fn == "MAX"
		s.new = func() accumulator { return &minMax{max: isMax, vals: map[string]*mmEntry{}} }
	case "FIRST_VALUE", "LAST_VALUE":
		last := call.Fn == "LAST_VALUE"
		if retract {
			s.new = func() accumulator { return &firstLastRetract{last: last} }
		} else {
			s.new = func() accumulator { return &firstLast{last: last} }
		}
	case "WINDOW_FINALITY", "WINDOW_VERSION":
		// Filled in by the window aggregate as it emits (windowAggOp.result).
		s.new = func() accumulator { return metaAcc{} }
	case "ARRAY_AGG":
		s.new = func() accumulator { return &arrayAgg{} }
	case expr.ArrayAggFiltered:
		s.new = func() accumulator { return &arrayAgg{unwrap: true} }
	case "LISTAGG":
		sep := ","
		if len(call.Args) > 1 {
			c, ok := call.Args[1].(*expr.Const)
			str, isStr := c.V.(string)
			if !ok || !isStr {
				// The binder lets only a string literal through.
				return nil, fmt.Errorf("internal: LISTAGG's separator is not a string literal")
			}
			sep = str
		}
		s.new = func() accumulator { return &listAgg{sep: sep} }
	case "JSON_OBJECTAGG", "JSON_ARRAYAGG":
		c, ok := call.Args[len(call.Args)-1].(*expr.Const)
		mode, isStr := c.V.(string)
		if !ok || !isStr {
			return nil, fmt.Errorf("internal: %s's ON NULL behaviour is not a constant", call.Fn)
		}
		absent := mode == "ABSENT"
		if call.Fn == "JSON_OBJECTAGG" {
			s.new = func() accumulator { return &jsonObjectAgg{absent: absent, m: map[string]string{}} }
		} else {
			s.new = func() accumulator { return &jsonArrayAgg{absent: absent} }
		}
	default:
		return nil, fmt.Errorf("aggregate %s is not supported at runtime yet", call.Fn)
	}
	if call.Distinct && call.Fn != "COUNT" {
		inner := s.new
		keepNull := call.Fn == "ARRAY_AGG"
		s.new = func() accumulator { return &distinctAcc{inner: inner(), seen: map[string]int64{}, keepNull: keepNull} }
	}
	return s, nil
}

// metaAcc stands for WINDOW_FINALITY() and WINDOW_VERSION(): it folds
// nothing and keeps nothing; the window aggregate sets the value.
type metaAcc struct{}

func (metaAcc) add(row.Value, bool) error            { return nil }
func (metaAcc) result() row.Value                    { return row.NullValue }
func (metaAcc) appendState(dst []byte) []byte        { return dst }
func (metaAcc) decodeState(b []byte) ([]byte, error) { return b, nil }

type countAcc struct {
	star bool
	n    int64
}

func (a *countAcc) add(v row.Value, retract bool) error {
	if !a.star && v.IsNull() {
		return nil
	}
	if retract {
		a.n--
	} else {
		a.n++
	}
	return nil
}
func (a *countAcc) result() row.Value { return row.IntValue(a.n) }

type distinctCount struct {
	seen map[string]int64
	buf  []byte
}

func (a *distinctCount) add(v row.Value, retract bool) error {
	if v.IsNull() {
		return nil
	}
	a.buf = row.AppendKey(a.buf[:0], v)
	k := string(a.buf)
	if retract {
		if a.seen[k]--; a.seen[k] <= 0 {
			delete(a.seen, k)
		}
	} else {
		a.seen[k]++
	}
	return nil
}
func (a *distinctCount) result() row.Value { return row.IntValue(int64(len(a.seen))) }

// sumInt sums integers and scaled decimals (same scale in and out) in 64
// bits: SUM of an integer type is a BIGINT. A sum that leaves the range is
// an error, never a wrap (Flink's SUM(INT) is an INT and wraps; see
// docs/runtime.md).
type sumInt struct {
	sum int64
	n   int64
}

// errSumRange is the error of a sum that leaves 64 bits.
var errSumRange = fmt.Errorf("the sum leaves BIGINT's range (%d to %d)", int64(math.MinInt64), int64(math.MaxInt64))

func (a *sumInt) add(v row.Value, retract bool) error {
	if v.IsNull() {
		return nil
	}
	x := v.Int()
	var s int64
	var over bool
	if retract {
		// Subtract, rather than add -x: -MinInt64 does not exist.
		s = a.sum - x
		over = (x < 0 && s < a.sum) || (x > 0 && s > a.sum)
	} else {
		s = a.sum + x
		over = (x > 0 && s < a.sum) || (x < 0 && s > a.sum)
	}
	if over {
		return errSumRange
	}
	if retract {
		a.n--
	} else {
		a.n++
	}
	a.sum = s
	return nil
}

func (a *sumInt) result() row.Value {
	if a.n == 0 {
		return row.NullValue
	}
	return row.IntValue(a.sum)
}

// sumFloat sums FLOAT and DOUBLE values in double precision; a FLOAT's
// result is a FLOAT (rounded to single precision: a sum beyond its range is
// Infinity, as FLOAT arithmetic gives).
type sumFloat struct {
	sum    float64
	n      int64
	single bool // FLOAT
}

// value is x as a value of the sum's type.
func (a *sumFloat) value(x float64) row.Value {
	if a.single {
		x = float64(float32(x))
	}
	return row.FloatValue(x)
}

func (a *sumFloat) add(v row.Value, retract bool) error {
	if v.IsNull() {
		return nil
	}
	if retract {
		a.sum -= v.Float()
		a.n--
	} else {
		a.sum += v.Float()
		a.n++
	}
	return nil
}

func (a *sumFloat) result() row.Value {
	if a.n == 0 {
		return row.NullValue
	}
	return a.value(a.sum)
}

// avgInt averages integers (truncating toward zero, as Flink does for INT)
// and scaled decimals (rounding half away from zero, at the result's scale,
// which is up digits more than the argument's).
type avgInt struct {
	sumInt
	round bool // DECIMAL
	up    int
}

// maxAvgUnscaled is the largest unscaled DECIMAL an average may have: 18
// digits, what a DECIMAL holds at run time.
const maxAvgUnscaled = 999_999_999_999_999_999

func (a *avgInt) add(v row.Value, retract bool) error {
	if a.up > 0 && !v.IsNull() {
		// An average is never larger than the largest value averaged: when
		// every value fits at the result's scale, so does the result.
		if x := v.Int(); x > maxAvgUnscaled/pow10i(a.up) || x < -maxAvgUnscaled/pow10i(a.up) {
			return fmt.Errorf("a value has more than the 18 digits streamsql keeps at the result's scale (%d more than its own)", a.up)
		}
	}
	return a.sumInt.add(v, retract)
}

func (a *avgInt) result() row.Value {
	if a.n == 0 {
		return row.NullValue
	}
	if a.up > 0 {
		// sum * 10^up / n, which may pass 64 bits before the division.
		num := new(big.Int).Mul(big.NewInt(a.sum), new(big.Int).SetInt64(pow10i(a.up)))
		q, r := num.QuoRem(num, big.NewInt(a.n), new(big.Int))
		if r.Abs(r).Lsh(r, 1).Cmp(big.NewInt(a.n)) >= 0 {
			if a.sum < 0 {
				q.Sub(q, big.NewInt(1))
			} else {
				q.Add(q, big.NewInt(1))
			}
		}
		return row.IntValue(q.Int64()) // fits: add checked every value
	}
	q, r := a.sum/a.n, a.sum%a.n
	if a.round && 2*abs64(r) >= a.n {
		if a.sum < 0 {
			q--
		} else {
			q++
		}
	}
	return row.IntValue(q)
}

// pow10i is 10^n for 0 <= n <= 18.
func pow10i(n int) int64 {
	p := int64(1)
	for ; n > 0; n-- {
		p *= 10
	}
	return p
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

type avgFloat struct{ sumFloat }

func (a *avgFloat) result() row.Value {
	if a.n == 0 {
		return row.NullValue
	}
	return a.value(a.sum / float64(a.n))
}

// minMax keeps every distinct value with its count, so a retraction of the
// current minimum finds the next one.
type minMax struct {
	max  bool
	vals map[string]*mmEntry
	buf  []byte
	cur  *row.Value
}

type mmEntry struct {
	v row.Value
	n int64
}

func (a *minMax) add(v row.Value, retract bool) error {
	if v.IsNull() {
		return nil
	}
	a.buf = appendExact(a.buf[:0], v)
	k := string(a.buf)
	e := a.vals[k]
	if retract {
		if e == nil {
			return nil
		}
		if e.n--; e.n <= 0 {
			delete(a.vals, k)
			a.cur = nil
		}
		return nil
	}
	if e == nil {
		e = &mmEntry{v: v}
		a.vals[k] = e
	}
	e.n++
	if a.cur != nil {
		c := v.Compare(*a.cur)
		if a.max && c > 0 || !a.max && c < 0 {
			a.cur = &e.v
		}
	} else if len(a.vals) == 1 {
		a.cur = &e.v
	}
	return nil
}

func (a *minMax) result() row.Value {
	if len(a.vals) == 0 {
		return row.NullValue
	}
	if a.cur == nil {
		for _, e := range a.vals {
			if a.cur == nil {
				a.cur = &e.v
				continue
			}
			c := e.v.Compare(*a.cur)
			if a.max && c > 0 || !a.max && c < 0 {
				a.cur = &e.v
			}
		}
	}
	return *a.cur
}

// firstLast is FIRST_VALUE or LAST_VALUE over an insert-only input: the
// first or the latest non-NULL value.
type firstLast struct {
	last bool
	set  bool
	v    row.Value
}

func (a *firstLast) add(v row.Value, retract bool) error {
	if retract {
		return fmt.Errorf("internal: a retraction reached an accumulator for insert-only input")
	}
	if v.IsNull() {
		return nil
	}
	if !a.set || a.last {
		a.v, a.set = v, true
	}
	return nil
}
func (a *firstLast) result() row.Value { return a.v }

// firstLastRetract is FIRST_VALUE or LAST_VALUE over a changelog, as
// Flink's FirstValueWithRetractAggFunction and LastValueWithRetractAggFunction:
// every non-NULL value in the order it arrived; a retraction takes out the
// oldest occurrence of its value (equal values are not told apart); the
// result is the oldest or the newest value left. Flink orders by the wall
// clock's milliseconds and, within one, by arrival: arrival order alone is
// the same order, and deterministic.
type firstLastRetract struct {
	last bool
	vals []row.Value
}

func (a *firstLastRetract) add(v row.Value, retract bool) error {
	if v.IsNull() {
		return nil
	}
	if !retract {
		a.vals = append(a.vals, v)
		return nil
	}
	for i, x := range a.vals {
		if x.Equal(v) {
			a.vals = slices.Delete(a.vals, i, i+1)
			break
		}
	}
	return nil
}

func (a *firstLastRetract) result() row.Value {
	switch {
	case len(a.vals) == 0:
		return row.NullValue
	case a.last:
		return a.vals[len(a.vals)-1]
	}
	return a.vals[0]
}

// distinctAcc is an aggregate over DISTINCT values (but COUNT's): the inner
// accumulator sees a value when its first copy arrives and gives it back
// when its last copy is retracted.
type distinctAcc struct {
	inner accumulator
	seen  map[string]int64
	buf   []byte
	// keepNull counts NULL as a value (ARRAY_AGG(DISTINCT x), whose inner
	// aggregate keeps NULLs: Flink's distinct MapView has a NULL key too).
	keepNull bool
}

func (a *distinctAcc) add(v row.Value, retract bool) error {
	if v.IsNull() && !a.keepNull {
		return nil
	}
	a.buf = row.AppendKey(a.buf[:0], v)
	n, ok := a.seen[string(a.buf)]
	switch {
	case !retract:
		a.seen[string(a.buf)] = n + 1
		if n == 0 {
			return a.inner.add(v, false)
		}
	case !ok:
		// Retracting a value never added: nothing to take back.
	case n <= 1:
		delete(a.seen, string(a.buf))
		return a.inner.add(v, true)
	default:
		a.seen[string(a.buf)] = n - 1
	}
	return nil
}

func (a *distinctAcc) result() row.Value { return a.inner.result() }

type listAgg struct {
	sep   string
	parts []string
}

func (a *listAgg) add(v row.Value, retract bool) error {
	if v.IsNull() {
		return nil
	}
	if retract {
		for i, p := range a.parts {
			if p == v.Str() {
				a.parts = append(a.parts[:i], a.parts[i+1:]...)
				break
			}
		}
		return nil
	}
	a.parts = append(a.parts, v.Str())
	return nil
}
func (a *listAgg) result() row.Value {
	if len(a.parts) == 0 {
		return row.NullValue
	}
	return row.StrValue(strings.Join(a.parts, a.sep))
}

// arrayAgg is ARRAY_AGG, Flink's ArrayAggFunction: the values in arrival
// order, NULLs kept; a retraction takes back the first equal value (one
// that was never added is ignored); no values give NULL.
type arrayAgg struct {
	vals []row.Value
	// unwrap is ARRAY_AGG ... FILTER (expr.ArrayAggFiltered): a NULL is a
	// row the filter left out, a ROW holds the value.
	unwrap bool
}

func (a *arrayAgg) add(v row.Value, retract bool) error {
	if a.unwrap {
		if v.IsNull() {
			return nil
		}
		x, _, err := row.ListAt(v.Str(), 0)
		if err != nil {
			return err
		}
		v = x
	}
	if !retract {
		a.vals = append(a.vals, v)
		return nil
	}
	for i, x := range a.vals {
		if x.Equal(v) {
			a.vals = append(a.vals[:i], a.vals[i+1:]...)
			break
		}
	}
	return nil
}

func (a *arrayAgg) result() row.Value {
	if len(a.vals) == 0 {
		return row.NullValue
	}
	return row.ListValue(a.vals)
}

func (a *arrayAgg) appendState(dst []byte) []byte { return state.AppendValues(dst, a.vals) }

func (a *arrayAgg) decodeState(b []byte) ([]byte, error) {
	vals, rest, err := getValues(b)
	if err != nil {
		return nil, err
	}
	a.vals = vals
	return rest, nil
}

// group is the state of one group.
type group struct {
	keys  []row.Value
	accs  []accumulator
	count int64 // rows accumulated minus rows retracted
	last  []row.Value
	dirty bool
	// end is the window end of a window aggregate's group; onTime says
	// that its timer at end - 1 (allowed lateness) has not fired yet.
	end    int64
	onTime bool
}

// aggText is an aggregate call as the query wrote it, with column names,
// for errors: SUM(v), COUNT(DISTINCT u).
func aggText(a *physical.AggCall) string {
	var b strings.Builder
	b.WriteString(a.Fn + "(")
	if a.Distinct {
		b.WriteString("DISTINCT ")
	}
	if a.Star {
		b.WriteString("*")
	}
	for i, x := range a.Args {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(expr.Format(x, func(c *expr.Column) string { return c.Name }))
	}
	return b.String() + ")"
}

func (g *group) fold(specs []*aggSpec, r row.Row) error {
	retract := !isAccumulate(r.Kind)
	if retract {
		g.count--
	} else {
		g.count++
	}
	for i, s := range specs {
		v := row.NullValue
		if s.arg != nil {
			var err error
			if v, err = s.arg(r.Vals); err != nil {
				return err
			}
		}
		if err := g.accs[i].add(v, retract); err != nil {
			if s.call.Fn == "JSON_OBJECTAGG" {
				// Its errors name it; its arguments are the planner's
				// ROW(k, JSON_STRING(v)), not the query's.
				return err
			}
			return fmt.Errorf("%s: %w", aggText(s.call), err)
		}
	}
	g.dirty = true
	return nil
}

func (g *group) output() []row.Value {
	out := make([]row.Value, 0, len(g.keys)+len(g.accs))
	out = append(out, g.keys...)
	for _, a := range g.accs {
		out = append(out, a.result())
	}
	return out
}

func newGroup(keys []row.Value, specs []*aggSpec) *group {
	g := &group{keys: keys, accs: make([]accumulator, len(specs))}
	for i, s := range specs {
		g.accs[i] = s.new()
	}
	return g
}

// groupAggOp is a non-windowed GROUP BY: an updating result per group. Its
// output for a group is +I the first time, then -U old and +U new when the
// result changes (once per batch), and -D when the group empties. Groups
// live in a state.Map: past the memory budget they spill to Badger; a TTL is
// an expiry per group (last access + TTL), by time bucket.
type groupAggOp struct {
	noLifecycle
	name    string
	key     keyer
	specs   []*aggSpec
	store   *state.Store
	groups  *state.Map[*group]
	order   []pendingGroup // groups changed in this batch, in first-change order
	pending map[string]int
	out     collector
	c       *Counters
	clock   func() int64
	ttl     int64
	buf     row.Batch
}

type pendingGroup struct {
	key string
	g   *group
}

func (o *groupAggOp) expiry(now int64) int64 {
	if o.ttl <= 0 {
		return state.NoExpiry
	}
	return min(now+o.ttl, state.NoExpiry-1)
}

func (o *groupAggOp) process(_ int, b row.Batch) error {
	o.c.In.Add(int64(len(b)))
	o.order = o.order[:0]
	clear(o.pending)
	now := o.clock()
	if o.ttl > 0 {
		// Groups idle for the TTL are forgotten, as Flink's state TTL does:
		// the result already emitted stays; a later row starts afresh.
		o.groups.Expire(now, nil)
	}
	for _, r := range b {
		kb, _, err := o.key.keyBytes(r.Vals)
		if err != nil {
			return err
		}
		var g *group
		if i, ok := o.pending[string(kb)]; ok {
			g = o.order[i].g // this batch's copy is the current one
		} else if got, ok := o.groups.Get(kb); ok {
			g = got
			o.pending[string(kb)] = len(o.order)
			o.order = append(o.order, pendingGroup{string(kb), g})
		} else {
			if !isAccumulate(r.Kind) {
				continue // retracting a group we never saw (or that expired)
			}
			keys, err := o.key.values(r.Vals)
			if err != nil {
				return err
			}
			g = newGroup(keys, o.specs)
			o.pending[string(kb)] = len(o.order)
			o.order = append(o.order, pendingGroup{string(kb), g})
		}
		if err := g.fold(o.specs, r); err != nil {
			return err
		}
		// Put after every change: a group that spills before the end of the
		// batch must spill as it is now.
		o.groups.Put(kb, g, o.expiry(now))
	}
	o.buf = o.buf[:0]
	for _, p := range o.order {
		g := p.g
		g.dirty = false
		// A group whose rows are all retracted is deleted, the one group of
		// an aggregate without GROUP BY too (Flink's GroupAggFunction): a
		// streaming global aggregate has a row only while it has input.
		if g.count <= 0 {
			if g.last != nil {
				o.buf = append(o.buf, row.Row{Kind: changelogmode.Delete, Vals: g.last})
			}
			o.groups.Delete([]byte(p.key))
			continue
		}
		cur := g.output()
		switch {
		case g.last == nil:
			o.buf = append(o.buf, row.Row{Kind: changelogmode.Insert, Vals: cur})
		case !sameVals(g.last, cur):
			o.buf = append(o.buf, row.Row{Kind: changelogmode.UpdateBefore, Vals: g.last},
				row.Row{Kind: changelogmode.UpdateAfter, Vals: cur})
		}
		g.last = cur
		o.groups.Put([]byte(p.key), g, o.expiry(now))
	}
	if err := o.store.Err(); err != nil {
		return fmt.Errorf("state: %w", err)
	}
	o.c.setState(o.groups.Len())
	o.c.setStore(o.store)
	if len(o.buf) == 0 {
		return nil
	}
	o.c.Out.Add(int64(len(o.buf)))
	return o.out.push(o.buf)
}

// advance has nothing to fire: an updating aggregate emits as rows come.
func (o *groupAggOp) advance(int64) error { return nil }
func (o *groupAggOp) counters() *Counters { return o.c }

// windowOp is a window table-valued function: it appends window_start,
// window_end and window_time to each row, once per window the row is in.
// A row it cannot place in time (eventTime; or whose windows would end
// beyond the range of int64) is in no window: counted and dead-lettered.
type windowOp struct {
	noLifecycle
	fn                        string
	timeCol                   int
	size, slide, step, offset int64
	out                       collector
	c                         *Counters
	late                      *lateWriter
	cols                      []connector.Column // the input's, for dead letters
	buf                       row.Batch
}

// windows calls each with the [start, end) windows containing t, and
// reports false (having called nothing) when they cannot be computed
// without overflow. With |t| <= MaxEventTime that needs window parameters
// of 2^61 ms (73 million years) or more, which an interval literal cannot
// write (at most 999999999 days); the check keeps it so.
func (o *windowOp) windows(t int64, each func(start, end int64)) bool {
	const safe = 1 << 61
	if !validTime(t) || o.size >= safe || o.slide >= safe || o.step >= safe || o.offset >= safe || o.offset <= -safe {
		return false
	}
	switch o.fn {
	case "TUMBLE":
		s := floorDiv(t-o.offset, o.size)*o.size + o.offset
		each(s, s+o.size)
	case "HOP":
		last := floorDiv(t-o.offset, o.slide)*o.slide + o.offset
		for s := last; s > t-o.size; s -= o.slide {
			each(s, s+o.size)
		}
	case "SESSION":
		// The row's own window; the session aggregate merges them.
		each(t, t+o.size)
	case "CUMULATE":
		s := floorDiv(t-o.offset, o.size)*o.size + o.offset
		for e := s + o.step; e <= s+o.size; e += o.step {
			if t < e {
				each(s, e)
			}
		}
	}
	return true
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func (o *windowOp) process(_ int, b row.Batch) error {
	o.c.In.Add(int64(len(b)))
	o.buf = o.buf[:0]
	for _, r := range b {
		t, why, ok := eventTime(r.Vals[o.timeCol], colName(o.cols, o.timeCol))
		if ok {
			ok = o.windows(t, func(s, e int64) {
				vals := make([]row.Value, len(r.Vals)+3)
				copy(vals, r.Vals)
				n := len(r.Vals)
				vals[n], vals[n+1], vals[n+2] = row.IntValue(s), row.IntValue(e), row.IntValue(e-1)
				o.buf = append(o.buf, row.Row{Kind: r.Kind, Vals: vals})
			})
			if !ok {
				why = "event time out of range: the windows of " + FormatMillis(t) + " end beyond the range of time"
			}
		}
		if !ok {
			// In no window: counted and dead-lettered, never silent.
			o.c.NoTime.Add(1)
			if err := o.late.noTime(o.c.Name, why, r, o.c.Watermark.Load(), o.cols, true); err != nil {
				return err
			}
		}
	}
	if len(o.buf) == 0 {
		return nil
	}
	o.c.Out.Add(int64(len(o.buf)))
	return o.out.push(o.buf)
}

// advance has nothing to fire: a window TVF only labels rows.
func (o *windowOp) advance(int64) error { return nil }
func (o *windowOp) counters() *Counters { return o.c }

// windowAggOp aggregates each window and emits it when the watermark
// reaches the window's last millisecond (window_end - 1). Groups live in a
// state.Map whose expiry is the window's horizon, window_end - 1 plus the
// allowed lateness ('table.exec.emit.allow-lateness'), so the watermark
// takes them in order of window end, then of first row, and past the
// memory budget they spill to Badger like a join's rows.
//
// Without lateness the horizon is the firing: a window is emitted once
// (+I), and a row for a window that has already fired is late: counted,
// written to the dead-letter file when there is one, and not aggregated.
// With lateness, a group of a window that has not fired yet also has a
// timer (Map.AddTimer) at window_end - 1: the timer emits it (+I), its
// state stays until the horizon, and a row that comes in between updates
// it, as -U old, +U new once per batch for each group it changed (Flink's
// AfterEndOfWindow trigger without late firing fires per row). Only a row
// after the horizon is late. Final-only emits each group once, at its
// horizon, and nothing before: late rows within the horizon are
// aggregated silently.
type windowAggOp struct {
	noLifecycle
	name      string
	key       keyer
	endCol    int // window_end in the input
	timeCol   int // the row time (window_time) in the input, for late rows
	specs     []*aggSpec
	store     *state.Store
	groups    *state.Map[*group]
	lateness  int64 // ms
	finalOnly bool
	// earlyFire and lateFire are the processing-time firings
	// ('table.exec.emit.early-fire.*', '….late-fire.*'). timers are the
	// pending ones, one per group; clock is processing time.
	earlyFire, lateFire fireDelay
	timers              procTimers
	clock               func() int64
	// procTime: the window is over a processing-time attribute; windows
	// holds a timer at each open window's last millisecond, keyed by its
	// end, at which the clock fires it (onTimer).
	procTime bool
	windows  procTimers
	// procFired is the clock at the last such firing: a row of a window
	// that ended by then is late (its window's row has gone out), as a
	// row behind the watermark is.
	procFired int64
	// finCol and verCol are the output columns of WINDOW_FINALITY() and
	// WINDOW_VERSION() (-1: none).
	finCol, verCol int
	in             inputs // the watermark: the last that passed (open)
	out            collector
	c              *Counters
	late           *lateWriter
	lateCols       []connector.Column
	buf            row.Batch
	// order and pending are the groups of fired windows that this batch
	// changed, in first-change order: each is emitted once at its end.
	order   []pendingGroup
	pending map[string]int
	endKey  []byte
}

// Values of WINDOW_FINALITY(): whether a row can still change.
var (
	// finPreliminary: emitted before its window's horizon, not because of
	// a late row (the firing at window_end with allowed lateness).
	finPreliminary = row.StrValue("PRELIMINARY")
	// finUpdated: emitted before the horizon because late rows changed
	// the window's result after it fired.
	finUpdated = row.StrValue("UPDATED")
	// finFinal: the window's result at its horizon; no row for the same
	// window and key follows it.
	finFinal = row.StrValue("FINAL")
)

// meta reports whether the query selects WINDOW_FINALITY() or
// WINDOW_VERSION(): then every window and key ends with a FINAL row.
func (o *windowAggOp) meta() bool { return o.finCol >= 0 || o.verCol >= 0 }

// result is g's output row, emitted with finality fin: WINDOW_VERSION()
// is one more than the last row emitted's.
func (o *windowAggOp) result(g *group, fin row.Value) []row.Value {
	cur := g.output()
	if o.finCol >= 0 {
		cur[o.finCol] = fin
	}
	if o.verCol >= 0 {
		v := int64(1)
		if g.last != nil {
			v = g.last[o.verCol].Int() + 1
		}
		cur[o.verCol] = row.IntValue(v)
	}
	return cur
}

// changed reports whether g's result differs from the last row emitted,
// WINDOW_FINALITY() and WINDOW_VERSION() aside.
func (o *windowAggOp) changed(g *group) bool {
	cur := g.output()
	for i := range cur {
		if i != o.finCol && i != o.verCol && !cur[i].Equal(g.last[i]) {
			return true
		}
	}
	return false
}

// horizon is the last watermark at which the window ending at end still
// takes rows: window_end - 1 plus the allowed lateness.
func (o *windowAggOp) horizon(end int64) int64 {
	h := end - 1 + o.lateness
	if h < end-1 { // past int64: never happens with event times (years 1 to 9999) and interval literals
		return state.NoExpiry - 1
	}
	return min(h, state.NoExpiry-1)
}

// outputWatermark holds the output watermark back by the allowed
// lateness: a window's rows leave as late as its horizon (final-only's
// one row, the updates of late rows), and a windowed operator after this
// one (a window Top-N, a window join, another window aggregate) must not
// take them for late: with the watermark at the horizon end - 1 +
// lateness, the output's is end - 1, which its rows (window_time end - 1)
// are not behind until they are all out.
func (o *windowAggOp) outputWatermark(w int64) int64 {
	if o.lateness <= 0 || w == MaxWatermark {
		return w
	}
	if w < MinWatermark+o.lateness {
		return MinWatermark
	}
	return w - o.lateness
}

func (o *windowAggOp) open(_ context.Context, in inputs) error {
	o.in = in
	return nil
}

func (o *windowAggOp) process(_ int, b row.Batch) error {
	o.c.In.Add(int64(len(b)))
	wm := o.in.watermark()
	if o.procTime {
		wm = max(wm, o.procFired)
	}
	for _, r := range b {
		ev := r.Vals[o.endCol]
		if ev.IsNull() {
			// No window (a window TVF never emits one): counted and
			// dead-lettered, never silent.
			o.c.NoTime.Add(1)
			if err := o.late.noTime(o.name, "no event time: "+colName(o.lateCols, o.endCol)+" is NULL", r, wm, o.lateCols, true); err != nil {
				return err
			}
			continue
		}
		end := ev.Int()
		if o.horizon(end) <= wm {
			o.c.Late.Add(1)
			if err := o.late.write(o.name, r, r.Vals[o.timeCol].Int(), wm, o.lateCols); err != nil {
				return err
			}
			continue
		}
		fired := end-1 <= wm // only with lateness: within the horizon
		if fired {
			o.c.LateUpdates.Add(1)
		}
		if o.procTime {
			// Armed with every row, not only a window's first: a job
			// resumed from a checkpoint has no timers (proctime.go).
			o.windows.add(binary.BigEndian.AppendUint64(o.endKey[:0], uint64(end)), end-1)
		}
		kb, _, err := o.key.keyBytes(r.Vals)
		if err != nil {
			return err
		}
		// emit: the group's result goes out at the end of the batch;
		// delay: at a processing-time timer, delay ms from now.
		fire := o.earlyFire
		if fired {
			fire = fireDelay{on: !o.finalOnly, delay: 0}
			if o.lateFire.on {
				fire = o.lateFire
			}
		}
		emit := fire.on && fire.delay == 0
		if fire.on && fire.delay > 0 {
			o.timers.add(kb, o.clock()+fire.delay)
		}
		var g *group
		if i, ok := o.pending[string(kb)]; ok && emit {
			g = o.order[i].g // this batch's copy is the current one
		} else {
			var found bool
			g, found = o.groups.Get(kb)
			isNew := !found
			if isNew {
				keys, err := o.key.values(r.Vals)
				if err != nil {
					return err
				}
				g = newGroup(keys, o.specs)
				g.end = end
				// The timer fires the window at its end; the group's own
				// expiry, its horizon, comes later.
				g.onTime = o.lateness > 0 && !o.finalOnly && !fired
			}
			if emit {
				o.pending[string(kb)] = len(o.order)
				o.order = append(o.order, pendingGroup{string(kb), g})
			}
			if err := g.fold(o.specs, r); err != nil {
				return err
			}
			// Put after every change: a group that spills later must
			// spill as it is now.
			o.groups.Put(kb, g, o.horizon(end))
			if isNew && g.onTime {
				o.groups.AddTimer(kb, end-1)
			}
			continue
		}
		if err := g.fold(o.specs, r); err != nil {
			return err
		}
		o.groups.Put(kb, g, o.horizon(end))
	}
	if err := o.emitUpdates(); err != nil {
		return err
	}
	if err := o.store.Err(); err != nil {
		return fmt.Errorf("state: %w", err)
	}
	o.c.setState(o.groups.Len())
	o.c.setStore(o.store)
	return nil
}

// emitUpdates emits the groups the batch changed that fire with each
// batch: those of fired windows (late rows), and with an early firing
// without delay, those of windows still open.
func (o *windowAggOp) emitUpdates() error {
	if len(o.order) == 0 {
		return nil
	}
	o.buf = o.buf[:0]
	for _, p := range o.order {
		o.update(p.key, p.g)
	}
	o.order = o.order[:0]
	clear(o.pending)
	return o.pushFired()
}

// update adds g's result to o.buf, before its window's horizon: +I for a
// group not emitted yet (an early firing, or a group whose first rows
// came late), else -U old, +U new when the result changed, and nothing
// when it did not. The result is PRELIMINARY while the window is open
// (an early firing), UPDATED once it fired (late rows changed it).
func (o *windowAggOp) update(key string, g *group) {
	if g.count == 0 {
		return
	}
	fin := finUpdated
	if g.end-1 > o.in.watermark() {
		fin = finPreliminary
	}
	var cur []row.Value
	switch {
	case g.last == nil:
		cur = o.result(g, fin)
		o.buf = append(o.buf, row.Row{Kind: changelogmode.Insert, Vals: cur})
	case o.changed(g):
		cur = o.result(g, fin)
		o.buf = append(o.buf, row.Row{Kind: changelogmode.UpdateBefore, Vals: g.last},
			row.Row{Kind: changelogmode.UpdateAfter, Vals: cur})
	default:
		return
	}
	g.last = cur
	o.groups.Put([]byte(key), g, o.horizon(g.end))
}

// fireDelay is an early or late firing: on, and its delay in ms of
// processing time (0: with each batch).
type fireDelay struct {
	on    bool
	delay int64
}

func (o *windowAggOp) timed() bool {
	return o.earlyFire.on && o.earlyFire.delay > 0 || o.lateFire.on && o.lateFire.delay > 0 || o.procTime
}

func (o *windowAggOp) nextTimer() (int64, bool) {
	at, ok := o.timers.next()
	if w, wok := o.windows.next(); wok && (!ok || w < at) {
		return w, true
	}
	return at, ok
}

// onTimer fires the groups whose processing-time timer is due: each
// emits its result if it changed since the last row it emitted (update).
// A group whose window passed its horizon meanwhile is gone, and was
// emitted then.
func (o *windowAggOp) onTimer(now int64) error {
	o.buf = o.buf[:0]
	err := o.timers.due(now, func(key string) error {
		g, ok := o.groups.Get([]byte(key))
		if !ok {
			return nil
		}
		o.update(key, g)
		if len(o.buf) >= fireBatch {
			return o.pushFired()
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := o.store.Err(); err != nil {
		return fmt.Errorf("state: %w", err)
	}
	o.c.setStore(o.store)
	if err := o.pushFired(); err != nil {
		return err
	}
	// Processing-time windows: the clock passed the last millisecond of
	// some; every window up to now fires, as the watermark would fire it
	// (so a window restored without its timer goes too).
	due := false
	if err := o.windows.due(now, func(string) error { due = true; return nil }); err != nil {
		return err
	}
	if due {
		o.procFired = max(o.procFired, now)
		return o.advance(now)
	}
	return nil
}

// advance fires the windows whose last millisecond wm has reached and
// drops those whose horizon it has. Fired windows go downstream a batch
// at a time, from inside the expiry, in order of window end: a window of
// millions of groups (most of them spilled) is never held whole, and its
// first rows leave at once. The callback may push: downstream operators
// have stores of their own.
func (o *windowAggOp) advance(wm int64) error {
	o.buf = o.buf[:0]
	var perr error
	o.groups.Expire(wm, func(_ []byte, g *group) {
		if perr != nil {
			return
		}
		if g.onTime {
			// The timer at window_end - 1: emitted now, kept until the
			// horizon (the group's own expiry, which comes later).
			g.onTime = false
			if g.count > 0 {
				// Kept: the group stays. After early firings, only a
				// change since the last one goes out.
				switch {
				case g.last == nil:
					cur := o.result(g, finPreliminary)
					o.buf = append(o.buf, row.Row{Kind: changelogmode.Insert, Vals: cur})
					g.last = cur
				case o.changed(g):
					cur := o.result(g, finPreliminary)
					o.buf = append(o.buf, row.Row{Kind: changelogmode.UpdateBefore, Vals: g.last},
						row.Row{Kind: changelogmode.UpdateAfter, Vals: cur})
					g.last = cur
				}
			}
		} else if g.count > 0 {
			// The horizon: the group goes. Without lateness or in
			// final-only mode this is its one emission; with lateness,
			// every change has been emitted already, and a query that
			// selects WINDOW_FINALITY() or WINDOW_VERSION() gets the
			// result again, FINAL.
			switch {
			case g.last == nil:
				o.buf = append(o.buf, row.Row{Kind: changelogmode.Insert, Vals: o.result(g, finFinal)})
			case o.meta() || o.changed(g):
				o.buf = append(o.buf, row.Row{Kind: changelogmode.UpdateBefore, Vals: g.last},
					row.Row{Kind: changelogmode.UpdateAfter, Vals: o.result(g, finFinal)})
			}
		}
		if len(o.buf) >= fireBatch {
			perr = o.pushFired()
		}
	})
	if perr != nil {
		return perr
	}
	if err := o.store.Err(); err != nil {
		return fmt.Errorf("state: %w", err)
	}
	o.c.setState(o.groups.Len())
	o.c.setStore(o.store)
	return o.pushFired()
}

// fireBatch is the most fired rows an operator holds before pushing them
// (a variable for the tests).
var fireBatch = 1024

// pushFired sends the fired rows collected in *buf downstream, counts them
// out, and empties *buf for the next ones (the window operators' firing).
func pushFired(c *Counters, out collector, buf *row.Batch) error {
	if len(*buf) == 0 {
		return nil
	}
	c.Out.Add(int64(len(*buf)))
	err := out.push(*buf)
	clear(*buf)
	*buf = (*buf)[:0]
	return err
}

func (o *windowAggOp) pushFired() error { return pushFired(o.c, o.out, &o.buf) }

func (o *windowAggOp) counters() *Counters { return o.c }
