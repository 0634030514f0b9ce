package eval

import (
	"bytes"
	"fmt"

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

// jsonApply reads json and applies the path: the value (nil: none, or a
// JSON null) or the error the ON ERROR clause handles.
func jsonApply(text row.Value, p *jsonPath, perr error) (*jnode, bool, error) {
	if perr != nil {
		return nil, false, perr
	}
	doc, err := parseJSON(text.Str())
	if err != nil {
		if p.lax {
			return nil, true, nil
		}
		return nil, false, fmt.Errorf("not JSON: %w", err)
	}
	v, err := p.eval(doc)
	return v, p.lax, err
}

func jsonValue(_ *compiler, e *expr.Call, args []node) (Func, error) {
	if len(args) != 6 {
		return nil, fmt.Errorf("eval: JSON_VALUE takes 6 arguments")
	}
	path, err := jsonPathArg("JSON_VALUE", args[1])
	if err != nil {
		return nil, err
	}
	onEmpty, err := constStr("JSON_VALUE", args, 2)
	if err != nil {
		return nil, err
	}
	onError, err := constStr("JSON_VALUE", args, 4)
	if err != nil {
		return nil, err
	}
	t := e.T
	jf, pf, ef, xf := args[0].f, args[1].f, args[3].f, args[5].f
	return func(vals []row.Value) (row.Value, error) {
		j, err := jf(vals)
		if err != nil || j.IsNull() {
			return row.NullValue, err
		}
		pv, err := pf(vals)
		if err != nil || pv.IsNull() {
			return row.NullValue, err
		}
		p, perr := path(pv)
		v, lax, fail := jsonApply(j, p, perr)
		if fail == nil {
			switch {
			case v == nil || lax && !v.scalar():
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
	if len(args) != 5 {
		return nil, fmt.Errorf("eval: JSON_QUERY takes 5 arguments")
	}
	path, err := jsonPathArg("JSON_QUERY", args[1])
	if err != nil {
		return nil, err
	}
	var wrapper, onEmpty, onError string
	for i, dst := range []*string{&wrapper, &onEmpty, &onError} {
		if *dst, err = constStr("JSON_QUERY", args, 2+i); err != nil {
			return nil, err
		}
	}
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
	jf, pf := args[0].f, args[1].f
	return func(vals []row.Value) (row.Value, error) {
		j, err := jf(vals)
		if err != nil || j.IsNull() {
			return row.NullValue, err
		}
		pv, err := pf(vals)
		if err != nil || pv.IsNull() {
			return row.NullValue, err
		}
		p, perr := path(pv)
		v, lax, fail := jsonApply(j, p, perr)
		if fail != nil {
			return behave(onError, fail)
		}
		if v != nil {
			switch {
			case wrapper == "UNCONDITIONAL", wrapper == "CONDITIONAL" && v.kind != 'a':
				v = &jnode{kind: 'a', arr: []*jnode{v}}
			}
		}
		switch {
		case v == nil || lax && v.scalar():
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
	if len(args) != 3 {
		return nil, fmt.Errorf("eval: JSON_EXISTS takes 3 arguments")
	}
	path, err := jsonPathArg("JSON_EXISTS", args[1])
	if err != nil {
		return nil, err
	}
	onError, err := constStr("JSON_EXISTS", args, 2)
	if err != nil {
		return nil, err
	}
	jf, pf := args[0].f, args[1].f
	return func(vals []row.Value) (row.Value, error) {
		j, err := jf(vals)
		if err != nil || j.IsNull() {
			return row.NullValue, err
		}
		pv, err := pf(vals)
		if err != nil || pv.IsNull() {
			return row.NullValue, err
		}
		p, perr := path(pv)
		v, _, fail := jsonApply(j, p, perr)
		if fail != nil {
			switch onError {
			case "TRUE":
				return row.BoolValue(true), nil
			case "UNKNOWN":
				return row.NullValue, nil
			case "ERROR":
				return row.NullValue, errorf(ErrInvalidArgument, "JSON_EXISTS: %v (ERROR ON ERROR)", fail)
			}
			return row.BoolValue(false), nil
		}
		return row.BoolValue(v != nil), nil
	}, nil
}
