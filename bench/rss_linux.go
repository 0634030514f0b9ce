package main

import (
	"bytes"
	"os"
	"strconv"
	"time"
)

// sampleRSS reads the resident memory of process pid from
// /proc/PID/status every 100 ms until done is closed, and returns the peak
// anonymous (RssAnon: the Go heap, stacks, Badger's allocations) and
// file-backed (RssFile: the binary and Badger's memory-mapped tables) MB
// seen. The peaks are of separate samples, so they need not add up to
// the process's peak RSS.
func sampleRSS(pid int, done <-chan struct{}) (anonMB, fileMB float64) {
	path := "/proc/" + strconv.Itoa(pid) + "/status"
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		if b, err := os.ReadFile(path); err == nil {
			anonMB = max(anonMB, statusMB(b, "RssAnon:"))
			fileMB = max(fileMB, statusMB(b, "RssFile:"))
		}
		select {
		case <-done:
			return anonMB, fileMB
		case <-t.C:
		}
	}
}

// statusMB is the value of a "Name:   N kB" line of /proc/PID/status in MB.
func statusMB(status []byte, name string) float64 {
	i := bytes.Index(status, []byte(name))
	if i < 0 {
		return 0
	}
	line := status[i+len(name):]
	if j := bytes.IndexByte(line, '\n'); j >= 0 {
		line = line[:j]
	}
	kb, err := strconv.ParseFloat(string(bytes.TrimSuffix(bytes.TrimSpace(line), []byte(" kB"))), 64)
	if err != nil {
		return 0
	}
	return kb / 1024
}
