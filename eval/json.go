package eval

import (
	"bytes"
	"fmt"
	"strconv"

	"github.com/streamsql/streamsql/expr"
	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/types"
)

// The JSON query functions, as the binder lays out their clauses (package
// expr, json.go):
//
//	JSON_VALUE(json, path, onEmpty, emptyDefault, onError, errorDefault)
//	JSON_QUERY(json, path, wrapper, onEmpty, onError)
//	JSON_EXISTS(json, path, onError)
//
// the behaviours being constant strings (NULL, ERROR, DEFAULT, EMPTY ARRAY,
// EMPTY OBJECT, TRUE, FALSE, UNKNOWN; WITHOUT, CONDITIONAL, UNCONDITIONAL).
// A NULL json or path gives NULL. A constant path is read when the query
// is compiled (so check refuses one it cannot run); one from a column that
// cannot be read is an error of the row, handled by ON ERROR.
func init() {
	functions["JSON_VALUE"] = jsonValue
	functions["JSON_QUERY"] = jsonQuery
	functions["JSON_EXISTS"] = jsonExists
}

// jsonPathArg returns the reader of the path argument.
func jsonPathArg(fn string, a node) (func(row.Value) (*jsonPath, error), error) {
	if a.konst && !a.v.IsNull() {
		p, err := parseJSONPath(a.v.Str())
		if err != nil {
			return nil, errorf(ErrInvalidArgument, "%s: the path '%s': %v", fn, a.v.Str(), err)
		}
		return func(row.Value) (*jsonPath, error) { return p, nil }, nil
	}
	return func(v row.Value) (*jsonPath, error) { return parseJSONPath(v.Str()) }, nil
}

func constStr(fn string, args []node, i int) (string, error) {
	if i >= len(args) || !args[i].konst {
		return "", fmt.Errorf("eval: %s: argument %d must be a constant", fn, i+1)
	}
	return args[i].v.Str(), nil
}

// jsonCall is what JSON_VALUE, JSON_QUERY and JSON_EXISTS share: the
// document (argument 1) and the path (argument 2), read for each row, and
// their constant ON … clauses.
type jsonCall struct {
	doc, path Func
	readPath  func(row.Value) (*jsonPath, error)
	clauses   []string
}

// newJSONCall checks that fn has n arguments and reads the constant
// clauses at the positions given (from 0), in that order.
func newJSONCall(fn string, args []node, n int, clauses ...int) (*jsonCall, error) {
	if len(args) != n {
		return nil, fmt.Errorf("eval: %s takes %d arguments", fn, n)
	}
	readPath, err := jsonPathArg(fn, args[1])
	if err != nil {
		return nil, err
	}
	c := &jsonCall{doc: args[0].f, path: args[1].f, readPath: readPath}
	for _, i := range clauses {
		s, err := constStr(fn, args, i)
		if err != nil {
			return nil, err
		}
		c.clauses = append(c.clauses, s)
	}
	return c, nil
}

// jsonResult is a path applied to a document.
type jsonResult struct {
	v    *jnode // the value; nil: none, or a JSON null
	lax  bool   // the path is lax
	fail error  // the error the ON ERROR clause handles
}

// apply reads the row's document and path and applies the path. null says
// that the document or the path is NULL, or could not be evaluated (err):
// the call's result is then NULL (and err).
func (c *jsonCall) apply(vals []row.Value) (res jsonResult, null bool, err error) {
	j, err := c.doc(vals)
	if err != nil || j.IsNull() {
		return res, true, err
	}
	pv, err := c.path(vals)
	if err != nil || pv.IsNull() {
		return res, true, err
	}
	p, err := c.readPath(pv)
	if err != nil {
		res.fail = err
		return res, false, nil
	}
	res.lax = p.lax
	doc, err := parseJSON(j.Str())
	if err != nil {
		if !p.lax {
			res.fail = fmt.Errorf("not JSON: %w", err)
		}
		return res, false, nil
	}
	res.v, res.fail = p.eval(doc)
	return res, false, nil
}

func jsonValue(_ *compiler, e *expr.Call, args []node) (Func, error) {
	c, err := newJSONCall("JSON_VALUE", args, 6, 2, 4)
	if err != nil {
		return nil, err
	}
	onEmpty, onError := c.clauses[0], c.clauses[1]
	t := e.T
	ef, xf := args[3].f, args[5].f
	return func(vals []row.Value) (row.Value, error) {
		r, null, err := c.apply(vals)
		if null {
			return row.NullValue, err
		}
		v, fail := r.v, r.fail
		if fail == nil {
			switch {
			case v == nil || r.lax && !v.scalar():
				switch onEmpty {
				case "ERROR":
					return row.NullValue, errorf(ErrInvalidArgument, "JSON_VALUE: no value at the path (ERROR ON EMPTY)")
				case "DEFAULT":
					return ef(vals)
				}
				return row.NullValue, nil
			case !v.scalar():
				fail = fmt.Errorf("the value at the path is an array or object, not a scalar (JSON_QUERY reads those)")
			default:
				out, cerr := jsonScalarAs(v, t)
				if cerr == nil {
					return out, nil
				}
				fail = cerr
			}
		}
		switch onError {
		case "ERROR":
			return row.NullValue, errorf(ErrInvalidArgument, "JSON_VALUE: %v (ERROR ON ERROR)", fail)
		case "DEFAULT":
			return xf(vals)
		}
		return row.NullValue, nil
	}, nil
}

// jsonScalarAs converts a scalar to the RETURNING type: its text as Java
// prints it for a string, else read as CAST reads text.
func jsonScalarAs(v *jnode, t types.T) (row.Value, error) {
	if t.IsString() {
		return row.StrValue(v.text()), nil
	}
	if t.Kind == types.Boolean && v.kind != 'b' && v.kind != 's' {
		return row.NullValue, fmt.Errorf("%s is not a BOOLEAN", v.text())
	}
	out, err := ParseValue(v.text(), t)
	if err != nil {
		return row.NullValue, fmt.Errorf("%s does not convert to %s", v.text(), t)
	}
	return out, nil
}

func jsonQuery(_ *compiler, _ *expr.Call, args []node) (Func, error) {
	c, err := newJSONCall("JSON_QUERY", args, 5, 2, 3, 4)
	if err != nil {
		return nil, err
	}
	wrapper, onEmpty, onError := c.clauses[0], c.clauses[1], c.clauses[2]
	behave := func(mode string, err error) (row.Value, error) {
		switch mode {
		case "ERROR":
			return row.NullValue, errorf(ErrInvalidArgument, "JSON_QUERY: %v", err)
		case "EMPTY ARRAY":
			return row.StrValue("[]"), nil
		case "EMPTY OBJECT":
			return row.StrValue("{}"), nil
		}
		return row.NullValue, nil
	}
	return func(vals []row.Value) (row.Value, error) {
		r, null, err := c.apply(vals)
		if null {
			return row.NullValue, err
		}
		if r.fail != nil {
			return behave(onError, r.fail)
		}
		v := r.v
		if v != nil {
			switch {
			case wrapper == "UNCONDITIONAL", wrapper == "CONDITIONAL" && v.kind != 'a':
				v = &jnode{kind: 'a', arr: []*jnode{v}}
			}
		}
		switch {
		case v == nil || r.lax && v.scalar():
			return behave(onEmpty, fmt.Errorf("no value at the path (ERROR ON EMPTY)"))
		case v.scalar():
			return behave(onError, fmt.Errorf("the value at the path is a scalar, not an array or object (JSON_VALUE reads those)"))
		}
		var b bytes.Buffer
		v.appendJSON(&b)
		return row.StrValue(b.String()), nil
	}, nil
}

func jsonExists(_ *compiler, _ *expr.Call, args []node) (Func, error) {
	c, err := newJSONCall("JSON_EXISTS", args, 3, 2)
	if err != nil {
		return nil, err
	}
	onError := c.clauses[0]
	return func(vals []row.Value) (row.Value, error) {
		r, null, err := c.apply(vals)
		if null {
			return row.NullValue, err
		}
		if r.fail != nil {
			switch onError {
			case "TRUE":
				return row.BoolValue(true), nil
			case "UNKNOWN":
				return row.NullValue, nil
			case "ERROR":
				return row.NullValue, errorf(ErrInvalidArgument, "JSON_EXISTS: %v (ERROR ON ERROR)", r.fail)
			}
			return row.BoolValue(false), nil
		}
		return row.BoolValue(r.v != nil), nil
	}, nil
}

func init() {
	functions["JSON_OBJECT"] = jsonConstructor
	functions["JSON_ARRAY"] = jsonConstructor
	functions["JSON_STRING"] = jsonString
	functions["IS JSON"] = isJSON
}

// isJSON is text IS JSON kind (Flink's, Calcite's): whether text is one
// JSON value (as JSON_VALUE reads it), of the kind (VALUE: any; SCALAR:
// neither an object nor an array); FALSE, not NULL, for NULL text.
func isJSON(_ *compiler, _ *expr.Call, args []node) (Func, error) {
	if len(args) != 2 || !args[1].konst {
		return nil, fmt.Errorf("eval: IS JSON takes a text and a constant kind")
	}
	kind := args[1].v.Str()
	text := args[0].f
	return func(vals []row.Value) (row.Value, error) {
		v, err := text(vals)
		if err != nil || v.IsNull() {
			return row.BoolValue(false), err
		}
		n, perr := parseJSON(v.Str())
		if perr != nil {
			return row.BoolValue(false), nil
		}
		switch kind {
		case "OBJECT":
			return row.BoolValue(n.kind == 'o'), nil
		case "ARRAY":
			return row.BoolValue(n.kind == 'a'), nil
		case "SCALAR":
			return row.BoolValue(n.kind != 'o' && n.kind != 'a'), nil
		}
		return row.BoolValue(true), nil
	}, nil
}

// jsonString is JSON_STRING(value), Flink's: compact JSON text of the
// value, NULL for NULL.
func jsonString(_ *compiler, _ *expr.Call, args []node) (Func, error) {
	t := args[0].t
	return un(args[0], func(v row.Value) (row.Value, error) {
		var b bytes.Buffer
		if err := appendSQLAsJSON(&b, v, t, false); err != nil {
			return row.NullValue, err
		}
		return row.StrValue(b.String()), nil
	}), nil
}

// jsonConstructor is JSON_OBJECT(onNull, k1, v1, …) and JSON_ARRAY(onNull,
// v1, …) (package expr, json.go), as Flink's: compact JSON text, members in
// the order given (a repeated key keeps its first place and takes the last
// value), a NULL value written as null or, ABSENT ON NULL, left out; a
// value made by JSON_OBJECT or JSON_ARRAY goes in as JSON, not as a string.
// A NULL key is an error, as in Flink.
func jsonConstructor(_ *compiler, e *expr.Call, args []node) (Func, error) {
	if len(args) < 1 || !args[0].konst {
		return nil, fmt.Errorf("eval: %s takes its ON NULL behaviour first", e.Fn)
	}
	absent := args[0].v.Str() == "ABSENT"
	object := e.Fn == "JSON_OBJECT"
	type part struct {
		f   Func
		t   types.T
		raw bool
	}
	var keys, vparts []part
	for i := 1; i < len(args); i++ {
		p := part{f: args[i].f, t: args[i].t}
		if c, ok := e.Args[i].(*expr.Call); ok && (c.Fn == "JSON_OBJECT" || c.Fn == "JSON_ARRAY") {
			p.raw = true
		}
		if object && (i-1)%2 == 0 {
			keys = append(keys, p)
		} else {
			vparts = append(vparts, p)
		}
	}
	return func(in []row.Value) (row.Value, error) {
		var b bytes.Buffer
		if !object {
			b.WriteByte('[')
			n := 0
			for _, p := range vparts {
				v, err := p.f(in)
				if err != nil {
					return row.NullValue, err
				}
				if v.IsNull() && absent {
					continue
				}
				if n > 0 {
					b.WriteByte(',')
				}
				n++
				if err := appendSQLAsJSON(&b, v, p.t, p.raw); err != nil {
					return row.NullValue, err
				}
			}
			b.WriteByte(']')
			return row.StrValue(b.String()), nil
		}
		var names []string
		var texts []string
		for i, kp := range keys {
			k, err := kp.f(in)
			if err != nil {
				return row.NullValue, err
			}
			if k.IsNull() {
				return row.NullValue, errorf(ErrInvalidArgument, "JSON_OBJECT: a key is NULL")
			}
			v, err := vparts[i].f(in)
			if err != nil {
				return row.NullValue, err
			}
			if v.IsNull() && absent {
				continue
			}
			var vb bytes.Buffer
			if err := appendSQLAsJSON(&vb, v, vparts[i].t, vparts[i].raw); err != nil {
				return row.NullValue, err
			}
			at := -1
			for j, n := range names {
				if n == k.Str() {
					at = j
				}
			}
			if at >= 0 {
				texts[at] = vb.String()
				continue
			}
			names, texts = append(names, k.Str()), append(texts, vb.String())
		}
		b.WriteByte('{')
		for i, n := range names {
			if i > 0 {
				b.WriteByte(',')
			}
			appendJSONString(&b, n)
			b.WriteByte(':')
			b.WriteString(texts[i])
		}
		b.WriteByte('}')
		return row.StrValue(b.String()), nil
	}, nil
}

// appendSQLAsJSON writes a value of type t as JSON: raw when it is JSON
// text made by a JSON constructor.
func appendSQLAsJSON(b *bytes.Buffer, v row.Value, t types.T, raw bool) error {
	switch {
	case v.IsNull():
		b.WriteString("null")
	case raw:
		b.WriteString(v.Str())
	case t.Kind.IsString():
		appendJSONString(b, v.Str())
	case t.Kind == types.Boolean:
		b.WriteString(strconv.FormatBool(v.Bool()))
	case t.Kind == types.Float:
		b.WriteString(formatFloat(v.Float(), true))
	case t.Kind == types.Double:
		b.WriteString(formatFloat(v.Float(), false))
	case t.Kind.IsNumeric():
		b.WriteString(FormatValue(v, t))
	case t.Kind == types.Array || t.Kind == types.Row:
		vals, err := row.DecodeList(nil, v.Str())
		if err != nil {
			return err
		}
		if t.Kind == types.Row {
			b.WriteByte('{')
			for i, f := range t.Fields() {
				if i > 0 {
					b.WriteByte(',')
				}
				appendJSONString(b, f.Name)
				b.WriteByte(':')
				if err := appendSQLAsJSON(b, vals[i], f.Type, false); err != nil {
					return err
				}
			}
			b.WriteByte('}')
			return nil
		}
		b.WriteByte('[')
		for i, x := range vals {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := appendSQLAsJSON(b, x, t.Elem(), false); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case t.Kind == types.Map:
		ks, vs, err := row.DecodeMap(nil, nil, v.Str())
		if err != nil {
			return err
		}
		b.WriteByte('{')
		for i := range ks {
			if i > 0 {
				b.WriteByte(',')
			}
			appendJSONString(b, ks[i].Str())
			b.WriteByte(':')
			if err := appendSQLAsJSON(b, vs[i], t.Value(), false); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	default:
		return errorf(ErrInvalidArgument, "a %s value cannot be written as JSON", t)
	}
	return nil
}
