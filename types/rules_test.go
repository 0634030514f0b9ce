package types

import (
	"fmt"
	"testing"
)

var (
	tinyint  = New(TinyInt)
	smallint = New(SmallInt)
	integer  = New(Int)
	bigint   = New(BigInt)
	float    = New(Float)
	double   = New(Double)
	boolean  = New(Boolean)
	date     = New(Date)
	str      = StringType()
	bytes    = BytesType()
	null     = New(Null)
	interval = New(Interval)
	months   = New(IntervalYM)
	ts3      = TimestampOf(3)
	ts6      = TimestampOf(6)
	ltz3     = TimestampLTZOf(3)
	ltz9     = TimestampLTZOf(9)
	time0    = TimeOf(0)
)

func TestString(t *testing.T) {
	tests := []struct {
		t    T
		want string
	}{
		{boolean, "BOOLEAN"},
		{tinyint, "TINYINT"},
		{smallint, "SMALLINT"},
		{integer, "INT"},
		{bigint, "BIGINT"},
		{bigint.NotNull(), "BIGINT NOT NULL"},
		{float, "FLOAT"},
		{double, "DOUBLE"},
		{DecimalOf(15, 2), "DECIMAL(15, 2)"},
		{New(Decimal), "DECIMAL(10, 0)"},
		{str, "STRING"},
		{str.NotNull(), "STRING NOT NULL"},
		{VarcharOf(10), "VARCHAR(10)"},
		{New(Varchar), "VARCHAR(1)"},
		{CharOf(3), "CHAR(3)"},
		{bytes, "BYTES"},
		{VarbinaryOf(8), "VARBINARY(8)"},
		{BinaryOf(16), "BINARY(16)"},
		{date, "DATE"},
		{time0, "TIME(0)"},
		{ts3, "TIMESTAMP(3)"},
		{New(Timestamp), "TIMESTAMP(6)"},
		{ltz3, "TIMESTAMP_LTZ(3)"},
		{ltz3.NotNull(), "TIMESTAMP_LTZ(3) NOT NULL"},
		{interval, "INTERVAL DAY TO SECOND(3)"},
		{months, "INTERVAL YEAR TO MONTH"},
		{null, "NULL"},
		{null.NotNull(), "NULL"}, // the NULL type cannot be NOT NULL
		{T{}, "INVALID"},
	}
	for _, tt := range tests {
		if got := tt.t.String(); got != tt.want {
			t.Errorf("%#v.String() = %q, want %q", tt.t, got, tt.want)
		}
	}
}

func TestPredicates(t *testing.T) {
	type preds struct{ numeric, integral, str, timestamp, temporal, interval bool }
	tests := []struct {
		t    T
		want preds
	}{
		{tinyint, preds{numeric: true, integral: true}},
		{bigint, preds{numeric: true, integral: true}},
		{DecimalOf(5, 2), preds{numeric: true}},
		{double, preds{numeric: true}},
		{boolean, preds{}},
		{CharOf(2), preds{str: true}},
		{str, preds{str: true}},
		{bytes, preds{}},
		{date, preds{temporal: true}},
		{time0, preds{temporal: true}},
		{ts3, preds{timestamp: true, temporal: true}},
		{ltz3, preds{timestamp: true, temporal: true}},
		{interval, preds{interval: true}},
		{months, preds{interval: true}},
		{null, preds{}},
	}
	for _, tt := range tests {
		got := preds{tt.t.IsNumeric(), tt.t.IsIntegral(), tt.t.IsString(), tt.t.IsTimestamp(), tt.t.IsTemporal(), tt.t.IsInterval()}
		if got != tt.want {
			t.Errorf("%s: predicates %+v, want %+v", tt.t, got, tt.want)
		}
	}
}

func TestComparable(t *testing.T) {
	tests := []struct {
		a, b T
		want bool
	}{
		{integer, bigint, true},
		{tinyint, double, true},
		{DecimalOf(10, 2), float, true},
		{str, CharOf(3), true},
		{VarcharOf(5), VarcharOf(10), true},
		{bytes, BinaryOf(4), true},
		{boolean, boolean, true},
		{date, date, true},
		{ts3, ts6, true},
		{ltz3, ltz9, true},
		{ts3, ltz3, false}, // needs an explicit CAST: the session zone decides
		{date, ts3, false},
		{time0, ts3, false},
		{str, integer, false},
		{str, ts3, false},
		{str, bytes, false},
		{boolean, integer, false},
		{interval, interval, true},
		{interval, months, false},
		{null, ts3, true},
		{str, null, true},
		{null, null, true},
		{T{}, integer, false},
	}
	for _, tt := range tests {
		if got := Comparable(tt.a, tt.b); got != tt.want {
			t.Errorf("Comparable(%s, %s) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
		if got := Comparable(tt.b, tt.a); got != tt.want {
			t.Errorf("Comparable(%s, %s) = %v, want %v (not symmetric)", tt.b, tt.a, got, tt.want)
		}
	}
}

func TestCommonType(t *testing.T) {
	tests := []struct {
		a, b T
		want string // "" means no common type
	}{
		{integer, integer, "INT"},
		{tinyint, smallint, "SMALLINT"},
		{integer, bigint, "BIGINT"},
		{integer.NotNull(), bigint.NotNull(), "BIGINT NOT NULL"},
		{integer.NotNull(), bigint, "BIGINT"},
		{integer, DecimalOf(5, 2), "DECIMAL(12, 2)"},
		{bigint, DecimalOf(10, 2), "DECIMAL(21, 2)"},
		{DecimalOf(10, 2), DecimalOf(5, 4), "DECIMAL(12, 4)"},
		// Past 38 digits the scale gives way entirely (Flink's
		// LogicalTypeMerging), never the integer digits.
		{DecimalOf(38, 0), DecimalOf(38, 38), "DECIMAL(38, 0)"},
		{DecimalOf(38, 0), DecimalOf(7, 4), "DECIMAL(38, 0)"},
		{DecimalOf(30, 0), DecimalOf(20, 10), "DECIMAL(38, 8)"},
		{DecimalOf(38, 2), integer, "DECIMAL(38, 2)"},
		{DecimalOf(10, 2), float, "FLOAT"},
		{bigint, float, "FLOAT"},
		{float, double, "DOUBLE"},
		{DecimalOf(10, 2), double, "DOUBLE"},
		{CharOf(3), CharOf(3), "CHAR(3)"},
		{CharOf(3), CharOf(5), "VARCHAR(5)"},
		{CharOf(3), VarcharOf(2), "VARCHAR(3)"},
		{VarcharOf(10), str, "STRING"},
		{BinaryOf(4), VarbinaryOf(8), "VARBINARY(8)"},
		{bytes, BinaryOf(4), "BYTES"},
		{ts3, ts6, "TIMESTAMP(6)"},
		{ltz3.NotNull(), ltz9.NotNull(), "TIMESTAMP_LTZ(9) NOT NULL"},
		{time0, TimeOf(3), "TIME(3)"},
		{date, date, "DATE"},
		{boolean, boolean.NotNull(), "BOOLEAN"},
		{interval, interval, "INTERVAL DAY TO SECOND(3)"},
		{null, bigint.NotNull(), "BIGINT"},
		{ts3.NotNull(), null, "TIMESTAMP(3)"},
		{null, null, "NULL"},
		{ts3, ltz3, ""},
		{date, ts3, ""},
		{integer, str, ""},
		{boolean, integer, ""},
		{str, bytes, ""},
		{interval, months, ""},
		{T{}, integer, ""},
	}
	for _, tt := range tests {
		for _, swap := range []bool{false, true} {
			a, b := tt.a, tt.b
			if swap {
				a, b = b, a
			}
			got, ok := CommonType(a, b)
			switch {
			case tt.want == "" && ok:
				t.Errorf("CommonType(%s, %s) = %s, want none", a, b, got)
			case tt.want != "" && !ok:
				t.Errorf("CommonType(%s, %s) = none, want %s", a, b, tt.want)
			case ok && got.String() != tt.want:
				t.Errorf("CommonType(%s, %s) = %s, want %s", a, b, got, tt.want)
			}
		}
	}
}

func TestComparisonType(t *testing.T) {
	tests := []struct {
		a, b T
		want string // "" means not comparable
	}{
		{integer, integer, "INT"},
		{tinyint, smallint, "SMALLINT"},
		{integer, bigint, "BIGINT"},
		{integer.NotNull(), bigint.NotNull(), "BIGINT NOT NULL"},
		{integer, DecimalOf(5, 2), "DECIMAL(12, 2)"},
		{DecimalOf(10, 1), DecimalOf(10, 3), "DECIMAL(12, 3)"},
		{bigint, DecimalOf(10, 2), "DECIMAL(21, 2)"},
		// CommonType gives DECIMAL(38, 0) here; a comparison keeps the scale.
		{DecimalOf(38, 0), DecimalOf(38, 38), "DECIMAL(38, 38)"},
		{DecimalOf(38, 0), DecimalOf(20, 10), "DECIMAL(38, 10)"},
		// Approximate numbers compare in double precision.
		{integer, double, "DOUBLE"},
		{integer, float, "DOUBLE"},
		{float, float, "DOUBLE"},
		{DecimalOf(10, 2), float, "DOUBLE"},
		{CharOf(3), VarcharOf(5), "VARCHAR(5)"},
		{VarcharOf(10), str, "STRING"},
		{ts3, ts6, "TIMESTAMP(6)"},
		{null, bigint.NotNull(), "BIGINT"},
		{ts3, ltz3, ""},
		{integer, str, ""},
		{date, ts3, ""},
	}
	for _, tt := range tests {
		for _, swap := range []bool{false, true} {
			a, b := tt.a, tt.b
			if swap {
				a, b = b, a
			}
			got, ok := ComparisonType(a, b)
			switch {
			case tt.want == "" && ok:
				t.Errorf("ComparisonType(%s, %s) = %s, want none", a, b, got)
			case tt.want != "" && !ok:
				t.Errorf("ComparisonType(%s, %s) = none, want %s", a, b, tt.want)
			case ok && got.String() != tt.want:
				t.Errorf("ComparisonType(%s, %s) = %s, want %s", a, b, got, tt.want)
			}
		}
	}
}

func TestArithmeticResult(t *testing.T) {
	tests := []struct {
		a    T
		op   string
		b    T
		want string // "" means not defined
	}{
		{integer, "+", integer, "INT"},
		{integer.NotNull(), "+", integer.NotNull(), "INT NOT NULL"},
		{integer, "/", integer, "INT"},
		{smallint, "*", bigint, "BIGINT"},
		{integer, "%", tinyint, "INT"},
		{integer, "+", double, "DOUBLE"},
		{float, "*", bigint, "FLOAT"},
		{DecimalOf(10, 2), "+", DecimalOf(5, 3), "DECIMAL(12, 3)"},
		{DecimalOf(10, 2), "-", integer, "DECIMAL(13, 2)"},
		{integer, "*", DecimalOf(15, 2), "DECIMAL(25, 2)"},
		{DecimalOf(38, 10), "*", DecimalOf(38, 10), "DECIMAL(38, 6)"},
		{DecimalOf(10, 2), "/", DecimalOf(5, 0), "DECIMAL(16, 8)"},
		{DecimalOf(10, 2), "%", DecimalOf(5, 0), "DECIMAL(7, 2)"},
		{DecimalOf(10, 2), "/", float, "FLOAT"},
		{null, "+", integer.NotNull(), "INT"},
		{ts3, "+", interval, "TIMESTAMP(3)"},
		{ts3.NotNull(), "-", interval.NotNull(), "TIMESTAMP(3) NOT NULL"},
		{ltz3, "-", interval, "TIMESTAMP_LTZ(3)"},
		{interval, "+", ltz3, "TIMESTAMP_LTZ(3)"},
		{ts6, "+", months, "TIMESTAMP(6)"},
		{date, "+", interval, "DATE"},
		{date, "-", months, "DATE"},
		{time0, "+", interval, "TIME(0)"},
		{interval, "+", interval, "INTERVAL DAY TO SECOND(3)"},
		{interval, "*", integer, "INTERVAL DAY TO SECOND(3)"},
		{integer, "*", interval, "INTERVAL DAY TO SECOND(3)"},
		{months, "/", integer, "INTERVAL YEAR TO MONTH"},
		{interval, "-", ts3, ""}, // interval - timestamp is meaningless
		{ts3, "-", ts3, ""},      // use TIMESTAMPDIFF
		{ts3, "*", interval, ""},
		{time0, "+", months, ""},
		{interval, "+", months, ""},
		{integer, "/", interval, ""},
		{str, "+", integer, ""},
		{boolean, "+", boolean, ""},
		{null, "+", null, ""},
		{integer, "||", integer, ""},
		{integer, "^", integer, ""},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s %s %s", tt.a, tt.op, tt.b), func(t *testing.T) {
			got, ok := ArithmeticResult(tt.op, tt.a, tt.b)
			switch {
			case tt.want == "" && ok:
				t.Errorf("= %s, want not defined", got)
			case tt.want != "" && !ok:
				t.Errorf("not defined, want %s", tt.want)
			case ok && got.String() != tt.want:
				t.Errorf("= %s, want %s", got, tt.want)
			}
		})
	}
}

func TestCanCast(t *testing.T) {
	tests := []struct {
		from, to T
		want     bool
	}{
		{integer, bigint, true},
		{bigint, tinyint, true}, // explicit narrowing is allowed
		{double, DecimalOf(10, 2), true},
		{integer, str, true},
		{str, integer, true},
		{str, ts3, true},
		{ts3, str, true},
		{ltz3, VarcharOf(30), true},
		{str, boolean, true},
		{integer, boolean, true}, // as in Flink
		{boolean, integer, true},
		{str, date, true},
		{str, bytes, true},
		{bytes, str, true},
		{BinaryOf(4), bytes, true},
		{bytes, integer, false},
		{integer, bytes, false},
		{ts3, ltz3, true},
		{ltz3, ts3, true},
		{ts3, date, true},
		{ltz3, time0, true},
		{date, ts3, true},
		{time0, ltz3, true},
		{date, time0, false},
		{time0, date, false},
		{bigint, ts3, false},  // Flink 1.15+: use TO_TIMESTAMP_LTZ
		{bigint, ltz3, false}, // the unit must be explicit
		{ts3, bigint, false},
		{ltz3, DecimalOf(20, 3), false},
		{boolean, ts3, false},
		{interval, str, true},
		{str, interval, true},
		{interval, bigint, false},
		{integer, interval, false},
		{null, ts3, true},
		{null, integer.NotNull(), true},
		{integer, null, false},
		{ts3.NotNull(), ts6, true},
		{T{}, str, false},
		{str, T{}, false},
	}
	for _, tt := range tests {
		if got := CanCast(tt.from, tt.to); got != tt.want {
			t.Errorf("CanCast(%s, %s) = %v, want %v", tt.from, tt.to, got, tt.want)
		}
	}
}

func TestImplicitCast(t *testing.T) {
	tests := []struct {
		from, to T
		want     bool
	}{
		{integer, bigint, true},
		{bigint, integer, false},
		{bigint, DecimalOf(20, 0), true},
		{DecimalOf(10, 2), double, true},
		{double, DecimalOf(10, 2), false},
		{float, double, true},
		{CharOf(3), str, true},
		{str, CharOf(3), false},
		{VarcharOf(100), VarcharOf(10), true}, // same kind: lengths are a run-time matter
		{BinaryOf(2), bytes, true},
		{ts3, ts6, true},
		{ts3, ltz3, false},
		{ts3, date, false},
		{str, integer, false},
		{integer, str, false},
		{null, ltz3.NotNull(), true},
		{integer, integer.NotNull(), true}, // nullability is checked row by row
	}
	for _, tt := range tests {
		if got := ImplicitCast(tt.from, tt.to); got != tt.want {
			t.Errorf("ImplicitCast(%s, %s) = %v, want %v", tt.from, tt.to, got, tt.want)
		}
	}
}

func TestSameIgnoringNull(t *testing.T) {
	if !SameIgnoringNull(ts3, ts3.NotNull()) {
		t.Errorf("TIMESTAMP(3) and TIMESTAMP(3) NOT NULL should be the same apart from nullability")
	}
	if SameIgnoringNull(ts3, ts6) {
		t.Errorf("TIMESTAMP(3) and TIMESTAMP(6) should differ")
	}
	if ts3 == ts3.NotNull() {
		t.Errorf("== should see nullability")
	}
}
