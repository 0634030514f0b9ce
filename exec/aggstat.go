package exec

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"

	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/types"
)

// statAcc is STDDEV_POP, STDDEV_SAMP, VAR_POP and VAR_SAMP. Flink rewrites
// them (AggregateReduceFunctionsRule) into sums: VAR_POP(x) is
// (SUM(x*x) - SUM(x)*SUM(x)/COUNT(x)) / COUNT(x), VAR_SAMP divides by
// COUNT(x) - 1 and is NULL for one value, STDDEV_* are their square roots,
// cast to the result type. statAcc keeps the same sums, so a retraction
// takes a value back out as Flink's do: of integers in BIGINT, with
// Flink's integer divisions (a sum that leaves BIGINT is an error, where
// Flink's INT sums wrap); of other numbers in DOUBLE, where a variance
// that rounding makes negative counts as 0.
type statAcc struct {
	n           int64
	sum, sum2   float64
	isum, isum2 int64
	ints        bool // integer argument: isum, isum2
	sqrt        bool // STDDEV_*
	samp        bool // *_SAMP
	in          func(row.Value) float64
	out         func(float64) row.Value
}

func newStatAcc(fn string, argT, resT types.T) (*statAcc, error) {
	a := &statAcc{sqrt: fn == "STDDEV_POP" || fn == "STDDEV_SAMP", samp: fn == "STDDEV_SAMP" || fn == "VAR_SAMP"}
	switch k := argT.Kind; {
	case k.IsApproximate():
		a.in = row.Value.Float
	case k.IsIntegral():
		a.ints = true
	case k == types.Decimal:
		div := math.Pow10(argT.Scale)
		a.in = func(v row.Value) float64 { return float64(v.Int()) / div }
	case k == types.Null:
		a.in = func(row.Value) float64 { return 0 }
	default:
		return nil, fmt.Errorf("%s of %s is not supported", fn, argT)
	}
	switch k := resT.Kind; {
	case k == types.Float:
		a.out = func(x float64) row.Value { return row.FloatValue(float64(float32(x))) }
	case k == types.Double:
		a.out = row.FloatValue
	case k.IsIntegral():
		// Flink's CAST of the DOUBLE to the integer type: Java's narrowing,
		// truncation toward zero, saturated at the type's bounds.
		hi := map[types.Kind]float64{types.TinyInt: math.MaxInt8, types.SmallInt: math.MaxInt16, types.Int: math.MaxInt32}[k]
		a.out = func(x float64) row.Value {
			if hi != 0 && x > hi {
				return row.IntValue(int64(hi))
			}
			if x >= math.MaxInt64 {
				return row.IntValue(math.MaxInt64)
			}
			return row.IntValue(int64(x))
		}
	default:
		return nil, fmt.Errorf("%s as %s is not supported", fn, resT)
	}
	return a, nil
}

func (a *statAcc) add(v row.Value, retract bool) error {
	if v.IsNull() {
		return nil
	}
	if a.ints {
		return a.addInt(v.Int(), retract)
	}
	x := a.in(v)
	if retract {
		a.n--
		a.sum -= x
		a.sum2 -= x * x
	} else {
		a.n++
		a.sum += x
		a.sum2 += x * x
	}
	if a.n == 0 {
		a.sum, a.sum2 = 0, 0 // no drift left over once every value is gone
	}
	return nil
}

func (a *statAcc) addInt(x int64, retract bool) error {
	sq, ok := mulInt64(x, x)
	if !ok {
		return errSumRange
	}
	s, s2 := a.isum, a.isum2
	if retract {
		x, sq = -x, -sq
	}
	if s, ok = addInt64(s, x); !ok {
		return errSumRange
	}
	if s2, ok = addInt64(s2, sq); !ok {
		return errSumRange
	}
	a.isum, a.isum2 = s, s2
	if retract {
		a.n--
	} else {
		a.n++
	}
	return nil
}

func addInt64(a, b int64) (int64, bool) {
	s := a + b
	return s, (b >= 0) == (s >= a)
}

func mulInt64(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	if a == -1 && b == math.MinInt64 || b == -1 && a == math.MinInt64 {
		return 0, false
	}
	p := a * b
	return p, p/b == a
}

func (a *statAcc) result() row.Value {
	d := float64(a.n)
	if a.samp {
		d--
	}
	if a.n <= 0 || d <= 0 {
		return row.NullValue
	}
	if a.ints {
		// (SUM(x*x) - SUM(x)*SUM(x)/COUNT(x)) / COUNT(x) [- 1], each
		// division an integer one, as Flink's rewrite computes it.
		sum, n := new(big.Int).SetInt64(a.isum), big.NewInt(a.n)
		q := new(big.Int).Mul(sum, sum)
		q.Quo(q, n)
		q.Sub(big.NewInt(a.isum2), q)
		q.Quo(q, big.NewInt(int64(d)))
		v, _ := new(big.Float).SetInt(q).Float64()
		if a.sqrt {
			v = math.Sqrt(v)
		}
		return a.out(v)
	}
	v := (a.sum2 - a.sum*a.sum/float64(a.n)) / d
	if v < 0 {
		v = 0
	}
	if a.sqrt {
		v = math.Sqrt(v)
	}
	return a.out(v)
}

func (a *statAcc) appendState(dst []byte) []byte {
	if a.ints {
		return putVarint(putVarint(putVarint(dst, a.isum), a.isum2), a.n)
	}
	dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(a.sum))
	dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(a.sum2))
	return putVarint(dst, a.n)
}

func (a *statAcc) decodeState(b []byte) (rest []byte, err error) {
	if a.ints {
		if a.isum, b, err = getVarint(b); err != nil {
			return nil, err
		}
		if a.isum2, b, err = getVarint(b); err != nil {
			return nil, err
		}
		a.n, b, err = getVarint(b)
		return b, err
	}
	if len(b) < 16 {
		return nil, errShort
	}
	a.sum = math.Float64frombits(binary.LittleEndian.Uint64(b))
	a.sum2 = math.Float64frombits(binary.LittleEndian.Uint64(b[8:]))
	a.n, b, err = getVarint(b[16:])
	return b, err
}
