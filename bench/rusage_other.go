//go:build !unix

package main

import (
	"os"
	"time"
)

// maxRSSMB is not measured here.
func maxRSSMB(*os.ProcessState) float64 { return 0 }

// selfCPU is not measured here.
func selfCPU() time.Duration { return 0 }
