package eval

import (
	"testing"

	"github.com/streamsql/streamsql/row"
)

func benchExpr(b *testing.B, src string) {
	f, err := Compile(bind(b, src))
	if err != nil {
		b.Fatal(err)
	}
	vals := testRow()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		vals[2] = row.IntValue(int64(i % 20000)) // amount: 0.00 .. 199.99
		if _, err := f(vals); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEvalArith is amount * 2 > 100 over a DECIMAL(15, 2) column: the
// shape of a typical filter. It must not allocate.
func BenchmarkEvalArith(b *testing.B) { benchExpr(b, "amount * 2 > 100") }

func BenchmarkEvalPredicate(b *testing.B) {
	p, err := CompilePredicate(bind(b, "amount > 10 AND i IN (1, 7, 9) AND ts > TIMESTAMP '2026-01-01 00:00:00'"))
	if err != nil {
		b.Fatal(err)
	}
	vals := testRow()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := p(vals); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEvalLike(b *testing.B) { benchExpr(b, "s LIKE 'H%o W_rld'") }

func BenchmarkEvalCase(b *testing.B) {
	benchExpr(b, "CASE WHEN amount > 100 THEN amount * 1.1 WHEN amount > 10 THEN amount ELSE 0 END")
}

func BenchmarkEvalTimestamp(b *testing.B) {
	benchExpr(b, "ts - INTERVAL '5' SECOND > TIMESTAMP '2026-01-01 00:00:00'")
}

func TestArithDoesNotAllocate(t *testing.T) {
	for _, src := range []string{
		"amount * 2 > 100",
		"amount / 3 + i",
		"d * 2.5 - i",
		"CASE WHEN amount > 10 THEN amount * 2 ELSE amount END",
		"COALESCE(ni, i) + 1",
		"ts + INTERVAL '1' MONTH",
		"s LIKE 'Hello%'",
		"CAST(amount AS DOUBLE) > d AND i IN (1, 7)",
	} {
		f, err := Compile(bind(t, src))
		if err != nil {
			t.Fatal(err)
		}
		vals := testRow()
		if n := testing.AllocsPerRun(100, func() { _, _ = f(vals) }); n != 0 {
			t.Errorf("%s allocates %v times per row, want 0", src, n)
		}
	}
}
