package eval

import (
	"errors"
	"fmt"
)

// Classes of run-time errors. Every error a Func returns wraps one of these,
// so that the runtime can count and route bad rows by cause with errors.Is.
var (
	// ErrOverflow: an integer result outside its type's range, or a DECIMAL
	// beyond 18 digits ("DECIMAL overflow").
	ErrOverflow = errors.New("numeric overflow")
	// ErrDivisionByZero: integer or DECIMAL division (or modulo) by zero.
	ErrDivisionByZero = errors.New("division by zero")
	// ErrInvalidCast: a CAST whose input cannot be converted, such as
	// CAST('abc' AS INT). TRY_CAST returns NULL instead.
	ErrInvalidCast = errors.New("invalid cast")
	// ErrInvalidArgument: a function argument outside its domain, such as a
	// negative length or a bad format pattern computed at run time.
	ErrInvalidArgument = errors.New("invalid argument")
)

// Error is a run-time evaluation error: a message for the user, and its
// class (one of the Err variables) for errors.Is.
type Error struct {
	Class error
	Msg   string
}

func (e *Error) Error() string { return e.Msg }

// Unwrap returns the class.
func (e *Error) Unwrap() error { return e.Class }

func errorf(class error, format string, args ...any) error {
	return &Error{Class: class, Msg: fmt.Sprintf(format, args...)}
}
