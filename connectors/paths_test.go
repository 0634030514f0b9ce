package connectors

import "testing"

// TestLocalPath: file options are paths or file: URIs, read as Flink's Path
// reads them (no percent-decoding); other schemes and remote hosts are
// errors.
func TestLocalPath(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"data.json", "data.json"},
		{"./out/x.json", "./out/x.json"},
		{"/abs/x.json", "/abs/x.json"},
		{"dir/a:b.json", "dir/a:b.json"},
		{"file:///abs/x.json", "/abs/x.json"},
		{"FILE:///abs/x.json", "/abs/x.json"},
		{"file://localhost/abs/x.json", "/abs/x.json"},
		{"file:/abs/x.json", "/abs/x.json"},
		{"file:///abs/a%20b.json", "/abs/a%20b.json"},
		{"C:/data/x.json", "C:/data/x.json"},
	} {
		got, err := LocalPath(c.in)
		if err != nil || got != c.want {
			t.Errorf("LocalPath(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	for _, in := range []string{"hdfs://nn/x.json", "s3://b/x", "file://data.json", "file://host/abs", "file:rel.json", "data:x.json"} {
		if got, err := LocalPath(in); err == nil {
			t.Errorf("LocalPath(%q) = %q, want an error", in, got)
		}
	}
	if got, err := ResolvePath("file:///a/b/../c.json", "/base"); err != nil || got != "/a/c.json" {
		t.Errorf("ResolvePath = %q, %v", got, err)
	}
	if got, err := ResolvePath("x/./y.json", "/base"); err != nil || got != "/base/x/y.json" {
		t.Errorf("ResolvePath = %q, %v", got, err)
	}
}
