package web

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/metrics"

	"github.com/streamsql/streamsql/settings"
)

func TestAddress(t *testing.T) {
	cases := []struct {
		flag     string
		settings map[string]string
		want     string
		bad      bool
	}{
		{flag: "", want: ""},
		{flag: "127.0.0.1:8081", want: "127.0.0.1:8081"},
		{flag: "8081", want: "127.0.0.1:8081"},
		{flag: ":8081", want: "127.0.0.1:8081"}, // no host: loopback, not every interface
		{flag: "0.0.0.0:9000", want: "0.0.0.0:9000"},
		{flag: "[::1]:0", want: "[::1]:0"},
		{flag: "localhost:1", want: "localhost:1"},
		{settings: map[string]string{"rest.port": "9999"}, want: "127.0.0.1:9999"},
		{settings: map[string]string{"rest.address": "127.0.0.2"}, want: "127.0.0.2:8081"},
		{settings: map[string]string{"rest.address": "0.0.0.0", "rest.port": "0"}, want: "0.0.0.0:0"},
		{flag: "127.0.0.1:7000", settings: map[string]string{"rest.port": "9999"}, want: "127.0.0.1:7000"}, // the flag wins
		{flag: "127.0.0.1:http", bad: true},
		{flag: "70000", bad: true},
		{flag: "1:2:3", bad: true},
	}
	for _, c := range cases {
		var v settings.Values
		for k, x := range c.settings {
			v.Set(k, x)
		}
		set, err := settings.Resolve(v)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Address(c.flag, set)
		if c.bad {
			if err == nil {
				t.Errorf("Address(%q, %v) = %q, want an error", c.flag, c.settings, got)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("Address(%q, %v) = %q, %v; want %q", c.flag, c.settings, got, err, c.want)
		}
	}
}

// The server hands out Go's profiles (a heap profile is a gzipped
// protocol buffer) but not the process's command line.
func TestProfiles(t *testing.T) {
	srv := httptest.NewServer(Handler(&metrics.Registry{}))
	defer srv.Close()
	get := func(path string) (int, []byte) {
		t.Helper()
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, b
	}
	code, body := get("/debug/pprof/heap")
	if code != http.StatusOK || !bytes.HasPrefix(body, []byte{0x1f, 0x8b}) {
		t.Errorf("GET /debug/pprof/heap: %d, %d bytes starting %q; want 200 and a gzipped profile", code, len(body), body[:min(len(body), 16)])
	}
	if code, body = get("/debug/pprof/"); code != http.StatusOK || !strings.Contains(string(body), "goroutine") {
		t.Errorf("GET /debug/pprof/: %d; want 200 and the index of profiles", code)
	}
	code, body = get("/debug/pprof/cmdline")
	if code == http.StatusOK || strings.Contains(string(body), os.Args[0]) {
		t.Errorf("GET /debug/pprof/cmdline: %d, %q; want no command line", code, body)
	}
}
