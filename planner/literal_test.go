package planner

import (
	"strings"
	"testing"

	"github.com/streamsql/streamsql/diag"
)

// TestTemporalLiterals checks the binder's TIMESTAMP, DATE and TIME literal
// check (civil.Strict in the literal's shape): what passes, and the reason
// given for what does not.
func TestTemporalLiterals(t *testing.T) {
	for _, c := range []struct {
		lit  string
		want string // "" when the literal is accepted, else part of the SQL108 message
	}{
		{"TIMESTAMP '2024-01-01 00:00:00.123'", ""},
		{"TIMESTAMP '2024-01-01T00:00:00'", ""},
		{"TIMESTAMP '2024-01-01 00:00:00.123456789'", ""},
		{"TIMESTAMP '2024-13-45 00:00:00'", `invalid TIMESTAMP literal '2024-13-45 00:00:00': "2024-13-45 00:00:00" has month 13`},
		{"TIMESTAMP '0000-01-01 00:00:00'", `"0000-01-01 00:00:00" is before year 1`},
		{"TIMESTAMP '2024-02-30 00:00:00'", "has no day 30 in that month"},
		{"TIMESTAMP '2024-01-01 00:60:00'", "is not a valid time of day"},
		{"TIMESTAMP '2024-01-01 00:00'", "expected 'yyyy-MM-dd HH:mm:ss[.fff]'"},
		{"TIMESTAMP '2024-01-01 1:00:00'", "expected 'yyyy-MM-dd HH:mm:ss[.fff]'"},
		{"TIMESTAMP '2024-01-01 00:00:00Z'", "expected 'yyyy-MM-dd HH:mm:ss[.fff]'"},
		{"TIMESTAMP '2024-01-01 00:00:00.'", "expected 'yyyy-MM-dd HH:mm:ss[.fff]'"},
		{"DATE '2024-02-29'", ""},
		{"DATE '2023-02-29'", `invalid DATE literal '2023-02-29': "2023-02-29" has no day 29 in that month`},
		{"DATE '0000-01-01'", "is before year 1"},
		{"DATE 'tomorrow'", "invalid DATE literal 'tomorrow': expected 'yyyy-MM-dd'"},
		{"DATE '2024-1-1'", "expected 'yyyy-MM-dd'"},
		{"TIME '10:00:00.5'", ""},
		{"TIME '24:00:00'", "invalid TIME literal '24:00:00': expected 'HH:mm:ss[.fff]'"},
		{"TIME '10:00'", "expected 'HH:mm:ss[.fff]'"},
	} {
		l := checkSource(diag.NewSource("t.sql", "CREATE TABLE t (a INT) WITH ('connector' = 'datagen');\nSELECT "+c.lit+" FROM t;"))
		var msgs []string
		for _, d := range l.Items {
			if d.Severity == diag.Error {
				msgs = append(msgs, string(d.Code)+": "+d.Msg)
			}
		}
		got := strings.Join(msgs, "\n")
		switch {
		case c.want == "" && got != "":
			t.Errorf("%s: %s", c.lit, got)
		case c.want != "" && (len(msgs) != 1 || !strings.Contains(got, "SQL108") || !strings.Contains(got, c.want)):
			t.Errorf("%s:\n got %s\nwant one SQL108 containing %s", c.lit, got, c.want)
		}
	}
}
