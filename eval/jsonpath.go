package eval

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"strconv"
	"strings"
)

// Flink's JSON_VALUE, JSON_QUERY and JSON_EXISTS (its SqlJsonUtils, from
// Calcite's JsonFunctions) read the text with Jackson and the path with
// Jayway JsonPath. This file is that much of them: an order-keeping JSON
// tree (numbers as Jackson makes them: integers exact, the rest doubles,
// printed as Java prints them), paths of Jayway's definite steps and
// wildcards, and the two modes:
//
//	strict (the default)  a step that finds nothing is an error (so is
//	                      text that is not JSON)
//	lax                   it is an empty result (so is text that is not JSON)

// jnode is a JSON value.
type jnode struct {
	kind byte // 'n' null, 'b' bool, 'i' integer, 'f' double, 's' string, 'a' array, 'o' object
	b    bool
	i    *big.Int
	f    float64
	s    string
	arr  []*jnode
	keys []string
	vals []*jnode
}

func parseJSON(text string) (*jnode, error) {
	d := json.NewDecoder(strings.NewReader(text))
	d.UseNumber()
	n, err := readJSON(d)
	if err != nil {
		return nil, err
	}
	if _, err := d.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("text after the JSON value")
	}
	return n, nil
}

func readJSON(d *json.Decoder) (*jnode, error) {
	t, err := d.Token()
	if err != nil {
		return nil, err
	}
	switch t := t.(type) {
	case nil:
		return &jnode{kind: 'n'}, nil
	case bool:
		return &jnode{kind: 'b', b: t}, nil
	case string:
		return &jnode{kind: 's', s: t}, nil
	case json.Number:
		s := string(t)
		if !strings.ContainsAny(s, ".eE") {
			i, ok := new(big.Int).SetString(s, 10)
			if !ok {
				return nil, fmt.Errorf("bad number %s", s)
			}
			return &jnode{kind: 'i', i: i}, nil
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return nil, err
		}
		return &jnode{kind: 'f', f: f}, nil
	case json.Delim:
		switch t {
		case '[':
			n := &jnode{kind: 'a'}
			for d.More() {
				e, err := readJSON(d)
				if err != nil {
					return nil, err
				}
				n.arr = append(n.arr, e)
			}
			_, err := d.Token()
			return n, err
		case '{':
			n := &jnode{kind: 'o'}
			for d.More() {
				kt, err := d.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				v, err := readJSON(d)
				if err != nil {
					return nil, err
				}
				if i := n.index(k); i >= 0 {
					n.vals[i] = v // a repeated key: the last value, in the first place (a LinkedHashMap)
				} else {
					n.keys, n.vals = append(n.keys, k), append(n.vals, v)
				}
			}
			_, err := d.Token()
			return n, err
		}
	}
	return nil, fmt.Errorf("unexpected %v", t)
}

func (n *jnode) index(k string) int {
	for i, x := range n.keys {
		if x == k {
			return i
		}
	}
	return -1
}

// scalar reports whether n is no array and no object.
func (n *jnode) scalar() bool { return n.kind != 'a' && n.kind != 'o' }

// text is a scalar as Java's String.valueOf prints what Jackson read.
func (n *jnode) text() string {
	switch n.kind {
	case 'b':
		return strconv.FormatBool(n.b)
	case 'i':
		return n.i.String()
	case 'f':
		return formatFloat(n.f, false)
	case 's':
		return n.s
	}
	return "null"
}

// appendJSON writes n as Jackson writes it: compact, members in order.
func (n *jnode) appendJSON(b *bytes.Buffer) {
	switch n.kind {
	case 's':
		appendJSONString(b, n.s)
	case 'a':
		b.WriteByte('[')
		for i, e := range n.arr {
			if i > 0 {
				b.WriteByte(',')
			}
			e.appendJSON(b)
		}
		b.WriteByte(']')
	case 'o':
		b.WriteByte('{')
		for i, k := range n.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			appendJSONString(b, k)
			b.WriteByte(':')
			n.vals[i].appendJSON(b)
		}
		b.WriteByte('}')
	default:
		b.WriteString(n.text())
	}
}

// AppendJSONString writes s as a JSON string, quoted and escaped as the
// JSON functions write it (appendJSONString).
func AppendJSONString(b *bytes.Buffer, s string) { appendJSONString(b, s) }

// appendJSONString quotes s as Jackson does: '"', '\' and control
// characters escaped, everything else as it is.
func appendJSONString(b *bytes.Buffer, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r < 0x20:
			fmt.Fprintf(b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
}

// jsonPath is a parsed path: its mode and its steps.
type jsonPath struct {
	lax   bool
	steps []pathStep
}

// pathStep is .name or ['name'] (name), [i] (index; negative from the
// end), or .* / [*] (wild).
type pathStep struct {
	name  string
	index int
	kind  byte // 'k' key, 'i' index, '*' wildcard
}

// definite reports whether the path names at most one value (no
// wildcard): Jayway returns a definite path's value, an indefinite one's
// matches as a list.
func (p *jsonPath) definite() bool {
	for _, s := range p.steps {
		if s.kind == '*' {
			return false
		}
	}
	return true
}

// parseJSONPath reads [lax|strict] $ followed by .name, ['name'],
// ["name"], [n], .* and [*] steps. It refuses what it does not run
// (Jayway's deep scan, filters, slices, unions) with the reason.
func parseJSONPath(spec string) (*jsonPath, error) {
	p := &jsonPath{}
	s := strings.TrimLeft(spec, " \t\n\r")
	low := strings.ToLower(s)
	for _, m := range []string{"lax", "strict"} {
		if strings.HasPrefix(low, m) && len(s) > len(m) && strings.ContainsRune(" \t\n\r", rune(s[len(m)])) {
			p.lax = m == "lax"
			s = strings.TrimLeft(s[len(m):], " \t\n\r")
			break
		}
	}
	if !strings.HasPrefix(s, "$") {
		return nil, fmt.Errorf("a JSON path starts with $ (after lax or strict), as in '$.a[0]'")
	}
	s = s[1:]
	for s != "" {
		switch {
		case strings.HasPrefix(s, ".."):
			return nil, fmt.Errorf("the deep scan '..' is not supported")
		case strings.HasPrefix(s, ".*"):
			p.steps = append(p.steps, pathStep{kind: '*'})
			s = s[2:]
		case strings.HasPrefix(s, ".["):
			s = s[1:]
		case s[0] == '.':
			end := strings.IndexAny(s[1:], ".[")
			if end < 0 {
				end = len(s) - 1
			}
			name := strings.TrimSpace(s[1 : 1+end])
			if name == "" {
				return nil, fmt.Errorf("a '.' must be followed by a member name")
			}
			p.steps = append(p.steps, pathStep{kind: 'k', name: name})
			s = s[1+end:]
		case s[0] == '[':
			end := closingBracket(s)
			if end < 0 {
				return nil, fmt.Errorf("'[' is never closed")
			}
			in := strings.TrimSpace(s[1:end])
			s = s[end+1:]
			switch {
			case in == "*":
				p.steps = append(p.steps, pathStep{kind: '*'})
			case len(in) >= 2 && (in[0] == '\'' && in[len(in)-1] == '\'' || in[0] == '"' && in[len(in)-1] == '"'):
				name := in[1 : len(in)-1]
				if strings.ContainsAny(name, "'\"") {
					return nil, fmt.Errorf("several member names in one [...] are not supported")
				}
				p.steps = append(p.steps, pathStep{kind: 'k', name: name})
			case strings.HasPrefix(in, "?"):
				return nil, fmt.Errorf("filters [?(...)] are not supported")
			default:
				n, err := strconv.Atoi(in)
				if err != nil {
					return nil, fmt.Errorf("[%s] is not supported: an index is a whole number, a member name is quoted ['name']", in)
				}
				p.steps = append(p.steps, pathStep{kind: 'i', index: n})
			}
		default:
			return nil, fmt.Errorf("unexpected %q: steps are .name, ['name'], [n] and [*]", s)
		}
	}
	return p, nil
}

func closingBracket(s string) int {
	var quote byte
	for i := 1; i < len(s); i++ {
		switch c := s[i]; {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == ']':
			return i
		}
	}
	return -1
}

// errNotFound is a step that found nothing, an error in strict mode.
var errNotFound = errors.New("no value at the path")

// eval applies the path to doc as Jayway does: the value (nil for nothing,
// or a JSON null) of a definite path; an indefinite path's matches as an
// array (possibly empty). In strict mode a step that finds no object (or
// array) where the path so far is definite is an error, and so is a
// missing member that is not the last step; a missing last member, an
// index out of range, or a step under a wildcard finds nothing, which for
// a definite path is an error too.
func (p *jsonPath) eval(doc *jnode) (*jnode, error) {
	cur := []*jnode{doc}
	upDefinite := true // the steps so far name at most one value
	for si, st := range p.steps {
		leaf := si == len(p.steps)-1
		var next []*jnode
		for _, n := range cur {
			switch st.kind {
			case '*':
				switch n.kind {
				case 'a':
					next = append(next, n.arr...)
				case 'o':
					next = append(next, n.vals...)
				}
			case 'k':
				if n.kind != 'o' {
					if upDefinite && !p.lax {
						return nil, errNotFound
					}
					continue
				}
				i := n.index(st.name)
				if i < 0 {
					if upDefinite && !leaf && !p.lax {
						return nil, errNotFound
					}
					continue
				}
				next = append(next, n.vals[i])
			case 'i':
				if n.kind != 'a' {
					if upDefinite && !p.lax {
						return nil, errNotFound
					}
					continue
				}
				i := st.index
				if i < 0 {
					i += len(n.arr)
				}
				if i < 0 || i >= len(n.arr) {
					continue
				}
				next = append(next, n.arr[i])
			}
		}
		cur = next
		if st.kind == '*' {
			upDefinite = false
		}
	}
	if !p.definite() {
		return &jnode{kind: 'a', arr: cur}, nil
	}
	if len(cur) == 0 {
		if p.lax {
			return nil, nil
		}
		return nil, errNotFound
	}
	if cur[0].kind == 'n' {
		return nil, nil
	}
	return cur[0], nil
}
