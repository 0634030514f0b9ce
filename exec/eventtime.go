package exec

import (
	"fmt"
	"github.com/streamsql/streamsql/connector"

	"github.com/streamsql/streamsql/row"
)

// The range of event time: years 1 to 9999, UTC, in milliseconds since the
// epoch. The formats read and write no other time; a time beyond it comes
// only from a computed column or arithmetic (TO_TIMESTAMP_LTZ of a BIGINT
// that is not an epoch in milliseconds), and would overflow the arithmetic
// of watermarks and windows.
const (
	// MinEventTime is 0001-01-01 00:00:00.000.
	MinEventTime = row.MinMillis
	// MaxEventTime is 9999-12-31 23:59:59.999.
	MaxEventTime = row.MaxMillis
)

// eventTime reads the event time v of a row, from column col (its name,
// for the reason). ok is false when the row cannot be placed in time: the
// time is NULL or outside MinEventTime..MaxEventTime; why says which, for
// the dead-letter file.
//
// What a time-based operator does with such a row (Flink's window
// assigner throws instead): it counts it (Counters.NoTime, and the source's
// through its lateWriter) and, when it drops it, writes it to the
// dead-letter file with why. An outer join side still emits it padded with
// NULLs (it meets nothing, which is its SQL answer), counted, not written.
func eventTime(v row.Value, col string) (t int64, why string, ok bool) {
	if v.IsNull() {
		return 0, "no event time: " + col + " is NULL", false
	}
	t = v.Int()
	switch {
	case t < MinEventTime:
		return t, fmt.Sprintf("event time out of range: %s is %d ms from 1970-01-01, before year 1", col, t), false
	case t > MaxEventTime:
		return t, fmt.Sprintf("event time out of range: %s is %d ms from 1970-01-01, beyond year 9999", col, t), false
	}
	return t, "", true
}

// validTime reports whether t is an event time that can be placed in time.
func validTime(t int64) bool { return t >= MinEventTime && t <= MaxEventTime }

// colName is the name of column i of cols, or $i.
func colName(cols []connector.Column, i int) string {
	if i >= 0 && i < len(cols) {
		return cols[i].Name
	}
	return fmt.Sprintf("$%d", i)
}
