package eval

import (
	"errors"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/expr"
	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/types"
)

// evalCase is one expression, the SQL text of its result (FormatValue with
// the expression's type), or "error: <substring>" for a run-time error.
type evalCase struct {
	src, want string
}

func runCases(t *testing.T, cases []evalCase) {
	t.Helper()
	vals := testRow()
	for _, tc := range cases {
		t.Run(tc.src, func(t *testing.T) {
			e := bind(t, tc.src)
			f, err := CompileWith(e, testOptions())
			if err != nil {
				t.Fatalf("Compile(%s): %v", e, err)
			}
			v, err := f(vals)
			got := ""
			if err != nil {
				got = "error: " + err.Error()
				if !errors.As(err, new(*Error)) {
					t.Errorf("error %v is not an *eval.Error", err)
				}
			} else {
				got = FormatValue(v, e.Type())
			}
			if want, ok := strings.CutPrefix(tc.want, "error: "); ok {
				if !strings.HasPrefix(got, "error: ") || !strings.Contains(got, want) {
					t.Errorf("%s = %s, want an error containing %q", tc.src, got, want)
				}
				return
			}
			if got != tc.want {
				t.Errorf("%s = %s, want %s (type %s)", tc.src, got, tc.want, e.Type())
			}
		})
	}
}

func TestArithmetic(t *testing.T) {
	runCases(t, []evalCase{
		{"i + 3", "10"},
		{"i - 10", "-3"},
		{"i * 6", "42"},
		{"i / 2", "3"},
		{"-i / 2", "-3"},
		{"i % 4", "3"},
		{"-i % 4", "-3"},
		{"MOD(i, 4)", "3"},
		{"-i", "-7"},
		{"i / zero", "error: division by zero in (i / zero)"},
		{"i % zero", "error: division by zero"},
		{"big + 1", "error: BIGINT overflow in (big + 1)"},
		{"big * 2", "error: BIGINT overflow"},
		{"-big - 2", "error: BIGINT overflow"},
		{"big - 1", "9223372036854775806"},
		{"2147483647 + i", "error: INT overflow"},
		{"CAST(2147483647 AS BIGINT) + i", "2147483654"},
		{"i + ni", "NULL"},
		{"ni * 0", "NULL"},
		{"i + NULL", "NULL"},
		// DECIMAL: scale from the operands, result scale from the type.
		{"amount * 2", "24.68"},
		{"amount + 1", "13.34"},
		{"amount - 0.345", "11.995"},
		{"amount + p", "13.345"},
		{"amount * p", "12.40170"},
		{"amount / 2", "6.1700000000000"},
		{"amount / 3", "4.1133333333333"},
		{"-amount / 3", "-4.1133333333333"},
		{"amount % 5", "2.34"},
		{"amount / zero", "error: division by zero"},
		{"-amount", "-12.34"},
		{"big_amount + 1", "error: DECIMAL overflow"},
		{"big_amount * 10", "error: DECIMAL overflow in (big_amount * 10)"},
		{"big_amount - big_amount", "0.00"},
		{"amount + ni", "NULL"},
		{"1.5 * 1.5", "2.25"},
		{"0.1 + 0.2", "0.3"},
		{"CAST(1.005 AS DECIMAL(4, 2))", "1.01"},
		{"CAST(-1.005 AS DECIMAL(4, 2))", "-1.01"},
		{"CAST(1.004 AS DECIMAL(4, 2))", "1.00"},
		{"CAST(p AS DECIMAL(10, 2))", "1.01"},
		{"CAST(1.005 AS DOUBLE)", "1.005"},
		{"CAST(CAST(1.005 AS DOUBLE) AS DECIMAL(4, 2))", "1.01"},
		// ROUND of a DECIMAL has the scale it rounds to (Flink's
		// findRoundDecimalType).
		{"ROUND(p, 2)", "1.01"},
		{"ROUND(amount, 1)", "12.3"},
		{"ROUND(amount)", "12"},
		{"ROUND(-12.5)", "-13"},
		{"ROUND(amount, -1)", "10"},
		{"ROUND(amount, 5)", "12.34"},
		{"ROUND(i, -1)", "10"},
		{"ROUND(1.005e0, 2)", "1.01"},
		{"ROUND(d)", "3.0"},
		// DOUBLE
		{"d * 2", "5.0"},
		{"d + i", "9.5"},
		{"d / 0", "Infinity"},
		{"amount * d", "30.85"},
		{"i / 2.0e0", "3.5"},
		{"f + 1", "2.5"},
		{"1e10 * 1e10", "1.0E20"},
		{"d + ni", "NULL"},
	})
}

func TestComparisons(t *testing.T) {
	runCases(t, []evalCase{
		{"i = 7", "TRUE"},
		{"i <> 7", "FALSE"},
		{"i < 8", "TRUE"},
		{"i <= 6", "FALSE"},
		{"i > 6", "TRUE"},
		{"i >= 7", "TRUE"},
		{"i = ni", "NULL"},
		{"ni = ni", "NULL"},
		{"i = NULL", "NULL"},
		// Across DECIMAL, INT and DOUBLE: mathematical.
		{"da > 1000", "TRUE"},
		{"da < 1000.02", "TRUE"},
		{"da = 1000.01", "TRUE"},
		{"da = 1000.010", "TRUE"},
		{"da > 1000.011", "FALSE"},
		{"1000 < da", "TRUE"},
		{"da > 1000.005e0", "TRUE"},
		{"da > 1000.01e0", "FALSE"},
		{"amount = 12.34e0", "TRUE"},
		{"amount > i", "TRUE"},
		{"amount < d", "FALSE"},
		{"p < amount", "TRUE"},
		{"p = 1.005", "TRUE"},
		{"big > 9223372036854775806", "TRUE"},
		{"big_amount > big", "FALSE"},
		{"big_amount > 9999999999999999.98", "TRUE"},
		{"d = 2.5", "TRUE"},
		{"d BETWEEN 2 AND 3", "TRUE"},
		{"i BETWEEN 8 AND 9", "FALSE"},
		{"i NOT BETWEEN 8 AND 9", "TRUE"},
		{"s = 'Hello World'", "TRUE"},
		{"s < 'Help'", "TRUE"},
		{"s > ns", "NULL"},
		{"ts > TIMESTAMP '2026-01-01 12:34:56.788'", "TRUE"},
		{"ts = TIMESTAMP '2026-01-01 12:34:56.789'", "TRUE"},
		{"dt = DATE '2026-01-01'", "TRUE"},
		{"dt < DATE '2025-12-31'", "FALSE"},
		{"flag = TRUE", "TRUE"},
		{"tm > TIME '12:00:00'", "TRUE"},
	})
}

// TestNullSafeComparisons: IS [NOT] DISTINCT FROM never yields NULL; two
// NULLs are not distinct, NULL and a value are; values compare as = does
// (across types, mathematically). Against PostgreSQL: oracle's
// TestNullSafeAgainstPostgres.
func TestNullSafeComparisons(t *testing.T) {
	runCases(t, []evalCase{
		{"i IS NOT DISTINCT FROM 7", "TRUE"},
		{"i IS DISTINCT FROM 7", "FALSE"},
		{"i IS DISTINCT FROM 8", "TRUE"},
		{"i IS NOT DISTINCT FROM ni", "FALSE"},
		{"i IS DISTINCT FROM ni", "TRUE"},
		{"ni IS NOT DISTINCT FROM ni", "TRUE"},
		{"ni IS DISTINCT FROM ni", "FALSE"},
		{"ni IS NOT DISTINCT FROM NULL", "TRUE"},
		{"NULL IS DISTINCT FROM i", "TRUE"},
		{"NULL IS NOT DISTINCT FROM NULL", "TRUE"},
		{"NULL IS DISTINCT FROM NULL", "FALSE"},
		{"ns IS NOT DISTINCT FROM s", "FALSE"},
		{"s IS NOT DISTINCT FROM 'Hello World'", "TRUE"},
		{"da IS NOT DISTINCT FROM 1000.010", "TRUE"},
		{"amount IS DISTINCT FROM 12.34e0", "FALSE"},
		{"p IS NOT DISTINCT FROM amount", "FALSE"},
		{"NOT (ni IS DISTINCT FROM ni)", "TRUE"},
		{"(i = ni) IS DISTINCT FROM nb", "FALSE"},
		{"nb IS DISTINCT FROM FALSE", "TRUE"},
		{"i / zero IS DISTINCT FROM ni", "error: division by zero"},
	})
}

func TestLogic(t *testing.T) {
	runCases(t, []evalCase{
		{"flag AND TRUE", "TRUE"},
		{"flag AND FALSE", "FALSE"},
		{"flag AND nb", "NULL"},
		{"NOT flag AND nb", "FALSE"},
		{"nb AND FALSE", "FALSE"},
		{"nb AND TRUE", "NULL"},
		{"nb AND nb", "NULL"},
		{"flag OR nb", "TRUE"},
		{"nb OR flag", "TRUE"},
		{"nb OR FALSE", "NULL"},
		{"FALSE OR FALSE", "FALSE"},
		{"NOT nb", "NULL"},
		{"NOT flag", "FALSE"},
		{"FALSE AND i / zero = 1", "FALSE"},
		{"TRUE OR i / zero = 1", "TRUE"},
		{"nb AND i / zero = 1", "error: division by zero"},
		{"ni IS NULL", "TRUE"},
		{"i IS NULL", "FALSE"},
		{"ni IS NOT NULL", "FALSE"},
		{"nb IS TRUE", "FALSE"},
		{"nb IS NOT TRUE", "TRUE"},
		{"nb IS FALSE", "FALSE"},
		{"nb IS NOT FALSE", "TRUE"},
		{"flag IS TRUE", "TRUE"},
		{"flag IS FALSE", "FALSE"},
		{"flag IS NOT FALSE", "TRUE"},
		{"i IN (1, 7, 9)", "TRUE"},
		{"i IN (1, 2)", "FALSE"},
		{"i IN (1, NULL)", "NULL"},
		{"i IN (7, NULL)", "TRUE"},
		{"ni IN (1, 2)", "NULL"},
		{"i NOT IN (1, 2)", "TRUE"},
		{"i NOT IN (1, NULL)", "NULL"},
		{"amount IN (12.34, 1)", "TRUE"},
		{"i IN (7.0, 8.5)", "TRUE"},
		{"amount IN (12, 13)", "FALSE"},
		{"s IN ('a', 'Hello World')", "TRUE"},
		{"i IN (ni, i)", "TRUE"},
	})
}

func TestConditionals(t *testing.T) {
	runCases(t, []evalCase{
		{"CASE WHEN i > 5 THEN 'big' ELSE 'small' END", "big"},
		{"CASE WHEN i > 50 THEN 'big' WHEN i > 5 THEN 'mid' END", "mid"},
		{"CASE WHEN i > 50 THEN 'big' END", "NULL"},
		{"CASE WHEN nb THEN 1 ELSE 2 END", "2"},
		{"CASE i WHEN 1 THEN 'one' WHEN 7 THEN 'seven' END", "seven"},
		{"CASE WHEN i > 5 THEN 1 ELSE 2.5 END", "1.0"},
		{"CASE WHEN i > 5 THEN amount ELSE i END", "12.34"},
		{"CASE WHEN i < 5 THEN amount ELSE i END", "7.00"},
		{"CASE WHEN i > 5 THEN 1 ELSE i / zero END", "1"},
		{"COALESCE(ni, i, 3)", "7"},
		{"COALESCE(ni, amount)", "12.34"},
		{"COALESCE(ni, NULL)", "NULL"},
		{"COALESCE(ns, 'x')", "x"},
		{"COALESCE(ni, 2.5)", "2.5"},
		{"IFNULL(ni, 4)", "4"},
		{"IFNULL(i, 4)", "7"},
		{"NULLIF(i, 7)", "NULL"},
		{"NULLIF(i, 8)", "7"},
		{"NULLIF(ni, 8)", "NULL"},
		{"NULLIF(amount, 12.34)", "NULL"},
		{"IF(i > 5, 'y', 'n')", "y"},
		{"IF(nb, 'y', 'n')", "n"},
		{"IF(flag, amount, 0)", "12.34"},
	})
}

func TestCasts(t *testing.T) {
	runCases(t, []evalCase{
		{"CAST('42' AS INT)", "42"},
		{"CAST(txt AS INT)", "42"},
		{"CAST(' -3 ' AS BIGINT)", "-3"},
		{"CAST('abc' AS INT)", "error: cannot CAST 'abc' to INT"},
		{"TRY_CAST('abc' AS INT)", "NULL"},
		{"TRY_CAST(txt AS INT)", "42"},
		{"CAST('3000000000' AS INT)", "error: out of range"},
		{"TRY_CAST('3000000000' AS INT)", "NULL"},
		{"CAST('1.5' AS INT)", "error: cannot CAST '1.5' to INT"},
		{"CAST('12.345' AS DECIMAL(10, 2))", "12.35"},
		{"CAST('1e3' AS DECIMAL(10, 2))", "1000.00"},
		{"CAST('12345' AS DECIMAL(4, 0))", "error: DECIMAL overflow"},
		{"TRY_CAST('12345' AS DECIMAL(4, 0))", "NULL"},
		{"CAST('x1' AS DECIMAL(4, 0))", "error: cannot CAST 'x1' to DECIMAL(4, 0)"},
		{"CAST('2.5' AS DOUBLE)", "2.5"},
		{"CAST('true' AS BOOLEAN)", "TRUE"},
		{"CAST('no' AS BOOLEAN)", "FALSE"},
		{"CAST('maybe' AS BOOLEAN)", "error: cannot CAST 'maybe' to BOOLEAN"},
		{"CAST('2026-01-01 10:00:00' AS TIMESTAMP(3))", "2026-01-01 10:00:00.000"},
		{"CAST('2026-01-01T10:00:00.5Z' AS TIMESTAMP(3))", "2026-01-01 10:00:00.500"},
		{"CAST('2026-01-01T10:00:00+02:00' AS TIMESTAMP_LTZ(3))", "2026-01-01 08:00:00.000"},
		{"CAST('2026-02-30 10:00:00' AS TIMESTAMP(3))", "error: cannot CAST '2026-02-30 10:00:00' to TIMESTAMP(3)"},
		{"TRY_CAST('yesterday' AS TIMESTAMP(3))", "NULL"},
		{"CAST('2026-03-04' AS DATE)", "2026-03-04"},
		{"CAST('12:30:05' AS TIME)", "12:30:05"},
		{"CAST(i AS STRING)", "7"},
		{"CAST(amount AS STRING)", "12.34"},
		{"CAST(d AS STRING)", "2.5"},
		{"CAST(flag AS STRING)", "TRUE"},
		{"CAST(ts AS STRING)", "2026-01-01 12:34:56.789"},
		{"CAST(dt AS STRING)", "2026-01-01"},
		{"CAST(s AS VARCHAR(5))", "Hello"},
		{"CAST('ab' AS CHAR(4)) || '|'", "ab  |"},
		{"CAST(ni AS STRING)", "NULL"},
		{"CAST(amount AS INT)", "12"},
		{"CAST(-amount AS INT)", "-12"},
		{"CAST(amount AS DECIMAL(5, 1))", "12.3"},
		{"CAST(amount AS DECIMAL(3, 1))", "12.3"},
		{"CAST(amount AS DECIMAL(2, 1))", "error: DECIMAL overflow"},
		{"CAST(amount AS DOUBLE)", "12.34"},
		{"CAST(d AS INT)", "2"},
		{"CAST(d AS DECIMAL(5, 2))", "2.50"},
		{"CAST(i AS DECIMAL(5, 2))", "7.00"},
		{"CAST(i AS DECIMAL(2, 1))", "7.0"},
		{"CAST(i * 2 AS DECIMAL(2, 1))", "error: DECIMAL overflow"},
		{"CAST(big AS INT)", "error: out of range"},
		{"CAST(big AS DOUBLE)", "9.223372036854776E18"},
		{"CAST(1e30 AS BIGINT)", "error: out of range"},
		{"CAST(i AS BOOLEAN)", "TRUE"},
		{"CAST(zero AS BOOLEAN)", "FALSE"},
		{"CAST(flag AS INT)", "1"},
		{"CAST(ts AS TIMESTAMP_LTZ(3))", "2026-01-01 12:34:56.789"},
		{"CAST(ltz AS TIMESTAMP(3))", "2026-01-01 12:34:56.789"},
		{"CAST(ts AS TIMESTAMP(0))", "2026-01-01 12:34:56"},
		{"CAST(CAST(ts AS TIMESTAMP(0)) AS TIMESTAMP(3))", "2026-01-01 12:34:56.000"},
		{"CAST(ts AS DATE)", "2026-01-01"},
		{"CAST(ts AS TIME(3))", "12:34:56.789"},
		{"CAST(dt AS TIMESTAMP(3))", "2026-01-01 00:00:00.000"},
		{"CAST(ts AS TIMESTAMP(6))", "2026-01-01 12:34:56.789000"},
	})
}

func TestTimes(t *testing.T) {
	runCases(t, []evalCase{
		{"ts - INTERVAL '5' SECOND", "2026-01-01 12:34:51.789"},
		{"ts + INTERVAL '1' DAY", "2026-01-02 12:34:56.789"},
		{"ts + INTERVAL '2' HOUR", "2026-01-01 14:34:56.789"},
		{"ltz - INTERVAL '13' HOUR", "2025-12-31 23:34:56.789"},
		{"INTERVAL '1' MINUTE + ts", "2026-01-01 12:35:56.789"},
		{"ts + INTERVAL '1' MONTH", "2026-02-01 12:34:56.789"},
		{"TIMESTAMP '2026-01-31 00:00:00' + INTERVAL '1' MONTH", "2026-02-28 00:00:00"},
		{"TIMESTAMP '2024-02-29 00:00:00' + INTERVAL '1' YEAR", "2025-02-28 00:00:00"},
		{"dt + INTERVAL '2' DAY", "2026-01-03"},
		{"dt - INTERVAL '1' MONTH", "2025-12-01"},
		{"tm + INTERVAL '12' HOUR", "00:30:00"},
		{"CAST(NULL AS TIMESTAMP(3)) + INTERVAL '1' DAY", "NULL"},
		{"INTERVAL '1' DAY + INTERVAL '2' HOUR", "+1 02:00:00.000"},
		{"INTERVAL '1' HOUR * 3", "+0 03:00:00.000"},
		{"INTERVAL '1' HOUR / 4", "+0 00:15:00.000"},
		{"ts - INTERVAL '5' SECOND < ts", "TRUE"},
		{"TO_TIMESTAMP_LTZ(1767225600000, 3)", "2026-01-01 00:00:00.000"},
		{"TO_TIMESTAMP_LTZ(1767225600, 0)", "2026-01-01 00:00:00"},
		{"CAST(TO_TIMESTAMP_LTZ(1767225600, 0) AS TIMESTAMP_LTZ(3))", "2026-01-01 00:00:00.000"},
		{"TO_TIMESTAMP_LTZ(ms, 3)", "2026-01-01 00:00:00.000"},
		{"TO_TIMESTAMP_LTZ(secs, 0) = TO_TIMESTAMP_LTZ(ms, 3)", "TRUE"},
		{"TO_TIMESTAMP_LTZ(1767225600.5, 0)", "2026-01-01 00:00:00"},
		{"CAST(TO_TIMESTAMP_LTZ(1767225600.5, 0) AS TIMESTAMP_LTZ(3))", "2026-01-01 00:00:00.500"},
		{"CAST(TO_TIMESTAMP_LTZ(1767225600.25e0, 0) AS TIMESTAMP_LTZ(3))", "2026-01-01 00:00:00.250"},
		{"TO_TIMESTAMP_LTZ(ni, 3)", "NULL"},
		{"TO_TIMESTAMP_LTZ(big, 0)", "error: overflow"},
		{"TO_TIMESTAMP('2026-01-01 10:20:30')", "2026-01-01 10:20:30.000"},
		{"TO_TIMESTAMP('2026-01-01 10:20:30.123')", "2026-01-01 10:20:30.123"},
		{"TO_TIMESTAMP('2026-01-01T10:20:30Z')", "2026-01-01 10:20:30.000"},
		{"TO_TIMESTAMP('2026-01-01T10:20:30.5')", "2026-01-01 10:20:30.500"},
		{"TO_TIMESTAMP('01/02/2026 10:20', 'dd/MM/yyyy HH:mm')", "2026-02-01 10:20:00.000"},
		{"TO_TIMESTAMP('2026-01-01 10:20:30.123', 'yyyy-MM-dd HH:mm:ss.SSS')", "2026-01-01 10:20:30.123"},
		{"TO_TIMESTAMP('20260101T102030', 'yyyyMMdd''T''HHmmss')", "2026-01-01 10:20:30.000"},
		{"TO_TIMESTAMP('garbage')", "NULL"},
		{"TO_TIMESTAMP(ns)", "NULL"},
		{"TO_DATE('2026-03-04')", "2026-03-04"},
		{"TO_DATE('04.03.2026', 'dd.MM.yyyy')", "2026-03-04"},
		{"DATE_FORMAT(ts, 'yyyy-MM-dd HH:mm:ss')", "2026-01-01 12:34:56"},
		{"DATE_FORMAT(ts, 'yyyy/MM/dd HH:mm:ss.SSS')", "2026/01/01 12:34:56.789"},
		{"DATE_FORMAT(ts, fmt)", "2026/01/01"},
		{"DATE_FORMAT(ltz, 'HH''h''mm')", "12h34"},
		{"DATE_FORMAT('2026-05-06 07:08:09', 'dd MMM yyyy')", "06 May 2026"},
		{"DATE_FORMAT(dt, 'yyyyMMdd')", "20260101"},
		{"UNIX_TIMESTAMP()", "1767225600"},
		{"UNIX_TIMESTAMP('2026-01-01 00:00:01')", "1767225601"},
		{"UNIX_TIMESTAMP('2026/01/01', 'yyyy/MM/dd')", "1767225600"},
		{"FROM_UNIXTIME(1767225600)", "2026-01-01 00:00:00"},
		{"FROM_UNIXTIME(secs, 'yyyy')", "2026"},
		{"EXTRACT(YEAR FROM ts)", "2026"},
		{"EXTRACT(MONTH FROM ts)", "1"},
		{"EXTRACT(DAY FROM ts)", "1"},
		{"EXTRACT(HOUR FROM ts)", "12"},
		{"EXTRACT(MINUTE FROM ts)", "34"},
		{"EXTRACT(SECOND FROM ts)", "56"},
		{"EXTRACT(WEEK FROM ts)", "1"},
		{"EXTRACT(WEEK FROM DATE '2027-01-01')", "53"},
		{"EXTRACT(QUARTER FROM DATE '2026-08-01')", "3"},
		{"EXTRACT(YEAR FROM dt)", "2026"},
		{"EXTRACT(HOUR FROM CAST(NULL AS TIMESTAMP(3)))", "NULL"},
		{"HOUR(ts)", "12"},
		{"MINUTE(ltz)", "34"},
		{"SECOND(ts)", "56"},
		{"HOUR(tm)", "12"},
		{"TIMESTAMPDIFF(SECOND, ts, ts + INTERVAL '90' SECOND)", "90"},
		{"TIMESTAMPDIFF(MINUTE, ts, ts + INTERVAL '90' SECOND)", "1"},
		{"TIMESTAMPDIFF(HOUR, ts + INTERVAL '90' MINUTE, ts)", "-1"},
		{"TIMESTAMPDIFF(DAY, dt, DATE '2026-03-01')", "59"},
		// Flink's DateTimeUtils.subtractMonths: January 31st plus one
		// month is February 28th, so one whole month has passed.
		{"TIMESTAMPDIFF(MONTH, TIMESTAMP '2026-01-31 00:00:00', TIMESTAMP '2026-02-28 00:00:00')", "1"},
		{"TIMESTAMPDIFF(MONTH, TIMESTAMP '2026-01-31 00:00:01', TIMESTAMP '2026-02-28 00:00:00')", "0"},
		{"TIMESTAMPDIFF(MONTH, TIMESTAMP '2026-02-15 12:00:00', TIMESTAMP '2026-01-15 00:00:00')", "-2"},
		{"TIMESTAMPDIFF(MONTH, TIMESTAMP '2026-02-15 00:00:00', TIMESTAMP '2026-01-15 12:00:00')", "-1"},
		{"TIMESTAMPDIFF(DAY, TIMESTAMP '2003-01-02 10:00:00', TIMESTAMP '2003-01-03 10:00:00')", "1"},
		{"TIMESTAMPDIFF(QUARTER, DATE '2026-01-31', DATE '2026-04-30')", "1"},
		{"TIMESTAMPDIFF(WEEK, DATE '2026-01-01', DATE '2026-01-14')", "1"},
		{"TIMESTAMPDIFF(MINUTE, ts, ts - INTERVAL '90' SECOND)", "-1"},
		{"TIMESTAMPDIFF(MONTH, TIMESTAMP '2026-01-15 00:00:00', TIMESTAMP '2026-03-15 00:00:00')", "2"},
		{"TIMESTAMPDIFF(YEAR, DATE '2020-06-01', DATE '2026-05-31')", "5"},
		{"PROCTIME()", "2026-01-01 00:00:00.000"},
		{"CURRENT_TIMESTAMP", "2026-01-01 00:00:00.000"},
		{"NOW() > ltz", "FALSE"},
		{"NOW() < ltz", "TRUE"},
	})
}

func TestStrings(t *testing.T) {
	runCases(t, []evalCase{
		{"s || '!'", "Hello World!"},
		{"s || ns", "NULL"},
		{"CONCAT(s, '-', 'x')", "Hello World-x"},
		{"CONCAT(s, ns, 'x')", "NULL"},
		{"CONCAT_WS('-', 'a', ns, 'b')", "a-b"},
		{"CONCAT_WS(ns, 'a', 'b')", "NULL"},
		{"UPPER(s)", "HELLO WORLD"},
		{"LOWER(s)", "hello world"},
		{"UPPER(ns)", "NULL"},
		{"TRIM(txt) || '|'", "42|"},
		{"LTRIM(txt) || '|'", "42 |"},
		{"RTRIM(txt) || '|'", " 42|"},
		{"CHAR_LENGTH(s)", "11"},
		{"CHARACTER_LENGTH('héllo')", "5"},
		{"CHAR_LENGTH(ns)", "NULL"},
		{"SUBSTRING(s, 1, 5)", "Hello"},
		{"SUBSTRING(s FROM 7)", "World"},
		{"SUBSTRING(s, 0, 3)", "Hel"},
		{"SUBSTRING(s, -5)", "World"},
		{"SUBSTRING(s, -5, 2)", "Wo"},
		{"SUBSTRING(s, 20)", ""},
		{"SUBSTRING(s, 7, 100)", "World"},
		{"SUBSTRING(s, 2, -1)", "NULL"},
		{"SUBSTRING('héllo', 2, 3)", "éll"},
		{"REPLACE(s, 'o', '0')", "Hell0 W0rld"},
		{"REGEXP_EXTRACT(s, 'W(or)ld', 1)", "or"},
		{"REGEXP_EXTRACT(s, 'W(or)ld')", "World"},
		{"REGEXP_EXTRACT(s, 'x(y)', 1)", "NULL"},
		{"REGEXP_EXTRACT(s, 'W(or)ld', 2)", "NULL"},
		{"MD5('abc')", "900150983cd24fb0d6963f7d28e17f72"},
		{"HASH_CODE('abc')", "96354"},
		{"HASH_CODE(i)", "7"},
		{"HASH_CODE(flag)", "1231"},
		{"HASH_CODE(ns)", "NULL"},
	})
}

func TestLike(t *testing.T) {
	runCases(t, []evalCase{
		{"s LIKE 'Hello World'", "TRUE"},
		{"s LIKE 'Hello'", "FALSE"},
		{"s LIKE 'Hello%'", "TRUE"},
		{"s LIKE '%World'", "TRUE"},
		{"s LIKE '%lo W%'", "TRUE"},
		{"s LIKE '%xyz%'", "FALSE"},
		{"s LIKE 'H_llo World'", "TRUE"},
		{"s LIKE 'H_llo'", "FALSE"},
		{"s LIKE '%o%o%'", "TRUE"},
		{"s LIKE '%o%o%o%'", "FALSE"},
		{"s LIKE 'H%o%d'", "TRUE"},
		{"s LIKE 'H%o%l'", "FALSE"},
		{"s LIKE '%'", "TRUE"},
		{"s LIKE '%%'", "TRUE"},
		{"s LIKE '___________'", "TRUE"},
		{"s LIKE '__________'", "FALSE"},
		{"s LIKE '%_d'", "TRUE"},
		{"s LIKE 'hello%'", "FALSE"},
		{"s NOT LIKE 'Hello%'", "FALSE"},
		{"ns LIKE '%'", "NULL"},
		{"s LIKE pat", "TRUE"},
		{"'100%' LIKE '100\\%'", "TRUE"},
		{"'1000' LIKE '100\\%'", "FALSE"},
		{"'a_b' LIKE 'a\\_b'", "TRUE"},
		{"'axb' LIKE 'a\\_b'", "FALSE"},
		{"'héllo' LIKE 'h_llo'", "TRUE"},
		{"'' LIKE ''", "TRUE"},
		{"'' LIKE '_'", "FALSE"},
		{"'abcabc' LIKE '%abc'", "TRUE"},
		{"'abab' LIKE 'a%ab'", "TRUE"},
		{"'ab' LIKE 'a%ab'", "FALSE"},
	})
}

func TestMath(t *testing.T) {
	runCases(t, []evalCase{
		{"ABS(-i)", "7"},
		{"ABS(-amount)", "12.34"},
		{"ABS(-d)", "2.5"},
		{"ABS(ni)", "NULL"},
		// FLOOR and CEIL of a DECIMAL(p, s) are DECIMAL(p, 0) (Flink's
		// DECIMAL_SCALE_0).
		{"FLOOR(amount)", "12"},
		{"CEIL(amount)", "13"},
		{"FLOOR(-amount)", "-13"},
		{"CEIL(-amount)", "-12"},
		{"FLOOR(d)", "2.0"},
		{"CEIL(d)", "3.0"},
		{"FLOOR(i)", "7"},
		{"POWER(2, 10)", "1024.0"},
		{"SQRT(16)", "4.0"},
		{"SQRT(amount)", "3.5128336140500593"},
		{"LN(1)", "0.0"},
		{"LOG10(1000)", "3.0"},
		{"EXP(0)", "1.0"},
		{"POWER(ni, 2)", "NULL"},
	})
}

func TestPredicate(t *testing.T) {
	vals := testRow()
	for _, tc := range []struct {
		src  string
		want bool
	}{
		{"i > 5", true},
		{"i > ni", false}, // NULL counts as false
		{"nb", false},
		{"flag AND amount > 12", true},
		{"NOT (i > ni)", false},
	} {
		p, err := CompilePredicate(bind(t, tc.src))
		if err != nil {
			t.Fatalf("%s: %v", tc.src, err)
		}
		got, err := p(vals)
		if err != nil || got != tc.want {
			t.Errorf("%s = %v, %v; want %v", tc.src, got, err, tc.want)
		}
	}
	if _, err := CompilePredicate(bind(t, "i + 1")); err == nil {
		t.Error("CompilePredicate(i + 1) succeeded, want an error: not BOOLEAN")
	}
}

func TestCompileErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"CURRENT_WATERMARK(ts)", "CURRENT_WATERMARK is supported in WHERE and SELECT only"},
		{"9999999999999999999 + i", "DECIMAL overflow"},
		{"REGEXP_EXTRACT(s, '(')", "invalid regular expression"},
		{"DATE_FORMAT(ts, 'yyyy-MM-dd Z')", "letter 'Z' is a time zone"},
		{"DATE_FORMAT(ts, 'yyyy-MM-dd bb')", "unknown pattern letter 'b'"},
		{"TO_TIMESTAMP(s, 'YYYYww')", "letter 'Y' cannot be parsed"},
	} {
		_, err := Compile(bind(t, tc.src))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Compile(%s) error = %v, want it to contain %q", tc.src, err, tc.want)
		}
	}
}

func TestRuntimeErrorClasses(t *testing.T) {
	vals := testRow()
	for _, tc := range []struct {
		src   string
		class error
	}{
		{"i / zero", ErrDivisionByZero},
		{"big + 1", ErrOverflow},
		{"big_amount * 10", ErrOverflow},
		{"CAST('abc' AS INT)", ErrInvalidCast},
	} {
		f, err := Compile(bind(t, tc.src))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f(vals); !errors.Is(err, tc.class) {
			t.Errorf("%s: error %v, want class %v", tc.src, err, tc.class)
		}
	}
}

func TestShortRowIsAnError(t *testing.T) {
	f, err := Compile(bind(t, "amount * 2"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f([]row.Value{row.IntValue(1)}); err == nil {
		t.Error("evaluating over a too-short row succeeded, want an error")
	}
}

// TestExtractUnits builds EXTRACT calls by hand: the parser knows only the
// common units.
func TestExtractUnits(t *testing.T) {
	ts := &expr.Column{Index: 5, Name: "ts", T: types.TimestampOf(3)}
	vals := testRow()
	for _, tc := range []struct {
		unit string
		arg  expr.Expr
		want int64
	}{
		{"MILLISECOND", ts, 56789},
		{"MICROSECOND", ts, 56789000},
		{"DOW", ts, 5}, // Thursday
		{"ISODOW", ts, 4},
		{"DOY", &expr.Const{V: "2026-12-31", T: types.New(types.Date)}, 365},
		{"EPOCH", ts, 1767270896},
		{"CENTURY", ts, 21},
		{"DECADE", ts, 202},
		{"MILLENNIUM", ts, 3},
		{"WEEK", &expr.Const{V: "2021-01-03", T: types.New(types.Date)}, 53},
	} {
		e := &expr.Call{Fn: "EXTRACT", Args: []expr.Expr{&expr.Const{V: tc.unit, T: types.StringType()}, tc.arg}, T: types.New(types.BigInt)}
		f, err := Compile(e)
		if err != nil {
			t.Fatalf("%s: %v", e, err)
		}
		v, err := f(vals)
		if err != nil || v.Int() != tc.want {
			t.Errorf("%s = %v, %v; want %d", e, v, err, tc.want)
		}
	}
	e := &expr.Call{Fn: "EXTRACT", Args: []expr.Expr{&expr.Const{V: "FORTNIGHT", T: types.StringType()}, ts}, T: types.New(types.BigInt)}
	if _, err := Compile(e); err == nil || !strings.Contains(err.Error(), "FORTNIGHT") {
		t.Errorf("Compile(%s) error = %v, want one naming FORTNIGHT", e, err)
	}
}

func TestUnsupportedFunction(t *testing.T) {
	e := &expr.Call{Fn: "SOUNDEX", Args: []expr.Expr{&expr.Const{V: "x", T: types.StringType()}}, T: types.StringType()}
	if _, err := Compile(e); err == nil || !strings.Contains(err.Error(), "unsupported function SOUNDEX") {
		t.Errorf("Compile(SOUNDEX) error = %v, want unsupported function SOUNDEX", err)
	}
}

// TestDecimalDivisionScaleLimit pins down the documented limit: Flink's
// division scale leaves few integer digits in 18.
func TestDecimalDivisionScaleLimit(t *testing.T) {
	runCases(t, []evalCase{
		{"da / 2", "500.0050000000000"},
		{"CAST(200000.00 AS DECIMAL(15, 2)) / 2", "error: DECIMAL overflow"},
		{"CAST(CAST(200000.00 AS DECIMAL(15, 2)) AS DOUBLE) / 2", "100000.0"},
	})
}

// TestCurrentWatermark: Flink's CURRENT_WATERMARK is the watermark of the
// operator evaluating it, NULL before the first one, read on every row
// (never folded).
func TestCurrentWatermark(t *testing.T) {
	wm, have := int64(0), false
	f, err := CompileWith(bind(t, "CURRENT_WATERMARK(ts)"), Options{Watermark: func() (int64, bool) { return wm, have }})
	if err != nil {
		t.Fatal(err)
	}
	if v, err := f(testRow()); err != nil || !v.IsNull() {
		t.Errorf("before the first watermark: %v, %v; want NULL", v, err)
	}
	wm, have = 1767270890000, true
	if v, err := f(testRow()); err != nil || v.Int() != wm {
		t.Errorf("after a watermark: %v, %v; want %d", v, err, wm)
	}
	p, err := CompilePredicateWith(bind(t, "CURRENT_WATERMARK(ts) IS NULL OR ts > CURRENT_WATERMARK(ts)"),
		Options{Watermark: func() (int64, bool) { return wm, have }})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		wm   int64
		have bool
		want bool
	}{{0, false, true}, {1767270896788, true, true}, {1767270896789, true, false}} {
		wm, have = c.wm, c.have
		if got, err := p(testRow()); err != nil || got != c.want {
			t.Errorf("late filter at watermark %d (%v): %v, %v; want %v", c.wm, c.have, got, err, c.want)
		}
	}
}
