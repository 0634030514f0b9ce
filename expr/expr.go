package expr

import (
	"fmt"
	"strings"

	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/types"
)

// TimeAttr says whether a column is a time attribute, and which kind.
type TimeAttr uint8

// Time attribute kinds.
const (
	NoTime   TimeAttr = iota
	RowTime           // event time: the column has a WATERMARK
	ProcTime          // processing time: PROCTIME()
)

func (t TimeAttr) String() string {
	switch t {
	case RowTime:
		return "ROWTIME"
	case ProcTime:
		return "PROCTIME"
	case NoTime:
	}
	return ""
}

// Expr is a bound, typed expression.
type Expr interface {
	Type() types.T
	Span() diag.Span
	String() string
	exprNode()
}

// Column reads input column Index.
type Column struct {
	Index int
	Name  string
	T     types.T
	Time  TimeAttr
	S     diag.Span
}

// Const is a constant. V is nil (NULL), bool, int64 (integers; milliseconds
// for day-time intervals; months for year-month intervals), float64, or
// string (strings, and decimals, timestamps, dates and times in their
// literal text).
type Const struct {
	V any
	T types.T
	S diag.Span
}

// Call applies a function or operator. Fn is the canonical upper-case name:
// an operator (+ - * / % = <> < <= > >= AND OR NOT NEG IS_NULL IS_NOT_NULL
// IS_TRUE IS_NOT_TRUE IS_FALSE IS_NOT_FALSE LIKE IN CASE CAST TRY_CAST ||)
// or a function (COALESCE, TO_TIMESTAMP_LTZ, ...). CASE's arguments are
// cond1, result1, ..., [else]; CAST's single argument is converted to T.
type Call struct {
	Fn   string
	Args []Expr
	T    types.T
	S    diag.Span
}

// Type implements Expr.
func (c *Column) Type() types.T { return c.T }

// Type implements Expr.
func (c *Const) Type() types.T { return c.T }

// Type implements Expr.
func (c *Call) Type() types.T { return c.T }

// Span implements Expr.
func (c *Column) Span() diag.Span { return c.S }

// Span implements Expr.
func (c *Const) Span() diag.Span { return c.S }

// Span implements Expr.
func (c *Call) Span() diag.Span { return c.S }

func (*Column) exprNode() {}
func (*Const) exprNode()  {}
func (*Call) exprNode()   {}

func (c *Column) String() string { return fmt.Sprintf("$%d:%s", c.Index, c.Name) }

func (c *Const) String() string {
	switch v := c.V.(type) {
	case nil:
		return "NULL"
	case string:
		switch c.T.Kind {
		case types.Char, types.Varchar:
			return "'" + strings.ReplaceAll(v, "'", "''") + "'"
		case types.Timestamp, types.TimestampLTZ:
			return "TIMESTAMP '" + v + "'"
		case types.Date:
			return "DATE '" + v + "'"
		case types.Time:
			return "TIME '" + v + "'"
		default: // other kinds print as they are
		}
		return v
	case int64:
		if c.T.Kind == types.Interval {
			return FormatMillis(v)
		}
		return fmt.Sprint(v)
	}
	return fmt.Sprint(c.V)
}

// FormatMillis renders a duration in milliseconds the way EXPLAIN shows
// intervals: 5s, 4h, 1d2h, 250ms, -5s.
func FormatMillis(ms int64) string {
	if ms == 0 {
		return "0s"
	}
	neg := ms < 0
	if neg {
		ms = -ms
	}
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for _, u := range []struct {
		n    int64
		name string
	}{{86_400_000, "d"}, {3_600_000, "h"}, {60_000, "min"}, {1000, "s"}, {1, "ms"}} {
		if ms >= u.n {
			fmt.Fprintf(&b, "%d%s", ms/u.n, u.name)
			ms %= u.n
		}
	}
	return b.String()
}

var infix = map[string]bool{"+": true, "-": true, "*": true, "/": true, "%": true, "=": true, "<>": true, "<": true,
	"<=": true, ">": true, ">=": true, "AND": true, "OR": true, "||": true, "LIKE": true, "SIMILAR TO": true,
	"IS DISTINCT FROM": true, "IS NOT DISTINCT FROM": true}

func (c *Call) String() string {
	return Format(c, func(col *Column) string { return col.String() })
}

// Format renders e as SQL-like text, naming columns with col.
func Format(e Expr, col func(*Column) string) string {
	switch e := e.(type) {
	case *Column:
		return col(e)
	case *Const:
		return e.String()
	case *Call:
		args := make([]string, len(e.Args))
		for i, a := range e.Args {
			args[i] = Format(a, col)
		}
		switch {
		case infix[e.Fn] && len(args) == 2:
			return "(" + args[0] + " " + e.Fn + " " + args[1] + ")"
		case (e.Fn == "LIKE" || e.Fn == "SIMILAR TO") && len(args) == 3:
			return "(" + args[0] + " " + e.Fn + " " + args[1] + " ESCAPE " + args[2] + ")"
		case e.Fn == "TRIM" && len(args) == 2:
			return "TRIM(BOTH " + args[1] + " FROM " + args[0] + ")"
		case e.Fn == "POSITION" && len(args) == 2:
			return "POSITION(" + args[0] + " IN " + args[1] + ")"
		case e.Fn == "OVERLAY" && len(args) >= 3:
			s := "OVERLAY(" + args[0] + " PLACING " + args[1] + " FROM " + args[2]
			if len(args) == 4 {
				s += " FOR " + args[3]
			}
			return s + ")"
		case e.Fn == "NOT":
			return "NOT " + args[0]
		case e.Fn == "IS JSON" && len(args) == 2:
			if k, ok := e.Args[1].(*Const); ok {
				if s, ok := k.V.(string); ok {
					return "(" + args[0] + " IS JSON " + s + ")"
				}
			}
		case e.Fn == "NEG":
			return "-" + args[0]
		case strings.HasPrefix(e.Fn, "IS_"):
			return args[0] + " " + strings.ReplaceAll(e.Fn, "_", " ")
		case e.Fn == "CAST" || e.Fn == "TRY_CAST":
			return e.Fn + "(" + args[0] + " AS " + e.T.String() + ")"
		case (e.Fn == "FLOOR" || e.Fn == "CEIL") && len(args) == 2:
			if u, ok := e.Args[1].(*Const); ok {
				if s, ok := u.V.(string); ok {
					return e.Fn + "(" + args[0] + " TO " + s + ")"
				}
			}
		case e.Fn == "IN":
			return args[0] + " IN (" + strings.Join(args[1:], ", ") + ")"
		case e.Fn == "FIELD" && len(args) == 2:
			return args[0] + "." + fieldName(e)
		case e.Fn == "ITEM" && len(args) == 2:
			return args[0] + "[" + args[1] + "]"
		case e.Fn == "ARRAY" || e.Fn == "MAP":
			return e.Fn + "[" + strings.Join(args, ", ") + "]"
		}
		return e.Fn + "(" + strings.Join(args, ", ") + ")"
	}
	return "?"
}

// FormatBare is Format without the parentheses around a binary operator
// at the top (`a < 18`, not `(a < 18)`); other calls keep theirs.
func FormatBare(e Expr, col func(*Column) string) string {
	s := Format(e, col)
	if c, ok := e.(*Call); ok && infix[c.Fn] && len(c.Args) == 2 {
		return s[1 : len(s)-1]
	}
	return s
}

// Walk calls f for e and each sub-expression, parents first, while f returns
// true.
func Walk(e Expr, f func(Expr) bool) {
	if e == nil || !f(e) {
		return
	}
	if c, ok := e.(*Call); ok {
		for _, a := range c.Args {
			Walk(a, f)
		}
	}
}

// Columns returns the input column indexes e reads, in order of first use.
func Columns(e Expr) []int {
	var out []int
	seen := map[int]bool{}
	Walk(e, func(x Expr) bool {
		if c, ok := x.(*Column); ok && !seen[c.Index] {
			seen[c.Index] = true
			out = append(out, c.Index)
		}
		return true
	})
	return out
}

// Conjuncts splits e at top-level ANDs.
func Conjuncts(e Expr) []Expr {
	if c, ok := e.(*Call); ok && c.Fn == "AND" {
		return append(Conjuncts(c.Args[0]), Conjuncts(c.Args[1])...)
	}
	if e == nil {
		return nil
	}
	return []Expr{e}
}

// And joins conjuncts with AND; nil for none.
func And(es ...Expr) Expr {
	var out Expr
	for _, e := range es {
		if e == nil {
			continue
		}
		if out == nil {
			out = e
			continue
		}
		out = &Call{Fn: "AND", Args: []Expr{out, e}, T: types.New(types.Boolean), S: out.Span().Join(e.Span())}
	}
	return out
}

// Remap returns a copy of e with each column index i replaced by m(i).
func Remap(e Expr, m func(int) int) Expr {
	switch e := e.(type) {
	case *Column:
		c := *e
		c.Index = m(e.Index)
		return &c
	case *Call:
		c := *e
		c.Args = make([]Expr, len(e.Args))
		for i, a := range e.Args {
			c.Args[i] = Remap(a, m)
		}
		return &c
	}
	return e
}
