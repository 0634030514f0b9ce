//go:build !unix

package main

import "os"

// maxRSSMB is not measured here.
func maxRSSMB(*os.ProcessState) float64 { return 0 }
