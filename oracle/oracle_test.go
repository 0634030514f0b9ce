package oracle

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

var (
	seedFlag     = flag.Int64("oracle.seed", 0, "seed of the first case (0: a fixed seed for the short run, the time for longer runs)")
	casesFlag    = flag.Int("oracle.cases", 0, "number of cases (0: $ORACLE_CASES, else the short run's)")
	featuresFlag = flag.String("oracle.features", "", "features to switch on or off, e.g. +mixed-key-types,-changelog or all")
	shrinkFlag   = flag.Int("oracle.shrink", 300, "candidate runs spent shrinking each failure (0: none)")
	maxFailFlag  = flag.Int("oracle.max-failures", 5, "stop after this many failing cases")
	probeFlag    = flag.Bool("oracle.probe", false, "only connect to PostgreSQL (make test uses it to say loudly that the oracle was skipped)")
	dumpFlag     = flag.String("oracle.dump", "", "write each failing case (shrunk) into DIR/seed-N: job.sql, its inputs, pg.sql")
)

// shortCases is the size of the run that `make test` does.
const shortCases = 400

// shortSeed is its seed: the short run checks the same cases every time.
const shortSeed = 1

// TestOracle compares streamsql's answers with PostgreSQL's on random
// tables and queries (see doc.go). `make test` runs a short, fixed set;
// `make oracle` runs ORACLE_CASES (default 20000) from a fresh seed.
func TestOracle(t *testing.T) {
	cases := *casesFlag
	if cases == 0 {
		if v := os.Getenv("ORACLE_CASES"); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				t.Fatalf("ORACLE_CASES=%q is not a positive number", v)
			}
			cases = n
		} else {
			cases = shortCases
		}
	}
	seed := *seedFlag
	if seed == 0 {
		seed = shortSeed
		if cases > shortCases {
			seed = time.Now().UnixNano() % 1_000_000_000
		}
	}
	f := DefaultFeatures
	if err := f.Set(*featuresFlag); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	pg, err := ConnectPG(ctx)
	if err != nil {
		msg := fmt.Sprintf("\n\n*** THE POSTGRESQL ORACLE DID NOT RUN: cannot reach PostgreSQL at %s: %v\n"+
			"*** Start it (.ci/run does: pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start)\n"+
			"*** or point ORACLE_PG at one.\n\n", pgURL(), err)
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		fmt.Fprint(os.Stderr, msg)
		t.Skip(msg)
	}
	defer pg.Close()
	if *probeFlag {
		return
	}
	if off := f.Off(); len(off) > 0 {
		t.Logf("features switched off: %s", strings.Join(off, ", "))
	}
	t.Logf("%d cases from seed %d", cases, seed)
	r := &Runner{PG: pg, Dir: t.TempDir(), Timeout: 60 * time.Second, Features: f}
	failures := 0
	start := time.Now()
	for i := 0; i < cases; i++ {
		if testing.Verbose() && i > 0 && i%1000 == 0 {
			t.Logf("%d cases in %s", i, time.Since(start).Round(time.Second))
		}
		c := Generate(seed+int64(i), f)
		fl, err := r.Check(ctx, c, 0)
		if err != nil {
			t.Fatal(err)
		}
		if fl == nil {
			continue
		}
		if *shrinkFlag > 0 {
			if fl.Shrunk, err = r.Shrink(ctx, fl, *shrinkFlag); err != nil {
				t.Fatal(err)
			}
		}
		t.Error(fl.Report())
		if *dumpFlag != "" {
			shown := fl
			if fl.Shrunk != nil {
				shown = fl.Shrunk
			}
			dir := filepath.Join(*dumpFlag, fmt.Sprintf("seed-%d", c.Seed))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := shown.Case.writeFiles(dir); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "pg.sql"), []byte(shown.Case.pgScript()), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if failures++; failures >= *maxFailFlag {
			t.Fatalf("stopping after %d failing cases (of %d run)", failures, i+1)
		}
	}
	t.Logf("%d cases in %s, %d failing", cases, time.Since(start).Round(time.Millisecond), failures)
}
