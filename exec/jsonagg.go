package exec

import (
	"bytes"
	"fmt"
	"slices"
	"unicode/utf16"

	"github.com/streamsql/streamsql/eval"
	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/state"
)

// jsonNull is the JSON text of a NULL value. JSON_STRING never gives it for
// a value that is not NULL (a string "null" is written quoted), so it
// stands for NULL in the accumulators below.
const jsonNull = "null"

// jsonAggFields reads the ROW the planner gives a JSON aggregate (see
// expr's JSON_OBJECTAGG): ok is false for a NULL ROW, a row FILTER left
// out; a NULL field is returned as NULL.
func jsonAggFields(v row.Value, n int) (fields []row.Value, ok bool, err error) {
	if v.IsNull() {
		return nil, false, nil
	}
	fields, err = row.DecodeList(nil, v.Str())
	if err == nil && len(fields) != n {
		err = fmt.Errorf("internal: a JSON aggregate's row has %d fields, not %d", len(fields), n)
	}
	return fields, err == nil, err
}

// jsonObjectAgg is JSON_OBJECTAGG(KEY k VALUE v [{NULL | ABSENT} ON NULL]),
// Flink's JsonObjectAggFunction: a key's JSON value text per key; a key
// that comes again while present is an error (Flink: "Duplicate keys are
// not allowed in JSON_OBJECTAGG"), as is a NULL key; ABSENT ON NULL leaves
// a NULL value out. A retraction takes out its key when the value is the
// one held (NULL included: Flink's retract misses a NULL value, leaving the
// key in place, and then fails on the key's next value; here it comes out).
// The result is the object with its keys sorted as Flink's serializer
// sorts them (Java string order, UTF-16 code units): "{}" for none.
type jsonObjectAgg struct {
	absent bool
	m      map[string]string
}

func (a *jsonObjectAgg) add(v row.Value, retract bool) error {
	f, ok, err := jsonAggFields(v, 2)
	if !ok {
		return err
	}
	if f[0].IsNull() {
		return fmt.Errorf("JSON_OBJECTAGG: a key is NULL")
	}
	key, val := f[0].Str(), jsonNull
	if !f[1].IsNull() {
		val = f[1].Str()
	}
	held, present := a.m[key]
	switch {
	case retract:
		if present && held == val {
			delete(a.m, key)
		}
	case present:
		return fmt.Errorf("JSON_OBJECTAGG: key '%s' is already present; duplicate keys are not allowed, as in Flink (make the keys unique, e.g. with GROUP BY in a subquery)", key)
	case val == jsonNull && a.absent:
	default:
		a.m[key] = val
	}
	return nil
}

func (a *jsonObjectAgg) result() row.Value {
	keys := make([]string, 0, len(a.m))
	for k := range a.m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, javaStringCompare)
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		eval.AppendJSONString(&b, k)
		b.WriteByte(':')
		b.WriteString(a.m[k])
	}
	b.WriteByte('}')
	return row.StrValue(b.String())
}

func (a *jsonObjectAgg) appendState(dst []byte) []byte {
	vals := make([]row.Value, 0, 2*len(a.m))
	for k, v := range a.m {
		vals = append(vals, row.StrValue(k), row.StrValue(v))
	}
	return state.AppendValues(dst, vals)
}

func (a *jsonObjectAgg) decodeState(b []byte) ([]byte, error) {
	vals, rest, err := getValues(b)
	if err != nil {
		return nil, err
	}
	if len(vals)%2 != 0 {
		return nil, fmt.Errorf("JSON_OBJECTAGG state: %d values, not pairs", len(vals))
	}
	a.m = make(map[string]string, len(vals)/2)
	for i := 0; i < len(vals); i += 2 {
		a.m[vals[i].Str()] = vals[i+1].Str()
	}
	return rest, nil
}

// javaStringCompare orders strings as Java's String.compareTo: by UTF-16
// code units, which differs from Go's byte order only between characters
// above U+FFFF and those from U+E000 to U+FFFF.
func javaStringCompare(x, y string) int {
	ascii := true
	for _, s := range []string{x, y} {
		for i := 0; i < len(s) && ascii; i++ {
			ascii = s[i] < 0x80
		}
	}
	if ascii {
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	}
	return slices.Compare(utf16.Encode([]rune(x)), utf16.Encode([]rune(y)))
}

// jsonArrayAgg is JSON_ARRAYAGG(v [{NULL | ABSENT} ON NULL]), Flink's
// JsonArrayAggFunction: the values' JSON texts in arrival order, a NULL
// written as null or (ABSENT ON NULL, the default) left out; a retraction
// takes out the first equal value; "[]" for none.
type jsonArrayAgg struct {
	absent bool
	vals   []string
}

func (a *jsonArrayAgg) add(v row.Value, retract bool) error {
	f, ok, err := jsonAggFields(v, 1)
	if !ok {
		return err
	}
	val := jsonNull
	if !f[0].IsNull() {
		val = f[0].Str()
	}
	if !retract {
		if val != jsonNull || !a.absent {
			a.vals = append(a.vals, val)
		}
		return nil
	}
	if i := slices.Index(a.vals, val); i >= 0 {
		a.vals = slices.Delete(a.vals, i, i+1)
	}
	return nil
}

func (a *jsonArrayAgg) result() row.Value {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, v := range a.vals {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(v)
	}
	b.WriteByte(']')
	return row.StrValue(b.String())
}

func (a *jsonArrayAgg) appendState(dst []byte) []byte {
	vals := make([]row.Value, len(a.vals))
	for i, v := range a.vals {
		vals[i] = row.StrValue(v)
	}
	return state.AppendValues(dst, vals)
}

func (a *jsonArrayAgg) decodeState(b []byte) ([]byte, error) {
	vals, rest, err := getValues(b)
	if err != nil {
		return nil, err
	}
	a.vals = make([]string, len(vals))
	for i, v := range vals {
		a.vals[i] = v.Str()
	}
	return rest, nil
}
