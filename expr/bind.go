package expr

import (
	"fmt"
	"github.com/streamsql/streamsql/civil"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/streamsql/streamsql/ast"
	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/types"
)

// ScopeColumn is one column visible to an expression.
type ScopeColumn struct {
	// Qualifier is the alias (or name) of the table the column comes from;
	// empty for derived columns without one.
	Qualifier string
	Name      string
	T         types.T
	Time      TimeAttr
	// Ungrouped marks an input column seen from above a GROUP BY: it may
	// only be used inside an aggregate.
	Ungrouped bool
}

// Scope is the list of columns an expression can name. A column's index in
// Cols is its input index.
type Scope struct {
	Cols []ScopeColumn
	// Tables lists the qualifiers in scope, with the table each stands for
	// (for messages such as "o (payment_orders) has no column ...").
	Tables []ScopeTable
}

// ScopeTable is a qualifier in scope.
type ScopeTable struct {
	Alias, Table string
}

// Hook lets the caller replace a sub-expression before it is bound: the
// planner uses it for aggregate calls and grouped expressions. It returns
// false to let binding go on normally.
type Hook func(e ast.Expr) (Expr, bool)

// Binder binds expressions against a scope.
type Binder struct {
	Scope *Scope
	Hook  Hook
	L     *diag.List
	// Clause names where the expression stands (WHERE, ON, a computed
	// column ...) for messages.
	Clause string
}

// Bind binds e. It returns nil after reporting errors; it reports as many
// independent errors as it can find.
func (b *Binder) Bind(e ast.Expr) Expr {
	n := b.L.Errors()
	out := b.bind(e)
	if b.L.Errors() > n {
		return nil
	}
	return out
}

// BindBool binds a condition and checks that it is BOOLEAN.
func (b *Binder) BindBool(e ast.Expr) Expr {
	x := b.Bind(e)
	if x != nil && x.Type().Kind != types.Boolean && x.Type().Kind != types.Null {
		b.L.Errorf(diag.TypeMismatch, e.Span(), "%s condition must be BOOLEAN, but %s is %s", b.Clause, ast.Format(e), x.Type())
		return nil
	}
	return x
}

var boolT = types.New(types.Boolean)

// bind returns a best-effort expression; after an error it returns a NULL
// constant so that siblings are still checked.
func (b *Binder) bind(e ast.Expr) Expr {
	if b.Hook != nil {
		if x, ok := b.Hook(e); ok {
			return x
		}
	}
	if x, ok := b.nested(e); ok {
		return x
	}
	switch e := e.(type) {
	case *ast.ColumnRef:
		if col, fields, ok := b.fieldPath(e); ok {
			return b.fields(b.column(col), col, fields, e.S)
		}
		return b.column(e)
	case *ast.Literal:
		return b.literal(e)
	case *ast.IntervalLit:
		if e.YearMonth {
			return &Const{V: e.Millis, T: types.New(types.IntervalYM).NotNull(), S: e.S}
		}
		return &Const{V: e.Millis, T: types.New(types.Interval).NotNull(), S: e.S}
	case *ast.Paren:
		return b.bind(e.X)
	case *ast.Unary:
		x := b.bind(e.X)
		switch e.Op {
		case "NOT":
			b.wantBool(x, e.X)
			return &Call{Fn: "NOT", Args: []Expr{x}, T: boolT, S: e.S}
		case "-":
			if !x.Type().Kind.IsNumeric() && !x.Type().Kind.IsInterval() && !isNull(x) {
				b.L.Errorf(diag.TypeMismatch, e.S, "cannot negate %s of type %s: expected a number or an interval", ast.Format(e.X), x.Type())
			}
			return &Call{Fn: "NEG", Args: []Expr{x}, T: x.Type(), S: e.S}
		}
		return x
	case *ast.Binary:
		return b.binary(e)
	case *ast.Between:
		x, lo, hi := b.bind(e.X), b.bind(e.Lo), b.bind(e.Hi)
		b.compare(x, lo, e.X, e.Lo, e.Lo.Span(), "BETWEEN")
		b.compare(x, hi, e.X, e.Hi, e.Hi.Span(), "BETWEEN")
		if e.Not {
			return &Call{Fn: "OR", T: boolT, S: e.S, Args: []Expr{
				&Call{Fn: "<", Args: []Expr{x, lo}, T: boolT, S: e.S},
				&Call{Fn: ">", Args: []Expr{x, hi}, T: boolT, S: e.S}}}
		}
		return &Call{Fn: "AND", T: boolT, S: e.S, Args: []Expr{
			&Call{Fn: ">=", Args: []Expr{x, lo}, T: boolT, S: e.S},
			&Call{Fn: "<=", Args: []Expr{x, hi}, T: boolT, S: e.S}}}
	case *ast.IsNull:
		fn := "IS_NULL"
		if e.Not {
			fn = "IS_NOT_NULL"
		}
		return &Call{Fn: fn, Args: []Expr{b.bind(e.X)}, T: boolT.NotNull(), S: e.S}
	case *ast.IsBool:
		x := b.bind(e.X)
		b.wantBool(x, e.X)
		fn := "IS_"
		if e.Not {
			fn += "NOT_"
		}
		if e.Value {
			fn += "TRUE"
		} else {
			fn += "FALSE"
		}
		return &Call{Fn: fn, Args: []Expr{x}, T: boolT.NotNull(), S: e.S}
	case *ast.In:
		x := b.bind(e.X)
		args := []Expr{x}
		for _, it := range e.List {
			y := b.bind(it)
			b.compare(x, y, e.X, it, it.Span(), "IN")
			args = append(args, y)
		}
		var out Expr = &Call{Fn: "IN", Args: args, T: boolT, S: e.S}
		if e.Not {
			out = &Call{Fn: "NOT", Args: []Expr{out}, T: boolT, S: e.S}
		}
		return out
	case *ast.Like:
		x, p := b.bind(e.X), b.bind(e.Pattern)
		fn := "LIKE"
		if e.Similar {
			fn = "SIMILAR TO"
		}
		for i, y := range []Expr{x, p} {
			if !y.Type().Kind.IsString() && !isNull(y) {
				src := []ast.Expr{e.X, e.Pattern}[i]
				b.L.Errorf(diag.TypeMismatch, src.Span(), "%s needs strings, but %s is %s", fn, ast.Format(src), y.Type())
			}
		}
		args := []Expr{x, p}
		if e.Escape != nil {
			if utf8.RuneCountInString(e.Escape.Raw) != 1 {
				b.L.Errorf(diag.WrongArguments, e.Escape.S, "the ESCAPE of %s must be one character, not '%s'", fn, e.Escape.Raw)
			}
			args = append(args, &Const{V: e.Escape.Raw, T: types.CharOf(1).NotNull(), S: e.Escape.S})
		}
		var out Expr = &Call{Fn: fn, Args: args, T: boolT, S: e.S}
		if e.Not {
			out = &Call{Fn: "NOT", Args: []Expr{out}, T: boolT, S: e.S}
		}
		return out
	case *ast.FuncCall:
		return b.call(e)
	case *ast.Cast:
		return b.cast(e)
	case *ast.JSONCall:
		return b.jsonCall(e)
	case *ast.JSONConstruct:
		return b.jsonConstruct(e)
	case *ast.Case:
		return b.caseExpr(e)
	case *ast.SubqueryExpr:
		b.L.Errorf(diag.UnsupportedFeature, e.S, "a subquery is supported only as a condition of WHERE, joined to the rest by AND: x [NOT] IN (SELECT ...) or [NOT] EXISTS (SELECT ...); here (%s) use a join", b.Clause)
		return nullConst(e.S)
	}
	b.L.Errorf(diag.UnsupportedSyntax, e.Span(), "unsupported expression %s", ast.Format(e))
	return nullConst(e.Span())
}

func nullConst(s diag.Span) Expr { return &Const{T: types.New(types.Null), S: s} }

func isNull(e Expr) bool { return e.Type().Kind == types.Null }

func (b *Binder) wantBool(x Expr, src ast.Expr) {
	if k := x.Type().Kind; k != types.Boolean && k != types.Null {
		b.L.Errorf(diag.TypeMismatch, src.Span(), "expected a BOOLEAN, but %s is %s", ast.Format(src), x.Type())
	}
}

// compare checks that x and y can be compared.
func (b *Binder) compare(x, y Expr, xs, ys ast.Expr, at diag.Span, op string) bool {
	ordered := op == "BETWEEN" || op == "comparison <" || op == "comparison <=" || op == "comparison >" || op == "comparison >="
	if ordered && types.Comparable(x.Type(), y.Type()) && !types.Orderable(x.Type(), y.Type()) {
		b.L.Errorf(diag.TypeMismatch, at, "%s cannot compare %s values: ARRAY, MAP and ROW values have no order", op, x.Type()).
			WithHint("compare them with = or <>, or compare one of their elements")
		return false
	}
	if types.Comparable(x.Type(), y.Type()) {
		return true
	}
	d := b.L.Errorf(diag.TypeMismatch, at, "type mismatch in %s: %s is %s but %s is %s", op,
		ast.Format(xs), x.Type(), ast.Format(ys), y.Type())
	xt, yt := x.Type().Kind, y.Type().Kind
	switch {
	case xt.IsTimestamp() && yt.IsTimestamp():
		d.WithHint("TIMESTAMP and TIMESTAMP_LTZ do not compare implicitly; CAST one side to the other's type")
	case xt.IsTimestamp() && yt.IsIntegral() || yt.IsTimestamp() && xt.IsIntegral():
		d.WithHint("an epoch number is not a time: convert it with TO_TIMESTAMP_LTZ(epoch, 3) for milliseconds or TO_TIMESTAMP_LTZ(epoch, 0) for seconds")
	default:
		d.WithHint("CAST one side so that both have the same type, e.g. CAST(%s AS %s)", ast.Format(ys), x.Type())
	}
	return false
}

func (b *Binder) binary(e *ast.Binary) Expr {
	l, r := b.bind(e.L), b.bind(e.R)
	switch e.Op {
	case "AND", "OR":
		b.wantBool(l, e.L)
		b.wantBool(r, e.R)
		return &Call{Fn: e.Op, Args: []Expr{l, r}, T: boolT, S: e.S}
	case "=", "<>", "<", "<=", ">", ">=":
		b.compare(l, r, e.L, e.R, e.S, "comparison "+e.Op)
		return &Call{Fn: e.Op, Args: []Expr{l, r}, T: boolT, S: e.S}
	case "IS DISTINCT FROM", "IS NOT DISTINCT FROM":
		// Null-safe comparisons: never NULL (NULL IS NOT DISTINCT FROM
		// NULL is TRUE).
		b.compare(l, r, e.L, e.R, e.S, e.Op)
		return &Call{Fn: e.Op, Args: []Expr{l, r}, T: boolT.NotNull(), S: e.S}
	case "||":
		for i, x := range []Expr{l, r} {
			if !x.Type().Kind.IsString() && !isNull(x) {
				src := []ast.Expr{e.L, e.R}[i]
				b.L.Errorf(diag.TypeMismatch, src.Span(), "|| concatenates strings, but %s is %s; CAST it to STRING", ast.Format(src), x.Type())
			}
		}
		return &Call{Fn: "||", Args: []Expr{l, r}, T: types.StringType(), S: e.S}
	}
	if isNull(l) || isNull(r) {
		t := l.Type()
		if isNull(l) {
			t = r.Type()
		}
		return &Call{Fn: e.Op, Args: []Expr{l, r}, T: t.WithNullable(true), S: e.S}
	}
	t, ok := types.ArithmeticResult(e.Op, l.Type(), r.Type())
	if !ok {
		d := b.L.Errorf(diag.TypeMismatch, e.S, "cannot apply %s to %s (%s) and %s (%s)", e.Op,
			ast.Format(e.L), l.Type(), ast.Format(e.R), r.Type())
		if l.Type().Kind.IsTimestamp() && r.Type().Kind.IsIntegral() {
			d.WithHint("add an INTERVAL to a timestamp, e.g. %s - INTERVAL '5' SECOND", ast.Format(e.L))
		}
		return &Call{Fn: e.Op, Args: []Expr{l, r}, T: l.Type(), S: e.S}
	}
	return &Call{Fn: e.Op, Args: []Expr{l, r}, T: t, S: e.S}
}

// Resolve finds the column a reference names, reporting unknown and
// ambiguous names. It returns -1 after an error.
func (s *Scope) Resolve(ref *ast.ColumnRef, l *diag.List) int {
	name := ref.Name.Name
	if ref.Qualifier != nil {
		q := ref.Qualifier.Name
		known := false
		for _, t := range s.Tables {
			if t.Alias == q {
				known = true
			}
		}
		if !known {
			// Suggest only tables that have the column: a close alias
			// without it would send the user to another error.
			var names, having []string
			for _, t := range s.Tables {
				names = append(names, t.Alias)
				for _, c := range s.Cols {
					if c.Qualifier == t.Alias && c.Name == name && !slices.Contains(having, t.Alias) {
						having = append(having, t.Alias)
					}
				}
			}
			d := l.Errorf(diag.UnknownTable, ref.Qualifier.S, "unknown table or alias %s in %s", q, ast.Format(ref))
			switch sg := diag.Suggest(q, having); {
			case sg != "":
				d.WithHint("did you mean %s.%s?", sg, name)
			case len(having) == 1:
				d.WithHint("did you mean %s.%s?", having[0], name)
			case len(having) > 0:
				d.WithHint("%s is a column of %s", name, strings.Join(having, ", "))
			case len(names) > 0:
				d.WithHint("the tables here are: %s", strings.Join(names, ", "))
			}
			return -1
		}
	}
	var hits []int
	for i, c := range s.Cols {
		if c.Name == name && (ref.Qualifier == nil || c.Qualifier == ref.Qualifier.Name) {
			hits = append(hits, i)
		}
	}
	switch {
	case len(hits) == 1:
		return hits[0]
	case len(hits) > 1:
		var quals []string
		same := ""
		for _, h := range hits {
			q := s.Cols[h].Qualifier
			if q == "" || slices.Contains(quals, q+"."+name) {
				// Two columns of one name in one input: a qualifier
				// cannot tell them apart.
				same = q
				continue
			}
			quals = append(quals, q+"."+name)
		}
		if same != "" || ref.Qualifier != nil {
			in := "its input"
			if same != "" {
				in = same
			}
			l.Errorf(diag.AmbiguousColumn, ref.S, "column %s is ambiguous: %s has more than one column of that name", name, in).
				WithHint("rename one of them with AS where %s is made (a window TVF adds window_start, window_end and window_time to its input's columns)", in)
			return -1
		}
		l.Errorf(diag.AmbiguousColumn, ref.S, "column %s is ambiguous: it is in more than one table", name).
			WithHint("qualify it: %s", strings.Join(quals, " or "))
		return -1
	}
	// Not found: say where we looked and what is close.
	var cands []string
	for _, c := range s.Cols {
		if ref.Qualifier == nil || c.Qualifier == ref.Qualifier.Name {
			if c.Name != "" && !slices.Contains(cands, c.Name) { // "": not to be named
				cands = append(cands, c.Name)
			}
		}
	}
	where := ""
	if ref.Qualifier != nil {
		where = " in " + ref.Qualifier.Name + tableOf(s, ref.Qualifier.Name)
	}
	d := l.Errorf(diag.UnknownColumn, ref.Name.S, "unknown column %s%s", name, where)
	var elsewhere []string
	if ref.Qualifier != nil {
		for _, c := range s.Cols {
			if c.Name == name && c.Qualifier != "" && !slices.Contains(elsewhere, c.Qualifier+"."+name) {
				elsewhere = append(elsewhere, c.Qualifier+"."+name)
			}
		}
	}
	if len(elsewhere) > 0 {
		d.WithHint("did you mean %s?", strings.Join(elsewhere, " or "))
	} else if sg := diag.Suggest(name, cands); sg != "" {
		d.WithHint("did you mean %s?", sg)
	} else if len(cands) > 0 && len(cands) <= 12 {
		d.WithHint("the columns here are: %s", strings.Join(cands, ", "))
	}
	return -1
}

func tableOf(s *Scope, alias string) string {
	for _, t := range s.Tables {
		if t.Alias == alias && t.Table != "" && t.Table != alias {
			return " (" + t.Table + ")"
		}
	}
	return ""
}

func (b *Binder) column(e *ast.ColumnRef) Expr {
	if len(e.Path) > 0 {
		// t.r.f where t is no table here, nor r.f a column's field.
		b.L.Errorf(diag.UnknownTable, e.Qualifier.S, "%s is neither a table nor a ROW column here, in %s", e.Qualifier.Name, ast.Format(e))
		return nullConst(e.S)
	}
	i := b.Scope.Resolve(e, b.L)
	if i < 0 {
		return nullConst(e.S)
	}
	c := b.Scope.Cols[i]
	if c.Ungrouped {
		b.L.Errorf(diag.AggregateMisuse, e.S, "column %s must appear in GROUP BY or be used inside an aggregate function", ast.Format(e))
		return nullConst(e.S)
	}
	return &Column{Index: i, Name: c.Name, T: c.T, Time: c.Time, S: e.S}
}

func (b *Binder) literal(e *ast.Literal) Expr {
	switch e.Kind {
	case ast.NullLit:
		return nullConst(e.S)
	case ast.BoolLit:
		return &Const{V: e.Raw == "TRUE", T: boolT.NotNull(), S: e.S}
	case ast.IntLit:
		n, err := strconv.ParseInt(e.Raw, 10, 64)
		if err != nil {
			if len(strings.TrimLeft(e.Raw, "0")) <= types.MaxDecimalPrecision {
				return &Const{V: e.Raw, T: types.DecimalOf(max(len(e.Raw), 1), 0).NotNull(), S: e.S}
			}
			b.L.Errorf(diag.InvalidLiteral, e.S, "number %s is too large", e.Raw)
			return nullConst(e.S)
		}
		if n >= math.MinInt32 && n <= math.MaxInt32 {
			return &Const{V: n, T: types.New(types.Int).NotNull(), S: e.S}
		}
		return &Const{V: n, T: types.New(types.BigInt).NotNull(), S: e.S}
	case ast.DecimalLit:
		intPart, frac, _ := strings.Cut(e.Raw, ".")
		intPart = strings.TrimLeft(intPart, "0")
		p, s := max(len(intPart)+len(frac), 1), len(frac)
		if p > types.MaxDecimalPrecision {
			if _, ok := new(big.Float).SetString(e.Raw); ok {
				f, _ := strconv.ParseFloat(e.Raw, 64)
				return &Const{V: f, T: types.New(types.Double).NotNull(), S: e.S}
			}
		}
		return &Const{V: e.Raw, T: types.DecimalOf(p, s).NotNull(), S: e.S}
	case ast.FloatLit:
		f, err := strconv.ParseFloat(e.Raw, 64)
		if err != nil {
			b.L.Errorf(diag.InvalidLiteral, e.S, "invalid number %s", e.Raw)
			return nullConst(e.S)
		}
		return &Const{V: f, T: types.New(types.Double).NotNull(), S: e.S}
	case ast.StringLitKind:
		return &Const{V: e.Raw, T: types.CharOf(max(len([]rune(e.Raw)), 1)).NotNull(), S: e.S}
	case ast.TimestampLit:
		p, why := parseTemporal(e.Raw, true)
		if why != "" {
			b.L.Errorf(diag.InvalidLiteral, e.S, "invalid TIMESTAMP literal '%s': %s", e.Raw, why)
			return nullConst(e.S)
		}
		return &Const{V: e.Raw, T: types.TimestampOf(p).NotNull(), S: e.S}
	case ast.DateLit:
		if _, err := civil.ParseDate(e.Raw, civil.Strict); err != nil {
			why := "expected 'yyyy-MM-dd'"
			if len(e.Raw) == len("yyyy-MM-dd") && !strings.HasPrefix(err.Error(), "expected") {
				why = err.Error()
			}
			b.L.Errorf(diag.InvalidLiteral, e.S, "invalid DATE literal '%s': %s", e.Raw, why)
			return nullConst(e.S)
		}
		return &Const{V: e.Raw, T: types.New(types.Date).NotNull(), S: e.S}
	case ast.TimeLit:
		p, why := parseTemporal(e.Raw, false)
		if why != "" {
			b.L.Errorf(diag.InvalidLiteral, e.S, "invalid TIME literal '%s': %s", e.Raw, why)
			return nullConst(e.S)
		}
		return &Const{V: e.Raw, T: types.TimeOf(p).NotNull(), S: e.S}
	case ast.SymbolLit:
		b.L.Errorf(diag.SyntaxError, e.S, "unexpected keyword %s here", e.Raw)
		return nullConst(e.S)
	}
	b.L.Errorf(diag.InvalidLiteral, e.S, "unsupported literal %s", e.Raw)
	return nullConst(e.S)
}

// parseTemporal checks a TIMESTAMP (timestamp) or TIME literal and returns
// its fractional-second precision, or why it is not one. The shape is
// Flink's literal: 'yyyy-MM-dd HH:mm:ss[.f...]' (or with 'T'), 'HH:mm:ss[.f...]',
// seconds written and no zone; the fields are checked as the formats
// check them (civil.Strict), so a literal check accepts is one the runtime
// reads.
func parseTemporal(s string, timestamp bool) (int, string) {
	shape, baseLen := "expected 'HH:mm:ss[.fff]'", len("HH:mm:ss")
	if timestamp {
		shape, baseLen = "expected 'yyyy-MM-dd HH:mm:ss[.fff]'", len("yyyy-MM-dd HH:mm:ss")
	}
	base, frac, hasFrac := strings.Cut(s, ".")
	if len(base) != baseLen || hasFrac && (len(frac) == 0 || len(frac) > types.MaxTimePrecision) {
		return 0, shape
	}
	for _, r := range frac {
		if r < '0' || r > '9' {
			return 0, shape
		}
	}
	var err error
	if timestamp {
		_, err = civil.ParseTimestamp(s, civil.Strict)
	} else {
		_, err = civil.ParseTime(s, civil.Strict)
	}
	switch {
	case err == nil:
		return len(frac), ""
	case strings.HasPrefix(err.Error(), "expected"):
		return 0, shape
	}
	return 0, err.Error()
}

func (b *Binder) cast(e *ast.Cast) Expr {
	x := b.bind(e.X)
	to, ok := types.FromAST(e.Type, b.L)
	if !ok {
		return nullConst(e.S)
	}
	fn := "CAST"
	if e.Try {
		fn = "TRY_CAST"
	}
	from := x.Type()
	if !isNull(x) && !types.CanCast(from, to) {
		d := b.L.Errorf(diag.TypeMismatch, e.S, "cannot CAST %s from %s to %s", ast.Format(e.X), from, to)
		if from.Kind.IsNumeric() && to.Kind.IsTimestamp() {
			d.WithHint("an epoch number becomes a time with TO_TIMESTAMP_LTZ(%s, 3) for milliseconds or TO_TIMESTAMP_LTZ(%s, 0) for seconds", ast.Format(e.X), ast.Format(e.X))
		}
	}
	return &Call{Fn: fn, Args: []Expr{x}, T: to.WithNullable(from.Nullable || e.Try), S: e.S}
}

func (b *Binder) caseExpr(e *ast.Case) Expr {
	var args []Expr
	var op Expr
	if e.Operand != nil {
		op = b.bind(e.Operand)
	}
	var result types.T
	first := true
	add := func(x Expr, src ast.Expr) {
		if isNull(x) {
			return
		}
		if first {
			result, first = x.Type(), false
			return
		}
		t, ok := types.CommonType(result, x.Type())
		if !ok {
			b.L.Errorf(diag.TypeMismatch, src.Span(), "CASE results have no common type: %s is %s, earlier results are %s", ast.Format(src), x.Type(), result)
			return
		}
		result = t
	}
	for _, w := range e.Whens {
		var cond Expr
		if op != nil {
			v := b.bind(w.Cond)
			b.compare(op, v, e.Operand, w.Cond, w.Cond.Span(), "CASE")
			cond = &Call{Fn: "=", Args: []Expr{op, v}, T: boolT, S: w.Cond.Span()}
		} else {
			cond = b.bind(w.Cond)
			b.wantBool(cond, w.Cond)
		}
		r := b.bind(w.Result)
		add(r, w.Result)
		args = append(args, cond, r)
	}
	if e.Else != nil {
		x := b.bind(e.Else)
		add(x, e.Else)
		args = append(args, x)
	}
	if first {
		result = types.New(types.Null)
	}
	return &Call{Fn: "CASE", Args: args, T: result.WithNullable(true), S: e.S}
}

func (b *Binder) call(e *ast.FuncCall) Expr {
	name := strings.ToUpper(e.Name.Name)
	if e.Filter != nil && !IsAggregate(name) {
		b.L.Errorf(diag.AggregateMisuse, e.Filter.Span(), "FILTER (WHERE ...) applies to aggregate functions only, and %s is not one", name)
		return nullConst(e.S)
	}
	if e.Over != nil {
		where := "here"
		if b.Clause != "" {
			where = "in " + b.Clause
		}
		b.L.Errorf(diag.UnsupportedFeature, e.S, "window function %s(...) OVER is not allowed %s: it belongs in the select list", name, where).
			WithHint("number the rows in a subquery and filter in the outer query: SELECT * FROM (SELECT *, ROW_NUMBER() OVER (...) AS rn FROM t) WHERE rn <= 3")
		return nullConst(e.S)
	}
	if IsAggregate(name) {
		where := "here"
		if b.Clause != "" {
			where = "in " + b.Clause
		}
		b.L.Errorf(diag.AggregateMisuse, e.S, "aggregate function %s is not allowed %s", name, where)
		return nullConst(e.S)
	}
	f, ok := functions[name]
	if !ok && flinkUnsupported(name) {
		d := b.L.Errorf(diag.UnsupportedFeature, e.Name.S, "%s is a built-in function of Flink's that streamsql does not support yet", name)
		if alt := unsupportedAdvice[name]; alt != "" {
			d.WithHint("%s", alt)
		}
		return nullConst(e.S)
	}
	if !ok {
		d := b.L.Errorf(diag.UnknownFunction, e.Name.S, "unknown function %s", name)
		if sg := diag.Suggest(name, FunctionNames()); sg != "" {
			d.WithHint("did you mean %s?", sg)
		}
		return nullConst(e.S)
	}
	if e.Distinct || e.Star {
		b.L.Errorf(diag.WrongArguments, e.S, "%s is not an aggregate: DISTINCT and * are not allowed in its arguments", name)
		return nullConst(e.S)
	}
	if len(e.Args) < f.min || f.max >= 0 && len(e.Args) > f.max {
		b.L.Errorf(diag.WrongArguments, e.S, "%s takes %s, got %d", name, f.arity(), len(e.Args)).WithHint("usage: %s", f.usage)
		return nullConst(e.S)
	}
	if name == "TIMESTAMPADD" {
		return b.timestampAdd(e, f)
	}
	if name == "EXTRACT" || name == "TIMESTAMPDIFF" {
		return b.unitCall(name, e, f)
	}
	if side, ok := firstArg(e).(*ast.Literal); ok && name == "TRIM" && side.Kind == ast.SymbolLit && len(e.Args) >= 2 {
		return b.trimSide(e, side)
	}
	if name == "TRIM" && len(e.Args) > 1 {
		b.L.Errorf(diag.WrongArguments, e.S, "TRIM takes one string, or TRIM([BOTH | LEADING | TRAILING] chars FROM s)").WithHint("usage: %s", f.usage)
		return nullConst(e.S)
	}
	if (name == "FLOOR" || name == "CEIL") && len(e.Args) == 2 {
		return b.floorCeilTo(name, e, f)
	}
	args := make([]Expr, len(e.Args))
	for i, a := range e.Args {
		args[i] = b.bind(a)
	}
	t, err := f.check(args)
	if err != "" {
		b.L.Errorf(diag.WrongArguments, e.S, "%s: %s", name, err).WithHint("usage: %s", f.usage)
		return nullConst(e.S)
	}
	return &Call{Fn: name, Args: args, T: t, S: e.S}
}

// unitCall binds functions whose first argument is a time unit keyword.
func (b *Binder) unitCall(name string, e *ast.FuncCall, f *fn) Expr {
	lit, ok := e.Args[0].(*ast.Literal)
	if !ok || lit.Kind != ast.SymbolLit {
		b.L.Errorf(diag.WrongArguments, e.S, "%s needs a time unit first", name).WithHint("usage: %s", f.usage)
		return nullConst(e.S)
	}
	args := []Expr{&Const{V: strings.ToUpper(lit.Raw), T: types.StringType().NotNull(), S: lit.S}}
	for _, a := range e.Args[1:] {
		x := b.bind(a)
		if !x.Type().Kind.IsTemporal() && !isNull(x) {
			b.L.Errorf(diag.WrongArguments, a.Span(), "%s needs a DATE, TIME or TIMESTAMP, but %s is %s", name, ast.Format(a), x.Type())
		}
		args = append(args, x)
	}
	t := types.New(types.BigInt)
	if name == "TIMESTAMPDIFF" {
		t = types.New(types.Int)
	}
	return &Call{Fn: name, Args: args, T: t, S: e.S}
}

// floorCeilUnits are the units of FLOOR(t TO unit) and CEIL(t TO unit),
// shortest first: Flink's (Calcite's TimeUnitRange) that round a time.
var floorCeilUnits = []string{"MILLISECOND", "SECOND", "MINUTE", "HOUR", "DAY", "WEEK", "MONTH", "QUARTER", "YEAR", "DECADE", "CENTURY", "MILLENNIUM"}

// floorCeilTo binds FLOOR(t TO unit) and CEIL(t TO unit): t a DATE, TIME,
// TIMESTAMP or TIMESTAMP_LTZ, rounded down (up) to a whole unit; the result
// has t's type. A DATE takes DAY and longer units, a TIME HOUR and shorter
// ones.
func (b *Binder) floorCeilTo(name string, e *ast.FuncCall, f *fn) Expr {
	lit, ok := e.Args[1].(*ast.Literal)
	if !ok || lit.Kind != ast.SymbolLit {
		b.L.Errorf(diag.WrongArguments, e.S, "%s takes one number, or a time and a unit as in %s(ts TO HOUR)", name, name).WithHint("usage: %s", f.usage)
		return nullConst(e.S)
	}
	unit := strings.ToUpper(lit.Raw)
	i := slices.Index(floorCeilUnits, unit)
	if i < 0 {
		b.L.Errorf(diag.WrongArguments, lit.S, "%s(... TO %s): unknown unit %s", name, lit.Raw, lit.Raw).
			WithHint("use one of %s", strings.Join(floorCeilUnits, ", "))
		return nullConst(e.S)
	}
	x := b.bind(e.Args[0])
	t := x.Type()
	switch {
	case isNull(x):
		t = types.TimestampOf(3)
	case !t.Kind.IsTemporal():
		b.L.Errorf(diag.WrongArguments, e.Args[0].Span(), "%s(... TO %s) needs a DATE, TIME or TIMESTAMP, but %s is %s", name, unit, ast.Format(e.Args[0]), t)
		return nullConst(e.S)
	case t.Kind == types.Date && i < slices.Index(floorCeilUnits, "DAY"):
		b.L.Errorf(diag.WrongArguments, lit.S, "%s of a DATE takes DAY or a longer unit, not %s", name, unit).
			WithHint("cast the DATE to a TIMESTAMP first: %s(CAST(%s AS TIMESTAMP(3)) TO %s)", name, ast.Format(e.Args[0]), unit)
		return nullConst(e.S)
	case t.Kind == types.Time && i > slices.Index(floorCeilUnits, "HOUR"):
		b.L.Errorf(diag.WrongArguments, lit.S, "%s of a TIME takes HOUR or a shorter unit, not %s", name, unit)
		return nullConst(e.S)
	}
	return &Call{Fn: name, Args: []Expr{x, &Const{V: unit, T: types.StringType().NotNull(), S: lit.S}}, T: t, S: e.S}
}

// timestampAddUnits are the units of TIMESTAMPADD, Flink's (Calcite's)
// list, and whether a unit is shorter than a day.
var timestampAddUnits = map[string]bool{
	"MILLISECOND": true, "SECOND": true, "MINUTE": true, "HOUR": true,
	"DAY": false, "WEEK": false, "MONTH": false, "QUARTER": false, "YEAR": false,
}

// timestampAdd binds TIMESTAMPADD(unit, n, timepoint). The result has the
// timepoint's type, as in Flink, except that a DATE moved by a unit shorter
// than a day becomes a TIMESTAMP(3). A TIME moves only by HOUR, MINUTE or
// SECOND (Flink keeps a TIME for longer units, whose meaning is unclear:
// refused rather than guessed).
func (b *Binder) timestampAdd(e *ast.FuncCall, f *fn) Expr {
	lit, ok := e.Args[0].(*ast.Literal)
	if !ok || lit.Kind != ast.SymbolLit {
		b.L.Errorf(diag.WrongArguments, e.S, "TIMESTAMPADD needs a time unit first").WithHint("usage: %s", f.usage)
		return nullConst(e.S)
	}
	unit := strings.ToUpper(lit.Raw)
	short, ok := timestampAddUnits[unit]
	if !ok {
		b.L.Errorf(diag.WrongArguments, lit.S, "TIMESTAMPADD does not take the unit %s", unit).
			WithHint("use one of MILLISECOND, SECOND, MINUTE, HOUR, DAY, WEEK, MONTH, QUARTER, YEAR")
		return nullConst(e.S)
	}
	n, tp := b.bind(e.Args[1]), b.bind(e.Args[2])
	bad := false
	if !kindOK(n, isInt) {
		b.L.Errorf(diag.WrongArguments, e.Args[1].Span(), "TIMESTAMPADD needs an integer number of units, but %s is %s", ast.Format(e.Args[1]), n.Type())
		bad = true
	}
	if !kindOK(tp, isTemporal) {
		b.L.Errorf(diag.WrongArguments, e.Args[2].Span(), "TIMESTAMPADD needs a DATE, TIME or TIMESTAMP, but %s is %s", ast.Format(e.Args[2]), tp.Type())
		bad = true
	}
	if bad {
		return nullConst(e.S)
	}
	t := tp.Type()
	switch {
	case t.Kind == types.Null:
		t = types.TimestampOf(3)
	case t.Kind == types.Date && short:
		t = types.TimestampOf(3)
	case t.Kind == types.Time && (!short || unit == "MILLISECOND"):
		b.L.Errorf(diag.WrongArguments, lit.S, "TIMESTAMPADD of a TIME takes HOUR, MINUTE or SECOND, not %s", unit)
		return nullConst(e.S)
	}
	t = t.WithNullable(n.Type().Nullable || tp.Type().Nullable)
	args := []Expr{&Const{V: unit, T: types.StringType().NotNull(), S: lit.S}, n, tp}
	return &Call{Fn: "TIMESTAMPADD", Args: args, T: t, S: e.S}
}

// describeTypes renders argument types for messages.
func describeTypes(args []Expr) string {
	s := make([]string, len(args))
	for i, a := range args {
		s[i] = a.Type().String()
	}
	return fmt.Sprintf("(%s)", strings.Join(s, ", "))
}

// firstArg is a call's first argument, nil without one.
func firstArg(e *ast.FuncCall) ast.Expr {
	if len(e.Args) == 0 {
		return nil
	}
	return e.Args[0]
}
