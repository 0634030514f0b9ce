package connectors

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// LocalPath turns the value of a file option ('path' of the filesystem
// connector, 'scan.late-rows.path') into a path on this machine. As in
// Flink, the value is a path or a URI: a plain path is taken as written
// (relative to the job file's directory, see ResolvePath), and a file: URI
// names a local file, written file:///abs/path (no host), file://localhost/abs/path
// or file:/abs/path. Like Flink's Path, the URI's text is not
// percent-decoded. Any other scheme (hdfs://, s3://) and a URI naming
// another host are errors: streamsql reads and writes local files only.
func LocalPath(v string) (string, error) {
	scheme, rest, ok := strings.Cut(v, ":")
	if !ok || !isScheme(scheme) || len(scheme) == 1 {
		// No scheme (a one-letter "scheme" is a Windows drive, C:\...).
		return v, nil
	}
	if !strings.EqualFold(scheme, "file") {
		return "", fmt.Errorf("scheme %s:// is not supported: streamsql reads and writes local files only (a path, or file:///abs/path)", strings.ToLower(scheme))
	}
	if host, ok := strings.CutPrefix(rest, "//"); ok {
		h, p, _ := strings.Cut(host, "/")
		if h != "" && !strings.EqualFold(h, "localhost") {
			return "", fmt.Errorf("this file URI names the host %q: write file:///abs/path (three slashes) for a local file, or the path itself", h)
		}
		rest = "/" + p
	}
	if !strings.HasPrefix(rest, "/") {
		return "", errors.New("a file URI needs an absolute path: write file:///abs/path, or the path itself")
	}
	return rest, nil
}

// isScheme reports whether s is a URI scheme: a letter, then letters,
// digits, '+', '-' or '.'.
func isScheme(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		other := c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'
		if !letter && (i == 0 || !other) {
			return false
		}
	}
	return true
}

// ResolvePath is LocalPath made absolute: a relative path is taken from
// baseDir (the job file's directory; the current directory when baseDir
// is ""), and the result is cleaned. It does not touch the file system.
func ResolvePath(v, baseDir string) (string, error) {
	p, err := LocalPath(v)
	if err != nil {
		return "", err
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(baseDir, p)
	}
	return filepath.Abs(p)
}

// localPath is the Validate of a file option.
func localPath(v string) error {
	if err := nonEmpty(v); err != nil {
		return err
	}
	_, err := LocalPath(v)
	return err
}
