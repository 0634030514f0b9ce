package parser

import (
	"strconv"
	"strings"

	"github.com/streamsql/streamsql/ast"
	"github.com/streamsql/streamsql/diag"
)

// UNNEST in FROM. TiDB's parser does not know it: the dialect layer reads
//
//	UNNEST(expr [, expr …]) [WITH ORDINALITY] [AS] alias [(col, …)]
//
// itself and puts a placeholder table name, _unnest<i>, in its place; the
// converter turns the placeholder back into the ast.Unnest (query.go).

// isUnnestAt reports whether the UNNEST at k is a FROM item: after FROM,
// JOIN, or a comma of a FROM clause.
func isUnnestAt(toks []token, k int) bool {
	if k == 0 || k+1 >= len(toks) || !toks[k+1].isOp("(") {
		return false
	}
	p := toks[k-1]
	if p.is("FROM") || p.is("JOIN") {
		return true
	}
	if !p.isOp(",") {
		return false
	}
	// A comma of a FROM clause: the nearest clause keyword before it at
	// the same depth is FROM.
	depth := 0
	for j := k - 2; j >= 0; j-- {
		switch t := toks[j]; {
		case t.isOp(")"):
			depth++
		case t.isOp("("):
			if depth == 0 {
				return false
			}
			depth--
		case depth == 0 && t.is("FROM"):
			return true
		case depth == 0 && (t.is("SELECT") || t.is("WHERE") || t.is("ON") || t.is("BY") || t.is("HAVING") || t.is("VALUES")):
			return false
		}
	}
	return false
}

// unnestTable parses UNNEST(…) [WITH ORDINALITY] [AS] alias [(columns)] at
// k and replaces it with a placeholder table name; it returns the index
// after it.
func (rw *rewriter) unnestTable(k int) int {
	toks := rw.toks
	closeAt := matchParen(toks, k+1)
	if closeAt < 0 {
		return len(toks)
	}
	u := &ast.Unnest{}
	u.S = diag.Span{Start: toks[k].start, End: toks[closeAt].end}
	ok := true
	start, depth := k+2, 0
	for i := k + 2; i <= closeAt; i++ {
		switch {
		case toks[i].isOp("(") || toks[i].isOp("["):
			depth++
		case (toks[i].isOp(")") || toks[i].isOp("]")) && i < closeAt:
			depth--
		case depth == 0 && (toks[i].isOp(",") || i == closeAt):
			if start >= i {
				rw.errorf(diag.SyntaxError, toks[i].span(), "expected an ARRAY or MAP expression in UNNEST(…), as in UNNEST(t.tags)")
				rw.hide(k, closeAt+1)
				return closeAt + 1
			}
			e := parseExprRegion(rw.src, toks[start:i], rw.l)
			if e == nil {
				ok = false
			}
			u.Exprs = append(u.Exprs, e)
			start = i + 1
		}
	}
	end := closeAt + 1
	if end+1 < len(toks) && toks[end].is("WITH") && toks[end+1].is("ORDINALITY") {
		u.Ordinality = true
		u.S = u.S.Join(toks[end+1].span())
		end += 2
	}
	j := end
	if j < len(toks) && toks[j].is("AS") {
		j++
	}
	if j < len(toks) && toks[j].isName() && !valuesAliasStop[strings.ToUpper(toks[j].val)] {
		u.Alias = &ast.Ident{Name: toks[j].val, Quoted: toks[j].kind == tQIdent}
		u.Alias.S = toks[j].span()
		end = j + 1
		if end < len(toks) && toks[end].isOp("(") {
			c := matchParen(toks, end)
			if c < 0 {
				return len(toks)
			}
			for i := end + 1; i < c; i++ {
				switch {
				case toks[i].isName() && (i == end+1 || toks[i-1].isOp(",")):
					id := &ast.Ident{Name: toks[i].val, Quoted: toks[i].kind == tQIdent}
					id.S = toks[i].span()
					u.Columns = append(u.Columns, id)
				case toks[i].isOp(",") && i > end+1 && toks[i-1].isName():
				default:
					rw.errorf(diag.SyntaxError, toks[i].span(), "expected the column names of %s, as in UNNEST(t.tags) AS u (tag)", u.Alias.Name)
					rw.hide(k, c+1)
					return c + 1
				}
			}
			if len(u.Columns) == 0 || toks[c-1].isOp(",") {
				rw.errorf(diag.SyntaxError, toks[end].span(), "expected the column names of %s, as in UNNEST(t.tags) AS u (tag)", u.Alias.Name)
				rw.hide(k, c+1)
				return c + 1
			}
			end = c + 1
		}
		u.S = u.S.Join(toks[end-1].span())
	} else if j > end {
		rw.errorf(diag.SyntaxError, toks[min(j, len(toks)-1)].span(), "expected a name for UNNEST(…) after AS, as in UNNEST(t.tags) AS u (tag)")
		ok = false
	}
	if !ok {
		rw.failed = true
		rw.hide(k, end)
		return end
	}
	rw.unnests = append(rw.unnests, u)
	rw.replace(k, end, "_unnest"+strconv.Itoa(len(rw.unnests)-1))
	return end
}
