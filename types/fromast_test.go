package types

import (
	"strings"
	"testing"

	"github.com/streamsql/streamsql/ast"
	"github.com/streamsql/streamsql/diag"
)

var typeSpan = diag.Span{Start: 17, End: 29}

// tn builds a type name as the parser would: an upper-cased name, and
// parameters when any are given.
func tn(name string, params ...int) *ast.TypeName {
	return &ast.TypeName{Loc: ast.Loc{S: typeSpan}, Name: name, Params: params, HasParams: len(params) > 0}
}

func TestFromAST(t *testing.T) {
	tests := []struct {
		in   *ast.TypeName
		want string // String() of the result
	}{
		{tn("BOOLEAN"), "BOOLEAN"},
		{tn("TINYINT"), "TINYINT"},
		{tn("SMALLINT"), "SMALLINT"},
		{tn("INT"), "INT"},
		{tn("INTEGER"), "INT"},
		{tn("BIGINT"), "BIGINT"},
		{tn("FLOAT"), "FLOAT"},
		{tn("REAL"), "FLOAT"},
		{tn("DOUBLE"), "DOUBLE"},
		{tn("DOUBLE PRECISION"), "DOUBLE"},
		{tn("double  precision"), "DOUBLE"},
		{tn("STRING"), "STRING"},
		{tn("VARCHAR"), "VARCHAR(1)"},
		{tn("VARCHAR", 10), "VARCHAR(10)"},
		{tn("VARCHAR", MaxLength), "STRING"},
		{tn("CHAR"), "CHAR(1)"},
		{tn("CHARACTER", 3), "CHAR(3)"},
		{tn("BYTES"), "BYTES"},
		{tn("BINARY", 16), "BINARY(16)"},
		{tn("VARBINARY"), "VARBINARY(1)"},
		{tn("VARBINARY", 64), "VARBINARY(64)"},
		{tn("DECIMAL"), "DECIMAL(10, 0)"},
		{tn("DECIMAL", 15, 2), "DECIMAL(15, 2)"},
		{tn("DEC", 5), "DECIMAL(5, 0)"},
		{tn("NUMERIC", 38, 38), "DECIMAL(38, 38)"},
		{tn("DATE"), "DATE"},
		{tn("TIME"), "TIME(0)"},
		{tn("TIME", 3), "TIME(3)"},
		{tn("TIMESTAMP"), "TIMESTAMP(6)"},
		{tn("TIMESTAMP", 3), "TIMESTAMP(3)"},
		{tn("TIMESTAMP", 0), "TIMESTAMP(0)"},
		{tn("TIMESTAMP", 9), "TIMESTAMP(9)"},
		{tn("TIMESTAMP WITHOUT TIME ZONE", 3), "TIMESTAMP(3)"},
		{tn("TIMESTAMP_LTZ"), "TIMESTAMP_LTZ(6)"},
		{tn("TIMESTAMP_LTZ", 3), "TIMESTAMP_LTZ(3)"},
		{tn("TIMESTAMP WITH LOCAL TIME ZONE", 3), "TIMESTAMP_LTZ(3)"},
		{tn("INTERVAL DAY TO SECOND"), "INTERVAL DAY TO SECOND(3)"},
		{tn("INTERVAL SECOND"), "INTERVAL DAY TO SECOND(3)"},
		{tn("INTERVAL YEAR TO MONTH"), "INTERVAL YEAR TO MONTH"},
		{&ast.TypeName{Loc: ast.Loc{S: typeSpan}, Name: "BIGINT", NotNull: true}, "BIGINT NOT NULL"},
		{&ast.TypeName{Loc: ast.Loc{S: typeSpan}, Name: "TIMESTAMP_LTZ", Params: []int{3}, HasParams: true, NotNull: true}, "TIMESTAMP_LTZ(3) NOT NULL"},
	}
	for _, tt := range tests {
		t.Run(tt.in.String(), func(t *testing.T) {
			var l diag.List
			got, ok := FromAST(tt.in, &l)
			if !ok || len(l.Items) != 0 {
				t.Fatalf("FromAST(%s) failed: %v", tt.in, l.Err())
			}
			if got.String() != tt.want {
				t.Errorf("FromAST(%s) = %s, want %s", tt.in, got, tt.want)
			}
			if got.Nullable == tt.in.NotNull {
				t.Errorf("FromAST(%s).Nullable = %v, want %v", tt.in, got.Nullable, !tt.in.NotNull)
			}
		})
	}
}

func TestFromASTErrors(t *testing.T) {
	tests := []struct {
		in   *ast.TypeName
		msg  string
		hint string // a substring of some hint; "" for none expected
	}{
		{tn("TIMESTAMP", 12), "TIMESTAMP precision must be between 0 and 9, got 12", "(3) milliseconds"},
		{tn("TIMESTAMP", -1), "TIMESTAMP precision must be between 0 and 9, got -1", ""},
		{tn("TIMESTAMP_LTZ", 10), "TIMESTAMP_LTZ precision must be between 0 and 9, got 10", ""},
		{tn("TIMESTAMP WITH LOCAL TIME ZONE", 10), "TIMESTAMP WITH LOCAL TIME ZONE precision must be between 0 and 9, got 10", ""},
		{tn("TIME", 10), "TIME precision must be between 0 and 9, got 10", ""},
		{tn("TIMESTAMP", 3, 2), "TIMESTAMP takes one parameter, the fractional-second precision, got TIMESTAMP(3, 2)", "TIMESTAMP(3)"},
		{tn("DECIMAL", 0), "DECIMAL precision must be between 1 and 38, got 0", ""},
		{tn("DECIMAL", 39, 2), "DECIMAL precision must be between 1 and 38, got 39", ""},
		{tn("DECIMAL", 5, 6), "DECIMAL scale must be between 0 and the precision 5, got 6", ""},
		{tn("NUMERIC", 5, -1), "NUMERIC scale must be between 0 and the precision 5, got -1", ""},
		{tn("DECIMAL", 10, 2, 1), "DECIMAL takes a precision and an optional scale, got DECIMAL(10, 2, 1)", "DECIMAL(15, 2)"},
		{tn("VARCHAR", 0), "VARCHAR length must be between 1 and 2147483647, got 0", ""},
		{tn("VARCHAR", 10, 2), "VARCHAR takes one parameter, the length, got VARCHAR(10, 2)", ""},
		{tn("CHAR", -3), "CHAR length must be between 1 and 2147483647, got -3", ""},
		{tn("BINARY", 0), "BINARY length must be between 1 and 2147483647, got 0", ""},
		{tn("INT", 11), "INT takes no parameters, got INT(11)", "no display width"},
		{tn("BIGINT", 20), "BIGINT takes no parameters, got BIGINT(20)", "write BIGINT"},
		{tn("STRING", 10), "STRING takes no parameters, got STRING(10)", "VARCHAR(n)"},
		{tn("BYTES", 10), "BYTES takes no parameters, got BYTES(10)", "VARBINARY(n)"},
		{tn("DOUBLE", 8), "DOUBLE takes no parameters, got DOUBLE(8)", "DECIMAL(p, s)"},
		{tn("BOOLEAN", 1), "BOOLEAN takes no parameters, got BOOLEAN(1)", ""},
		{tn("INTERVAL DAY TO SECOND", 3), "INTERVAL DAY TO SECOND takes no parameters in streamsql, got INTERVAL DAY TO SECOND(3)", "milliseconds"},
		{tn("BOOL"), "unknown data type BOOL", "write BOOLEAN"},
		{tn("TEXT"), "unknown data type TEXT", "write STRING"},
		{tn("DATETIME"), "unknown data type DATETIME", "write TIMESTAMP(3)"},
		{tn("TIMESTAMPTZ"), "unknown data type TIMESTAMPTZ", "write TIMESTAMP_LTZ(3)"},
		{tn("FOO"), "unknown data type FOO", "supported types: BOOLEAN"},
		{tn("TIMESTAMP WITH TIME ZONE", 3), "TIMESTAMP WITH TIME ZONE is not supported (Flink does not support it either)", "TIMESTAMP_LTZ(3)"},
		{tn("ARRAY"), "ARRAY needs its element types, as in ARRAY<STRING>", ""},
		{tn("MULTISET"), "MULTISET types are not supported by streamsql", "supported types"},
	}
	for _, tt := range tests {
		t.Run(tt.in.String(), func(t *testing.T) {
			var l diag.List
			got, ok := FromAST(tt.in, &l)
			if ok {
				t.Fatalf("FromAST(%s) = %s, want an error", tt.in, got)
			}
			if got != (T{}) {
				t.Errorf("FromAST(%s) returned %#v with its error, want the zero T", tt.in, got)
			}
			if len(l.Items) != 1 {
				t.Fatalf("FromAST(%s) reported %d diagnostics, want 1: %v", tt.in, len(l.Items), l.Err())
			}
			d := l.Items[0]
			if d.Code != diag.InvalidType || d.Span != typeSpan || d.Severity != diag.Error {
				t.Errorf("diagnostic = %s %s at %v, want error %s at %v", d.Severity, d.Code, d.Span, diag.InvalidType, typeSpan)
			}
			if d.Msg != tt.msg {
				t.Errorf("message = %q\nwant        %q", d.Msg, tt.msg)
			}
			if tt.hint != "" && !strings.Contains(strings.Join(d.Hints, "\n"), tt.hint) {
				t.Errorf("hints %q do not mention %q", d.Hints, tt.hint)
			}
		})
	}
}
