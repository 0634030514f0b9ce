package connector

import (
	"errors"
	"io"
	"slices"
	"testing"
)

func TestRegistry(t *testing.T) {
	f := func(Spec) (Source, error) { return nil, io.EOF }
	RegisterSource("test-registry-src", f)
	RegisterSink("test-registry-snk", func(Spec) (Sink, error) { return nil, nil })
	got, ok := LookupSource("test-registry-src")
	if !ok {
		t.Fatal("registered source not found")
	}
	if _, err := got(Spec{}); !errors.Is(err, io.EOF) {
		t.Errorf("lookup returned another factory: %v", err)
	}
	if _, ok := LookupSource("test-registry-snk"); ok {
		t.Error("a sink-only connector is readable")
	}
	if _, ok := LookupSink("test-registry-snk"); !ok {
		t.Error("registered sink not found")
	}
	srcs, snks := Registered()
	if !slices.Contains(srcs, "test-registry-src") || !slices.Contains(snks, "test-registry-snk") || !slices.IsSorted(srcs) || !slices.IsSorted(snks) {
		t.Errorf("Registered() = %q, %q", srcs, snks)
	}
	defer func() {
		if recover() == nil {
			t.Error("registering a source twice did not panic")
		}
	}()
	RegisterSource("test-registry-src", f)
}

func TestBadRowError(t *testing.T) {
	inner := errors.New("unexpected end of JSON")
	var err error = &BadRowError{Where: "in.json:3", Err: inner, Raw: []byte("{")}
	if got, want := err.Error(), "in.json:3: bad row: unexpected end of JSON"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if !errors.Is(err, inner) {
		t.Error("BadRowError does not unwrap to its cause")
	}
}
