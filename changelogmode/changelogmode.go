package changelogmode

import (
	"fmt"
	"strings"
)

// Kind is the kind of one change in a changelog stream.
type Kind uint8

// The four kinds of change, in the order Mode.String lists them.
const (
	Insert       Kind = iota // +I
	UpdateBefore             // -U
	UpdateAfter              // +U
	Delete                   // -D

	numKinds = 4
)

var kindNames = [numKinds]string{"+I", "-U", "+U", "-D"}

// Valid reports whether k is one of the four defined kinds.
func (k Kind) Valid() bool { return k < numKinds }

// String returns the short form Flink uses: "+I", "-U", "+U" or "-D". An
// invalid kind prints as "Kind(n)".
func (k Kind) String() string {
	if !k.Valid() {
		return fmt.Sprintf("Kind(%d)", uint8(k))
	}
	return kindNames[k]
}

// ParseKind parses the short form of a kind ("+I", "-U", "+U", "-D"), as
// String prints it. Surrounding blanks are ignored.
func ParseKind(s string) (Kind, error) {
	k, ok := lookupKind(s)
	if !ok {
		return 0, fmt.Errorf("changelogmode: unknown change kind %q (want one of +I, -U, +U, -D)", s)
	}
	return k, nil
}

func lookupKind(s string) (Kind, bool) {
	t := strings.TrimSpace(s)
	for i, n := range kindNames {
		if t == n {
			return Kind(i), true
		}
	}
	return 0, false
}

// Mode is a set of kinds. The zero Mode is empty. Bit k is set when Kind k
// is in the set; bits above the four kinds are never set by this package.
type Mode uint8

// The modes Flink names. See the package documentation.
const (
	InsertOnly Mode = 1 << Insert
	Upsert     Mode = 1<<Insert | 1<<UpdateAfter | 1<<Delete
	All        Mode = 1<<Insert | 1<<UpdateBefore | 1<<UpdateAfter | 1<<Delete
)

// Of returns the mode holding exactly the given kinds. Duplicates are
// harmless. It panics on an invalid kind, which is a programming error.
func Of(kinds ...Kind) Mode {
	var m Mode
	for _, k := range kinds {
		if !k.Valid() {
			panic(fmt.Sprintf("changelogmode.Of: invalid %v", k))
		}
		m |= 1 << k
	}
	return m
}

// Has reports whether k is in m. It is false for an invalid kind.
func (m Mode) Has(k Kind) bool { return k.Valid() && m&(1<<k) != 0 }

// Contains reports whether m is a superset of other: every kind other may
// emit is one m accepts. Every mode contains the empty mode.
func (m Mode) Contains(other Mode) bool { return other&^m == 0 }

// Union returns the kinds in m or in other.
func (m Mode) Union(other Mode) Mode { return m | other }

// Minus returns the kinds in m that are not in other.
func (m Mode) Minus(other Mode) Mode { return m &^ other }

// IsEmpty reports whether m holds no kinds.
func (m Mode) IsEmpty() bool { return m == 0 }

// IsInsertOnly reports whether m is exactly [+I]. The empty mode is not
// insert-only: a node that emits nothing has no mode to speak of yet.
func (m Mode) IsInsertOnly() bool { return m == InsertOnly }

// Kinds returns the kinds in m in the order +I, -U, +U, -D. It returns nil
// for the empty mode.
func (m Mode) Kinds() []Kind {
	var ks []Kind
	for k := Kind(0); k < numKinds; k++ {
		if m.Has(k) {
			ks = append(ks, k)
		}
	}
	return ks
}

// String prints m as a bracketed, comma-separated list in the fixed order
// +I, -U, +U, -D, such as "[+I,-U,+U,-D]"; the empty mode prints "[]". A
// value with bits outside the four kinds (only possible by conversion from
// an integer) prints as "Mode(0xNN)" so the mistake is visible.
func (m Mode) String() string {
	if m&^All != 0 {
		return fmt.Sprintf("Mode(0x%02x)", uint8(m))
	}
	var b strings.Builder
	b.WriteByte('[')
	for i, k := range m.Kinds() {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(kindNames[k])
	}
	b.WriteByte(']')
	return b.String()
}

// ParseMode parses the form String prints: "[+I,+U,-D]", "[]". Blanks around
// the brackets and kinds are ignored; kinds may come in any order, but a kind
// given twice or an empty element is an error.
func ParseMode(s string) (Mode, error) {
	t := strings.TrimSpace(s)
	if len(t) < 2 || t[0] != '[' || t[len(t)-1] != ']' {
		return 0, fmt.Errorf("changelogmode: mode %q must be a bracketed list such as [+I,+U,-D]", s)
	}
	body := strings.TrimSpace(t[1 : len(t)-1])
	if body == "" {
		return 0, nil
	}
	var m Mode
	for part := range strings.SplitSeq(body, ",") {
		k, ok := lookupKind(part)
		if !ok {
			return 0, fmt.Errorf("changelogmode: mode %q has unknown change kind %q (want one of +I, -U, +U, -D)",
				s, strings.TrimSpace(part))
		}
		if m.Has(k) {
			return 0, fmt.Errorf("changelogmode: mode %q lists %v twice", s, k)
		}
		m |= 1 << k
	}
	return m, nil
}
