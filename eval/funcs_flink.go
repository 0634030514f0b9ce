package eval

import (
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"hash"
	"math"
	mrand "math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"time"
	_ "time/tzdata" // CONVERT_TZ's zones, the same on every machine
	"unicode"
	"unicode/utf8"

	"github.com/streamsql/streamsql/expr"
	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/types"
)

// The functions of expr/funcs_flink.go.
func init() {
	for name, f := range map[string]builtin{
		"LPAD":           pad(true),
		"RPAD":           pad(false),
		"REPEAT":         repeat,
		"LEFT":           leftRight(true),
		"RIGHT":          leftRight(false),
		"REVERSE":        strFunc(reverse),
		"INITCAP":        strFunc(initcap),
		"ASCII":          ascii,
		"INSTR":          instr,
		"LOCATE":         locate,
		"TO_BASE64":      strFunc(func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }),
		"SHA1":           shaFunc(func() hash.Hash { return sha1.New() }),
		"SHA224":         shaFunc(sha256.New224),
		"SHA256":         shaFunc(sha256.New),
		"SHA384":         shaFunc(sha512.New384),
		"SHA512":         shaFunc(sha512.New),
		"SHA2":           sha2,
		"UUID":           uuidFunc,
		"SIN":            mathFunc1(math.Sin),
		"COS":            mathFunc1(math.Cos),
		"TAN":            mathFunc1(math.Tan),
		"COT":            mathFunc1(func(x float64) float64 { return 1 / math.Tan(x) }),
		"ASIN":           mathFunc1(math.Asin),
		"ACOS":           mathFunc1(math.Acos),
		"ATAN":           mathFunc1(math.Atan),
		"ATAN2":          mathFunc(math.Atan2),
		"SINH":           mathFunc1(math.Sinh),
		"COSH":           mathFunc1(math.Cosh),
		"TANH":           mathFunc1(math.Tanh),
		"DEGREES":        mathFunc1(func(x float64) float64 { return x * 180 / math.Pi }),
		"RADIANS":        mathFunc1(func(x float64) float64 { return x / 180 * math.Pi }),
		"LOG2":           mathFunc1(math.Log2),
		"LOG":            logFunc,
		"PI":             constFunc(math.Pi),
		"E":              constFunc(math.E),
		"SIGN":           signFunc,
		"BIN":            binFunc,
		"HEX":            hexFunc,
		"RAND":           randFunc,
		"RAND_INTEGER":   randInteger,
		"GREATEST":       greatestLeast(true),
		"LEAST":          greatestLeast(false),
		"CURRENT_DATE":   clockFunc(func(ms int64) int64 { return floorDiv(ms, msPerDay) }),
		"CURRENT_TIME":   clockFunc(timeOfDay),
		"LOCALTIME":      clockFunc(timeOfDay),
		"LOCALTIMESTAMP": clockFunc(func(ms int64) int64 { return ms }),
		"CONVERT_TZ":     convertTZ,
	} {
		functions[name] = f
	}
	for _, name := range []string{"RAND", "RAND_INTEGER", "UUID", "CURRENT_DATE", "CURRENT_TIME", "LOCALTIME", "LOCALTIMESTAMP"} {
		volatile[name] = true
	}
}

// timeOfDay is a TIME(0): the milliseconds of the day, whole seconds.
func timeOfDay(ms int64) int64 { return floorMod(ms, msPerDay) / 1000 * 1000 }

// clockFunc reads the clock (Options.Now) on every row, as PROCTIME().
func clockFunc(f func(ms int64) int64) builtin {
	return func(c *compiler, _ *expr.Call, _ []node) (Func, error) {
		clock := c.opts.Now
		return func([]row.Value) (row.Value, error) { return row.IntValue(f(clock())), nil }, nil
	}
}

func constFunc(x float64) builtin {
	return func(*compiler, *expr.Call, []node) (Func, error) {
		return func([]row.Value) (row.Value, error) { return row.FloatValue(x), nil }, nil
	}
}

// pad is LPAD and RPAD, Flink's: NULL for a negative length or an empty
// pad; a longer s is cut to length.
func pad(left bool) builtin {
	return func(_ *compiler, _ *expr.Call, args []node) (Func, error) {
		return strict(args, func(xs []row.Value) (row.Value, error) {
			s, n, p := []rune(xs[0].Str()), xs[1].Int(), []rune(xs[2].Str())
			if n < 0 || len(p) == 0 {
				return row.NullValue, nil
			}
			if n <= int64(len(s)) {
				return row.StrValue(string(s[:n])), nil
			}
			if n > maxStringBuild {
				return row.NullValue, errorf(ErrInvalidArgument, "the padded string would have %d characters (at most %d)", n, maxStringBuild)
			}
			fill := make([]rune, 0, n-int64(len(s)))
			for int64(len(fill)) < n-int64(len(s)) {
				fill = append(fill, p[len(fill)%len(p)])
			}
			if left {
				return row.StrValue(string(fill) + string(s)), nil
			}
			return row.StrValue(string(s) + string(fill)), nil
		}), nil
	}
}

// maxStringBuild bounds the strings LPAD, RPAD and REPEAT build, so that a
// bad argument is an error rather than the process running out of memory.
const maxStringBuild = 1 << 24

func repeat(_ *compiler, _ *expr.Call, args []node) (Func, error) {
	return strict(args, func(xs []row.Value) (row.Value, error) {
		s, n := xs[0].Str(), xs[1].Int()
		if n <= 0 || s == "" {
			return row.StrValue(""), nil
		}
		if n > maxStringBuild/int64(len(s)) {
			return row.NullValue, errorf(ErrInvalidArgument, "REPEAT would build %d x %d bytes (at most %d)", n, len(s), maxStringBuild)
		}
		return row.StrValue(strings.Repeat(s, int(n))), nil
	}), nil
}

// leftRight is LEFT(s, n) and RIGHT(s, n): ” for a negative n, s when n
// is past its length.
func leftRight(left bool) builtin {
	return func(_ *compiler, _ *expr.Call, args []node) (Func, error) {
		return strict(args, func(xs []row.Value) (row.Value, error) {
			s, n := []rune(xs[0].Str()), xs[1].Int()
			switch {
			case n <= 0:
				return row.StrValue(""), nil
			case n >= int64(len(s)):
				return xs[0], nil
			case left:
				return row.StrValue(string(s[:n])), nil
			}
			return row.StrValue(string(s[int64(len(s))-n:])), nil
		}), nil
	}
}

func reverse(s string) string {
	r := []rune(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}

// initcap is Flink's INITCAP: the first letter of each word (a run of
// letters and digits) upper case, the others lower case.
func initcap(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	start := true
	for _, r := range s {
		if start {
			b.WriteRune(unicode.ToUpper(r))
		} else {
			b.WriteRune(unicode.ToLower(r))
		}
		start = !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}
	return b.String()
}

func ascii(_ *compiler, _ *expr.Call, args []node) (Func, error) {
	return un(args[0], func(x row.Value) (row.Value, error) {
		r, n := utf8.DecodeRuneInString(x.Str())
		if n == 0 {
			return row.IntValue(0), nil
		}
		return row.IntValue(int64(r)), nil
	}), nil
}

// runeIndex is the position (from 1, in characters) of sub in s at or
// after character from (from 1), 0 when there is none.
func runeIndex(s, sub string, from int64) int64 {
	if from < 1 {
		return 0
	}
	skip := 0
	for i := int64(1); i < from; i++ {
		if skip >= len(s) {
			return 0
		}
		_, n := utf8.DecodeRuneInString(s[skip:])
		skip += n
	}
	i := strings.Index(s[skip:], sub)
	if i < 0 {
		return 0
	}
	return from + int64(utf8.RuneCountInString(s[skip:skip+i]))
}

func instr(_ *compiler, _ *expr.Call, args []node) (Func, error) {
	return strict(args, func(xs []row.Value) (row.Value, error) {
		return row.IntValue(runeIndex(xs[0].Str(), xs[1].Str(), 1)), nil
	}), nil
}

func locate(_ *compiler, _ *expr.Call, args []node) (Func, error) {
	return strict(args, func(xs []row.Value) (row.Value, error) {
		from := int64(1)
		if len(xs) == 3 {
			from = xs[2].Int()
		}
		return row.IntValue(runeIndex(xs[1].Str(), xs[0].Str(), from)), nil
	}), nil
}

func shaFunc(h func() hash.Hash) builtin {
	return func(_ *compiler, _ *expr.Call, args []node) (Func, error) {
		return un(args[0], func(x row.Value) (row.Value, error) {
			d := h()
			d.Write([]byte(x.Str()))
			return row.StrValue(hex.EncodeToString(d.Sum(nil))), nil
		}), nil
	}
}

func sha2(c *compiler, e *expr.Call, args []node) (Func, error) {
	if len(args) != 2 || !args[1].konst || args[1].v.Kind() != row.Int {
		return nil, fmt.Errorf("eval: SHA2 needs a literal number of bits")
	}
	h := map[int64]func() hash.Hash{224: sha256.New224, 256: sha256.New, 384: sha512.New384, 512: sha512.New}[args[1].v.Int()]
	if h == nil {
		return nil, fmt.Errorf("eval: SHA2 takes 224, 256, 384 or 512 bits, not %d", args[1].v.Int())
	}
	return shaFunc(h)(c, e, args[:1])
}

func uuidFunc(*compiler, *expr.Call, []node) (Func, error) {
	return func([]row.Value) (row.Value, error) {
		var b [16]byte
		if _, err := rand.Read(b[:]); err != nil {
			return row.NullValue, fmt.Errorf("eval: UUID(): %w", err)
		}
		b[6] = b[6]&0x0f | 0x40
		b[8] = b[8]&0x3f | 0x80
		h := hex.EncodeToString(b[:])
		return row.StrValue(h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]), nil
	}, nil
}

// logFunc is LOG(n), the natural logarithm, and LOG(base, n).
func logFunc(c *compiler, e *expr.Call, args []node) (Func, error) {
	if len(args) == 1 {
		return mathFunc1(math.Log)(c, e, args)
	}
	return mathFunc(func(b, x float64) float64 { return math.Log(x) / math.Log(b) })(c, e, args)
}

// signFunc is SIGN(n) in n's type: a DECIMAL(p, s) gives -1, 0 or 1 at
// scale s.
func signFunc(_ *compiler, e *expr.Call, args []node) (Func, error) {
	a := args[0]
	switch {
	case a.t.Kind.IsApproximate():
		return un(a, func(x row.Value) (row.Value, error) {
			f := x.Float()
			switch {
			case f > 0:
				return row.FloatValue(1), nil
			case f < 0:
				return row.FloatValue(-1), nil
			}
			return x, nil // 0, -0 and NaN are their own sign
		}), nil
	case a.t.Kind.IsExactNumeric():
		one := pow10Or0(scaleOf(a.t))
		return un(a, func(x row.Value) (row.Value, error) {
			v := x.Int()
			switch {
			case v > 0:
				return row.IntValue(one), nil
			case v < 0:
				return row.IntValue(-one), nil
			}
			return row.IntValue(0), nil
		}), nil
	}
	return nullFunc, nil
}

// binFunc is BIN(n): Java's Long.toBinaryString (two's complement for a
// negative n).
func binFunc(_ *compiler, _ *expr.Call, args []node) (Func, error) {
	return un(args[0], func(x row.Value) (row.Value, error) {
		return row.StrValue(strconv.FormatUint(uint64(x.Int()), 2)), nil
	}), nil
}

// hexFunc is HEX(n), Java's Long.toHexString upper-cased, or HEX(s), the
// hexadecimal of s's UTF-8 bytes, upper case, as Flink.
func hexFunc(_ *compiler, _ *expr.Call, args []node) (Func, error) {
	if args[0].t.Kind.IsString() {
		return un(args[0], func(x row.Value) (row.Value, error) {
			return row.StrValue(strings.ToUpper(hex.EncodeToString([]byte(x.Str())))), nil
		}), nil
	}
	return un(args[0], func(x row.Value) (row.Value, error) {
		return row.StrValue(strings.ToUpper(strconv.FormatUint(uint64(x.Int()), 16))), nil
	}), nil
}

// javaRandom is java.util.Random: Flink's RAND(seed) and
// RAND_INTEGER(seed, bound) draw from one, so a seed gives Flink's
// sequence.
type javaRandom struct {
	mu   sync.Mutex
	seed int64
}

const javaRandMult, javaRandMask = 0x5DEECE66D, (int64(1) << 48) - 1

func newJavaRandom(seed int64) *javaRandom {
	return &javaRandom{seed: (seed ^ javaRandMult) & javaRandMask}
}

// next is Random.next(bits); the caller holds mu.
func (r *javaRandom) next(bits uint) int32 {
	r.seed = (r.seed*javaRandMult + 0xB) & javaRandMask
	return int32(uint64(r.seed) >> (48 - bits))
}

func (r *javaRandom) nextDouble() float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	hi := int64(r.next(26))
	lo := int64(r.next(27))
	return float64(hi<<27+lo) * (1.0 / (1 << 53))
}

// nextInt is Random.nextInt(bound), bound > 0.
func (r *javaRandom) nextInt(bound int32) int32 {
	r.mu.Lock()
	defer r.mu.Unlock()
	x := r.next(31)
	m := bound - 1
	if bound&m == 0 {
		return int32((int64(bound) * int64(x)) >> 31)
	}
	for u := x; ; u = r.next(31) {
		x = u % bound
		if u-x+m >= 0 { // Java's overflow test: int32 arithmetic
			return x
		}
	}
}

func seedOf(n node) (int64, error) {
	if !n.konst || n.v.IsNull() || n.v.Kind() != row.Int {
		return 0, fmt.Errorf("eval: the seed must be an integer literal")
	}
	// Flink reads the seed as an INT, widened to the long Random takes.
	return int64(int32(n.v.Int())), nil
}

func randFunc(_ *compiler, _ *expr.Call, args []node) (Func, error) {
	if len(args) == 0 {
		return func([]row.Value) (row.Value, error) { return row.FloatValue(mrand.Float64()), nil }, nil
	}
	seed, err := seedOf(args[0])
	if err != nil {
		return nil, err
	}
	r := newJavaRandom(seed)
	return func([]row.Value) (row.Value, error) { return row.FloatValue(r.nextDouble()), nil }, nil
}

func randInteger(_ *compiler, e *expr.Call, args []node) (Func, error) {
	draw := func(bound int32) int32 { return mrand.Int32N(bound) }
	if len(args) == 2 {
		seed, err := seedOf(args[0])
		if err != nil {
			return nil, err
		}
		draw = newJavaRandom(seed).nextInt
	}
	where := describe(e)
	return un(args[len(args)-1], func(x row.Value) (row.Value, error) {
		b := x.Int()
		if b <= 0 || b > math.MaxInt32 {
			return row.NullValue, errorf(ErrInvalidArgument, "%s: the bound must be from 1 to %d, got %d", where, math.MaxInt32, b)
		}
		return row.IntValue(int64(draw(int32(b)))), nil
	}), nil
}

// greatestLeast is GREATEST and LEAST, Flink's: NULL when an argument is
// NULL; the arguments are compared in the result's type.
func greatestLeast(greatest bool) builtin {
	return func(_ *compiler, e *expr.Call, args []node) (Func, error) {
		if e.T.Kind == types.Null {
			return nullFunc, nil
		}
		fs := make([]Func, len(args))
		for i, a := range args {
			f, err := coerce(a, e.T)
			if err != nil {
				return nil, err
			}
			fs[i] = f
		}
		x, y := node{t: e.T}, node{t: e.T}
		cmp, err := comparer(&x, &y)
		if err != nil {
			return nil, err
		}
		return func(vals []row.Value) (row.Value, error) {
			var best row.Value
			for i, f := range fs {
				v, err := f(vals)
				if err != nil || v.IsNull() {
					return row.NullValue, err
				}
				if i == 0 {
					best = v
				} else if c := cmp(v, best); greatest && c > 0 || !greatest && c < 0 {
					best = v
				}
			}
			return best, nil
		}, nil
	}
}

// javaShortZones are java.time.ZoneId.SHORT_IDS, which Java's TimeZone
// (CONVERT_TZ's) also reads; EST, MST and HST are the fixed offsets Go's
// zone database has under the same names.
var javaShortZones = map[string]string{
	"ACT": "Australia/Darwin", "AET": "Australia/Sydney", "AGT": "America/Argentina/Buenos_Aires",
	"ART": "Africa/Cairo", "AST": "America/Anchorage", "BET": "America/Sao_Paulo", "BST": "Asia/Dhaka",
	"CAT": "Africa/Harare", "CNT": "America/St_Johns", "CST": "America/Chicago", "CTT": "Asia/Shanghai",
	"EAT": "Africa/Addis_Ababa", "ECT": "Europe/Paris", "IET": "America/Indiana/Indianapolis",
	"IST": "Asia/Kolkata", "JST": "Asia/Tokyo", "MIT": "Pacific/Apia", "NET": "Asia/Yerevan",
	"NST": "Pacific/Auckland", "PLT": "Asia/Karachi", "PNT": "America/Phoenix", "PRT": "America/Puerto_Rico",
	"PST": "America/Los_Angeles", "SST": "Pacific/Guadalcanal", "VST": "Asia/Ho_Chi_Minh",
}

// loadZone reads a time zone as Java's TimeZone.getTimeZone does: a
// region name ('America/Los_Angeles'), a short ID ('PST'), 'UTC', 'GMT' or
// a custom 'GMT+08:00' / 'GMT-8' / 'GMT+0830'. Java reads anything else as
// GMT; streamsql refuses it.
func loadZone(name string) (*time.Location, error) {
	if full, ok := javaShortZones[name]; ok {
		name = full
	}
	if off, ok := strings.CutPrefix(name, "GMT"); ok && off != "" {
		if loc, ok := customZone(off); ok {
			return loc, nil
		}
		return nil, fmt.Errorf("unknown time zone %q (a custom zone is GMT+hh:mm)", name)
	}
	if name == "" || strings.EqualFold(name, "local") {
		return nil, fmt.Errorf("unknown time zone %q", name)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, fmt.Errorf("unknown time zone %q (use a region such as 'America/Los_Angeles', 'UTC' or 'GMT+08:00')", name)
	}
	return loc, nil
}

// customZone reads the part of Java's custom zone after "GMT": +h, +hh,
// +hh:mm or +hhmm (hours up to 23, minutes up to 59).
func customZone(s string) (*time.Location, bool) {
	if len(s) < 2 || s[0] != '+' && s[0] != '-' {
		return nil, false
	}
	digits := strings.Replace(s[1:], ":", "", 1)
	var h, m int
	switch {
	case len(digits) <= 2 && !strings.Contains(s, ":"):
		h = atoiDigits(digits)
		m = 0
	case len(digits) == 4 && (strings.Contains(s, ":") == (len(s) == 6)):
		h, m = atoiDigits(digits[:2]), atoiDigits(digits[2:])
	case len(digits) == 3 && strings.Contains(s, ":") && len(s) == 5:
		h, m = atoiDigits(digits[:1]), atoiDigits(digits[1:])
	default:
		return nil, false
	}
	if h < 0 || m < 0 || h > 23 || m > 59 {
		return nil, false
	}
	off := h*3600 + m*60
	if s[0] == '-' {
		off = -off
	}
	return time.FixedZone("GMT"+s, off), true
}

func atoiDigits(s string) int {
	if s == "" {
		return -1
	}
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			return -1
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// convertTZ is CONVERT_TZ(s, from, to), Flink's: s read as 'yyyy-MM-dd
// HH:mm:ss' (a fraction of a second after it is ignored, as Java's
// SimpleDateFormat does) in zone from, written in zone to in the same
// format. Text that does not parse gives NULL; an unknown zone is an error
// (refused by check when it is a literal).
func convertTZ(_ *compiler, e *expr.Call, args []node) (Func, error) {
	if len(args) != 3 {
		return nil, fmt.Errorf("eval: CONVERT_TZ takes 3 arguments")
	}
	zones := [2]func(string) (*time.Location, error){}
	for i, a := range args[1:] {
		if a.konst && !a.v.IsNull() {
			loc, err := loadZone(a.v.Str())
			if err != nil {
				return nil, errorf(ErrInvalidArgument, "CONVERT_TZ: %v", err)
			}
			zones[i] = func(string) (*time.Location, error) { return loc, nil }
			continue
		}
		var cache sync.Map
		zones[i] = func(name string) (*time.Location, error) {
			if l, ok := cache.Load(name); ok {
				return l.(*time.Location), nil
			}
			l, err := loadZone(name)
			if err != nil {
				return nil, err
			}
			cache.Store(name, l)
			return l, nil
		}
	}
	where := describe(e)
	return strict(args, func(xs []row.Value) (row.Value, error) {
		from, err := zones[0](xs[1].Str())
		if err != nil {
			return row.NullValue, errorf(ErrInvalidArgument, "%s: %v", where, err)
		}
		to, err := zones[1](xs[2].Str())
		if err != nil {
			return row.NullValue, errorf(ErrInvalidArgument, "%s: %v", where, err)
		}
		s := xs[0].Str()
		if i := strings.IndexByte(s, '.'); i >= 0 && i+1 < len(s) && strings.Trim(s[i+1:], "0123456789") == "" {
			s = s[:i]
		}
		t, err := time.ParseInLocation(time.DateTime, s, from)
		if err != nil {
			return row.NullValue, nil
		}
		return row.StrValue(t.In(to).Format(time.DateTime)), nil
	}), nil
}
