package filesystem

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/format"
)

func init() {
	connector.RegisterSource("filesystem", func(spec connector.Spec) (connector.Source, error) { return NewSource(spec) })
	connector.RegisterSink("filesystem", func(spec connector.Spec) (connector.Sink, error) {
		if len(spec.PartitionKeys) > 0 {
			return NewPartSink(spec)
		}
		return NewSink(spec)
	})
}

// settings are what both directions read from the table.
type settings struct {
	path   string
	format string
	opts   format.Options
}

func readSettings(spec connector.Spec) (settings, error) {
	c := spec.Options
	if c == nil {
		return settings{}, errors.New("filesystem: the table has no connector configuration")
	}
	p := c.Get("path")
	if p == "" {
		return settings{}, errors.New("filesystem: table " + spec.Table + " has no 'path'")
	}
	p, err := connectors.LocalPath(p)
	if err != nil {
		return settings{}, fmt.Errorf("filesystem: table %s: 'path': %w", spec.Table, err)
	}
	if !filepath.IsAbs(p) && spec.BaseDir != "" {
		p = filepath.Join(spec.BaseDir, p)
	}
	if spec.Format == "" {
		return settings{}, errors.New("filesystem: table " + spec.Table + " has no 'format'")
	}
	return settings{path: p, format: spec.Format, opts: c}, nil
}
