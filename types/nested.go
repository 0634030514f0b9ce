package types

import (
	"strings"
	"sync"
)

// nested holds the element types of an ARRAY, MAP or ROW. Descriptors are
// interned by their canonical text (which includes every element's
// nullability and every field name), so two nested types are the same
// exactly when their T values are ==.
type nested struct {
	elems []T      // ARRAY: [elem]; MAP: [key, value]; ROW: the fields' types
	names []string // ROW: the fields' names
	text  string   // the canonical spelling, e.g. ARRAY<INT NOT NULL>
}

var interned sync.Map // canonical text -> *nested

func intern(k Kind, elems []T, names []string) *nested {
	var b strings.Builder
	switch k {
	case Array:
		b.WriteString("ARRAY<")
		b.WriteString(elems[0].String())
	case Map:
		b.WriteString("MAP<")
		b.WriteString(elems[0].String())
		b.WriteString(", ")
		b.WriteString(elems[1].String())
	default:
		b.WriteString("ROW<")
		for i, e := range elems {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(QuoteName(names[i]))
			b.WriteByte(' ')
			b.WriteString(e.String())
		}
	}
	b.WriteByte('>')
	text := b.String()
	if n, ok := interned.Load(text); ok {
		return n.(*nested)
	}
	n, _ := interned.LoadOrStore(text, &nested{elems: append([]T(nil), elems...), names: append([]string(nil), names...), text: text})
	return n.(*nested)
}

// QuoteName is a ROW field name as Flink prints it in a type: in
// backquotes, a backquote inside doubled.
func QuoteName(name string) string {
	return "`" + strings.ReplaceAll(name, "`", "``") + "`"
}

// Field is one field of a ROW type.
type Field struct {
	Name string
	Type T
}

// ArrayOf returns ARRAY<elem>, nullable.
func ArrayOf(elem T) T {
	return T{Kind: Array, Nullable: true, nest: intern(Array, []T{elem}, nil)}
}

// MapOf returns MAP<key, value>, nullable.
func MapOf(key, value T) T {
	return T{Kind: Map, Nullable: true, nest: intern(Map, []T{key, value}, nil)}
}

// RowOf returns ROW<fields>, nullable. Field names are kept as given; the
// caller (FromAST) checks that they are distinct.
func RowOf(fields ...Field) T {
	elems := make([]T, len(fields))
	names := make([]string, len(fields))
	for i, f := range fields {
		elems[i], names[i] = f.Type, f.Name
	}
	return T{Kind: Row, Nullable: true, nest: intern(Row, elems, names)}
}

// Elem is the element type of an ARRAY (the zero T for other kinds).
func (t T) Elem() T {
	if t.Kind != Array || t.nest == nil {
		return T{}
	}
	return t.nest.elems[0]
}

// Key is the key type of a MAP (the zero T for other kinds).
func (t T) Key() T {
	if t.Kind != Map || t.nest == nil {
		return T{}
	}
	return t.nest.elems[0]
}

// Value is the value type of a MAP (the zero T for other kinds).
func (t T) Value() T {
	if t.Kind != Map || t.nest == nil {
		return T{}
	}
	return t.nest.elems[1]
}

// NumFields is the number of fields of a ROW (0 for other kinds).
func (t T) NumFields() int {
	if t.Kind != Row || t.nest == nil {
		return 0
	}
	return len(t.nest.elems)
}

// Fields returns the fields of a ROW (nil for other kinds). The slice is
// new; changing it changes nothing.
func (t T) Fields() []Field {
	n := t.NumFields()
	if n == 0 {
		return nil
	}
	fs := make([]Field, n)
	for i := range fs {
		fs[i] = Field{Name: t.nest.names[i], Type: t.nest.elems[i]}
	}
	return fs
}

// FieldIndex returns the index of the ROW field called name, matched as
// Flink matches column names (exactly, case-sensitively), and -1 if there
// is none.
func (t T) FieldIndex(name string) int {
	for i := 0; i < t.NumFields(); i++ {
		if t.nest.names[i] == name {
			return i
		}
	}
	return -1
}

// FieldIndexFold is FieldIndex ignoring case; it returns -1 unless exactly
// one field matches (for "did you mean" hints).
func (t T) FieldIndexFold(name string) int {
	found := -1
	for i := 0; i < t.NumFields(); i++ {
		if strings.EqualFold(t.nest.names[i], name) {
			if found >= 0 {
				return -1
			}
			found = i
		}
	}
	return found
}

func (t T) nestedString() string {
	if t.nest == nil {
		return t.Kind.String() + "<?>"
	}
	return t.nest.text
}

// elemsOf returns the element types of a nested type, in the order the
// descriptor keeps them.
func (t T) elemsOf() []T {
	if t.nest == nil {
		return nil
	}
	return t.nest.elems
}

// sameShape reports whether two nested types of one kind have the same
// number of elements (and, for ROW, nothing else: field names do not
// matter to comparisons and casts, as in Flink).
func sameShape(a, b T) bool {
	return a.Kind == b.Kind && a.nest != nil && b.nest != nil && len(a.nest.elems) == len(b.nest.elems)
}

// SameIgnoringNullDeep reports whether a and b are the same type apart from
// nullability, at every level of nesting (ARRAY<INT NOT NULL> and
// ARRAY<INT>), and apart from ROW field names. Values of two such types
// have the same runtime encoding.
func SameIgnoringNullDeep(a, b T) bool {
	if !a.Kind.IsNested() {
		return SameIgnoringNull(a, b)
	}
	if !sameShape(a, b) {
		return false
	}
	ea, eb := a.elemsOf(), b.elemsOf()
	for i := range ea {
		if !SameIgnoringNullDeep(ea[i], eb[i]) {
			return false
		}
	}
	return true
}
