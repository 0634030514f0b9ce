package filesystem

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/exec"
	"github.com/streamsql/streamsql/format"
)

func init() {
	exec.RegisterSource("filesystem", func(spec exec.Spec) (exec.Source, error) { return NewSource(spec) })
	exec.RegisterSink("filesystem", func(spec exec.Spec) (exec.Sink, error) { return NewSink(spec) })
}

// settings are what both directions read from the table.
type settings struct {
	path   string
	format string
	opts   format.Options
}

func readSettings(spec exec.Spec) (settings, error) {
	t := spec.Table
	if t == nil || t.Config == nil {
		return settings{}, errors.New("filesystem: the table has no connector configuration")
	}
	c := t.Config
	p := c.Get("path")
	if p == "" {
		return settings{}, errors.New("filesystem: table " + t.Name + " has no 'path'")
	}
	p, err := connectors.LocalPath(p)
	if err != nil {
		return settings{}, fmt.Errorf("filesystem: table %s: 'path': %w", t.Name, err)
	}
	if !filepath.IsAbs(p) && spec.BaseDir != "" {
		p = filepath.Join(spec.BaseDir, p)
	}
	if c.Format == nil {
		return settings{}, errors.New("filesystem: table " + t.Name + " has no 'format'")
	}
	return settings{path: p, format: c.Format.Name, opts: c}, nil
}
