package parser

import (
	"strconv"
	"strings"

	"github.com/streamsql/streamsql/ast"
	"github.com/streamsql/streamsql/diag"
)

// The SQL/JSON query functions take clauses TiDB's parser does not know
// (RETURNING type, … ON EMPTY, … ON ERROR, … WRAPPER). The dialect layer
// reads a whole call JSON_VALUE(…), JSON_QUERY(…) or JSON_EXISTS(…) itself,
// its two arguments parsed as expressions, and puts the placeholder
// @_j<i> in its place; the converter returns the recorded ast.JSONCall.

// isJSONFunc reports whether t starts one of those calls.
func isJSONFunc(toks []token, k int) bool {
	t := toks[k]
	return (t.is("JSON_VALUE") || t.is("JSON_QUERY") || t.is("JSON_EXISTS")) && k+1 < len(toks) && toks[k+1].isOp("(")
}

// jsonClauseAt reports whether a clause starts at j (at the call's top
// level).
func jsonClauseAt(toks []token, j int) bool {
	t := toks[j]
	switch {
	case t.is("RETURNING") || t.is("DEFAULT") || t.is("WITH") || t.is("WITHOUT"):
		return true
	case t.is("EMPTY") && j+1 < len(toks) && (toks[j+1].is("ARRAY") || toks[j+1].is("OBJECT")):
		return true
	case (t.is("NULL") || t.is("ERROR") || t.is("TRUE") || t.is("FALSE") || t.is("UNKNOWN")) && j+1 < len(toks) && toks[j+1].is("ON"):
		return true
	}
	return false
}

// jsonCall parses the call at k and replaces it with its placeholder; it
// returns the index after the call.
func (rw *rewriter) jsonCall(k int) int {
	toks := rw.toks
	closeAt := matchParen(toks, k+1)
	if closeAt < 0 {
		return len(toks)
	}
	fn := strings.ToUpper(toks[k].val)
	c := &ast.JSONCall{Func: fn}
	c.S = diag.Span{Start: toks[k].start, End: toks[closeAt].end}
	fail := func(sp diag.Span, format string, args ...any) int {
		rw.errorf(diag.SyntaxError, sp, format, args...)
		rw.hide(k, closeAt+1)
		return closeAt + 1
	}
	// top lists the indexes of the call's top-level tokens.
	var top []int
	depth := 0
	for j := k + 2; j < closeAt; j++ {
		if depth == 0 {
			top = append(top, j)
		}
		switch {
		case toks[j].isOp("(") || toks[j].isOp("["):
			depth++
		case toks[j].isOp(")") || toks[j].isOp("]"):
			depth--
		}
	}
	comma := -1
	for _, j := range top {
		if toks[j].isOp(",") {
			comma = j
			break
		}
	}
	if comma < 0 || comma == k+2 {
		return fail(c.S, "%s takes a JSON text and a path, as in %s(doc, '$.a')", fn, fn)
	}
	// The path runs to the first clause.
	pathEnd := closeAt
	for _, j := range top {
		if j > comma && jsonClauseAt(toks, j) {
			pathEnd = j
			break
		}
	}
	for _, j := range top {
		if j > comma && j < pathEnd && toks[j].isOp(",") {
			return fail(toks[j].span(), "%s takes two arguments, a JSON text and a path, then its clauses", fn)
		}
	}
	if pathEnd == comma+1 {
		return fail(toks[comma].span(), "expected the JSON path after ',', as in '$.a'")
	}
	c.JSON = parseExprRegion(rw.src, toks[k+2:comma], rw.l)
	c.Path = parseExprRegion(rw.src, toks[comma+1:pathEnd], rw.l)
	if c.JSON == nil || c.Path == nil {
		rw.failed = true
		rw.hide(k, closeAt+1)
		return closeAt + 1
	}
	// The clauses.
	j := pathEnd
	// next is the first top-level clause start after j.
	next := func(j int) int {
		for _, x := range top {
			if x > j && jsonClauseAt(toks, x) {
				return x
			}
		}
		return closeAt
	}
	// onTarget reads ON EMPTY | ON ERROR at i; it returns which and the
	// index after it.
	onTarget := func(i int) (string, int, bool) {
		if i+1 < closeAt && toks[i].is("ON") && (toks[i+1].is("EMPTY") || toks[i+1].is("ERROR")) {
			return strings.ToUpper(toks[i+1].val), i + 2, true
		}
		return "", i, false
	}
	set := func(target, mode string, def ast.Expr, at diag.Span) bool {
		dst, ddst := &c.OnEmpty, &c.EmptyDefault
		if target == "ERROR" {
			dst, ddst = &c.OnError, &c.ErrorDefault
		}
		if *dst != "" {
			rw.errorf(diag.SyntaxError, at, "ON %s is given twice", target)
			return false
		}
		allowed := map[string]map[string]bool{
			"JSON_VALUE":  {"NULL": true, "ERROR": true, "DEFAULT": true},
			"JSON_QUERY":  {"NULL": true, "ERROR": true, "EMPTY ARRAY": true, "EMPTY OBJECT": true},
			"JSON_EXISTS": {"TRUE": true, "FALSE": true, "UNKNOWN": true, "ERROR": true},
		}[fn]
		if !allowed[mode] || fn == "JSON_EXISTS" && target == "EMPTY" {
			rw.errorf(diag.SyntaxError, at, "%s ON %s is not a clause of %s", mode, target, fn)
			return false
		}
		*dst, *ddst = mode, def
		return true
	}
	for j < closeAt {
		t := toks[j]
		switch {
		case t.is("RETURNING"):
			end := next(j)
			if fn != "JSON_VALUE" {
				return fail(t.span(), "RETURNING is a clause of JSON_VALUE only, not of %s", fn)
			}
			if end == j+1 {
				return fail(t.span(), "expected a type after RETURNING")
			}
			sp := &stmtParser{src: rw.src, toks: toks[j+1 : end], end: toks[end-1].end, l: rw.l}
			ok := func() (ok bool) {
				defer func() {
					if r := recover(); r != nil {
						if _, isBail := r.(bailout); !isBail {
							panic(r)
						}
						ok = false
					}
				}()
				c.Returning = sp.typeName()
				if sp.i < len(sp.toks) {
					sp.failf(diag.SyntaxError, sp.peek().span(), "unexpected %s after the RETURNING type", sp.peek().describe())
				}
				return true
			}()
			if !ok {
				rw.failed = true
				rw.hide(k, closeAt+1)
				return closeAt + 1
			}
			j = end
		case t.is("WITH") || t.is("WITHOUT"):
			if fn != "JSON_QUERY" {
				return fail(t.span(), "a WRAPPER clause is JSON_QUERY's")
			}
			w := strings.ToUpper(t.val)
			i := j + 1
			if t.is("WITH") {
				w = "WITH UNCONDITIONAL"
				if i < closeAt && (toks[i].is("CONDITIONAL") || toks[i].is("UNCONDITIONAL")) {
					w = "WITH " + strings.ToUpper(toks[i].val)
					i++
				}
			}
			if i < closeAt && toks[i].is("ARRAY") {
				i++
			}
			if i >= closeAt || !toks[i].is("WRAPPER") {
				return fail(t.span(), "expected WITHOUT [ARRAY] WRAPPER or WITH [CONDITIONAL | UNCONDITIONAL] [ARRAY] WRAPPER")
			}
			c.Wrapper = w
			j = i + 1
		case t.is("DEFAULT"):
			// DEFAULT expr ON EMPTY|ERROR: expr runs to that ON.
			on := -1
			for _, x := range top {
				if x > j {
					if _, _, ok := onTarget(x); ok {
						on = x
						break
					}
				}
			}
			if on < 0 || on == j+1 {
				return fail(t.span(), "expected DEFAULT value ON EMPTY or DEFAULT value ON ERROR")
			}
			def := parseExprRegion(rw.src, toks[j+1:on], rw.l)
			if def == nil {
				rw.failed = true
				rw.hide(k, closeAt+1)
				return closeAt + 1
			}
			target, after, _ := onTarget(on)
			if !set(target, "DEFAULT", def, diag.Span{Start: t.start, End: toks[after-1].end}) {
				rw.hide(k, closeAt+1)
				return closeAt + 1
			}
			j = after
		default:
			mode := strings.ToUpper(t.val)
			i := j + 1
			if t.is("EMPTY") && i < closeAt && (toks[i].is("ARRAY") || toks[i].is("OBJECT")) {
				mode += " " + strings.ToUpper(toks[i].val)
				i++
			}
			target, after, ok := onTarget(i)
			if !ok || !jsonClauseAt(toks, j) {
				return fail(t.span(), "unexpected %s in %s: expected RETURNING, a WRAPPER clause, or … ON EMPTY / … ON ERROR", t.describe(), fn)
			}
			if !set(target, mode, nil, diag.Span{Start: t.start, End: toks[after-1].end}) {
				rw.hide(k, closeAt+1)
				return closeAt + 1
			}
			j = after
		}
	}
	rw.jsons = append(rw.jsons, c)
	rw.replace(k, closeAt+1, "@_j"+strconv.Itoa(len(rw.jsons)-1))
	return closeAt + 1
}

// isJSONConstructor reports whether t starts JSON_OBJECT(…) or
// JSON_ARRAY(…).
func isJSONConstructor(toks []token, k int) bool {
	t := toks[k]
	return (t.is("JSON_OBJECT") || t.is("JSON_ARRAY")) && k+1 < len(toks) && toks[k+1].isOp("(")
}

// jsonConstruct parses JSON_OBJECT([[KEY] k VALUE v, …] [{NULL | ABSENT} ON
// NULL]) or JSON_ARRAY([v, …] [… ON NULL]) at k and replaces it with the
// placeholder @_o<i>; it returns the index after the call.
func (rw *rewriter) jsonConstruct(k int) int {
	toks := rw.toks
	closeAt := matchParen(toks, k+1)
	if closeAt < 0 {
		return len(toks)
	}
	fn := strings.ToUpper(toks[k].val)
	c := &ast.JSONConstruct{Func: fn}
	c.S = diag.Span{Start: toks[k].start, End: toks[closeAt].end}
	fail := func(sp diag.Span, format string, args ...any) int {
		rw.errorf(diag.SyntaxError, sp, format, args...)
		rw.hide(k, closeAt+1)
		return closeAt + 1
	}
	end := closeAt
	if n := end - (k + 2); n >= 3 && toks[end-1].is("NULL") && toks[end-2].is("ON") && (toks[end-3].is("NULL") || toks[end-3].is("ABSENT")) {
		c.OnNull = strings.ToUpper(toks[end-3].val)
		end -= 3
	}
	// The items, split at top-level commas.
	var items [][2]int
	start, depth := k+2, 0
	for j := k + 2; j <= end; j++ {
		switch {
		case j < end && (toks[j].isOp("(") || toks[j].isOp("[")):
			depth++
		case j < end && (toks[j].isOp(")") || toks[j].isOp("]")):
			depth--
		case j == end || depth == 0 && toks[j].isOp(","):
			if j == end && start == end && len(items) == 0 {
				break // no items
			}
			if start >= j {
				return fail(toks[min(j, closeAt)].span(), "expected a value in %s", fn)
			}
			items = append(items, [2]int{start, j})
			start = j + 1
		}
	}
	parse := func(from, to int) ast.Expr {
		e := parseExprRegion(rw.src, toks[from:to], rw.l)
		if e == nil {
			rw.failed = true
		}
		return e
	}
	for _, it := range items {
		if fn == "JSON_ARRAY" {
			c.Values = append(c.Values, parse(it[0], it[1]))
			continue
		}
		from := it[0]
		if toks[from].is("KEY") && from+1 < it[1] && !toks[from+1].is("VALUE") {
			from++
		}
		val, d := -1, 0
		for j := from; j < it[1]; j++ {
			switch {
			case toks[j].isOp("(") || toks[j].isOp("["):
				d++
			case toks[j].isOp(")") || toks[j].isOp("]"):
				d--
			case d == 0 && toks[j].is("VALUE") && val < 0:
				val = j
			}
		}
		if val <= from || val+1 >= it[1] {
			return fail(diag.Span{Start: toks[it[0]].start, End: toks[it[1]-1].end}, "expected [KEY] key VALUE value in JSON_OBJECT, as in JSON_OBJECT(KEY 'id' VALUE id)")
		}
		c.Keys = append(c.Keys, parse(from, val))
		c.Values = append(c.Values, parse(val+1, it[1]))
	}
	if rw.failed {
		rw.hide(k, closeAt+1)
		return closeAt + 1
	}
	rw.jsonCons = append(rw.jsonCons, c)
	rw.replace(k, closeAt+1, "@_o"+strconv.Itoa(len(rw.jsonCons)-1))
	return closeAt + 1
}
