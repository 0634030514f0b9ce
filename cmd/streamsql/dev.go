package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
)

var devCmd = &command{
	name:    "dev",
	summary: "development tools: an in-memory Kafka broker to try jobs with",
	help: `usage: streamsql dev kafka [--listen HOST:PORT] [--topics NAME:PARTITIONS,...]
                        [--tls CERT,KEY[,CLIENT_CA]] [--sasl MECH:USER:PASS]... [--acl USER:OP:RESOURCE:NAME]...

Dev kafka starts a Kafka-protocol broker in this process (franz-go's kfake),
for trying jobs and for tests. It keeps nothing: every topic and record lives
in memory and is gone when it stops. It is not a Kafka cluster to run
anything real on.

The first line on stdout is "streamsql dev kafka: listening on HOST:PORT",
the address to give as 'properties.bootstrap.servers' (with --listen
127.0.0.1:0 the system picks a free port, and this line says which). Topics
that do not exist are created with one partition when a client first
produces to them. It runs until Ctrl-C (or SIGTERM), or until the process
that started it exits (so that stopping 'go run' also stops the broker).

With --tls, --sasl and --acl it is secured the way managed clusters are, so
that a job's security settings can be tried before they meet one. The lines
after the first say which 'properties.*' to use; no password is printed.

Flags:
  --listen HOST:PORT          address to listen on (default 127.0.0.1:9092)
  --topics NAME:N,NAME:N...   topics to create, each with N partitions
                              (NAME alone: one partition)
  --tls CERT,KEY[,CLIENT_CA]  listen with TLS: the broker's certificate chain
                              and private key (PEM files); with CLIENT_CA (a
                              PEM file) clients must present a certificate it
                              signed
  --sasl MECH:USER:PASS       require SASL and add a user; MECH is plain,
                              scram-sha-256 or scram-sha-512; PASS may be
                              ${VAR} or ${file:/path} (quote it for the
                              shell) to keep it off the command line.
                              Repeatable
  --acl USER:OP:RESOURCE:NAME[:deny]
                              turn ACLs on and allow (or deny) USER, a --sasl
                              user, OP (read, write, describe, create, delete,
                              alter, idempotent-write, all) on RESOURCE
                              (topic, group, cluster, transactional-id) NAME
                              (a name, *, or a prefix ending in *). With ACLs
                              on, a user may do only what an --acl allows.
                              Repeatable

Exit status:
  0  stopped by Ctrl-C or SIGTERM
  2  usage error, or the address cannot be listened on

Examples:
  streamsql dev kafka
  streamsql dev kafka --listen 127.0.0.1:19092 --topics orders:3,shipments:1
  streamsql dev kafka --sasl scram-sha-512:alice:alice-pw --acl alice:read:topic:orders --acl alice:write:topic:out
`,
	run: runDev,
}

func runDev(c *command, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet(c)
	listen := fs.String("listen", "127.0.0.1:9092", "address")
	topicsFlag := fs.String("topics", "", "topics")
	tlsFlag := fs.String("tls", "", "TLS certificate and key")
	var saslFlag, aclFlag listFlag
	fs.Var(&saslFlag, "sasl", "SASL user; repeatable")
	fs.Var(&aclFlag, "acl", "ACL; repeatable")
	pos, exit, done := parseArgs(c, fs, args, stdout, stderr)
	if done {
		return exit
	}
	if len(pos) != 1 || pos[0] != "kafka" {
		return usageError(c, stderr, "want 'kafka': the only development tool is the Kafka broker")
	}
	topics, err := parseTopics(*topicsFlag)
	if err != nil {
		return usageError(c, stderr, "--topics: "+err.Error())
	}
	sec, err := parseDevSecurity(saslFlag, aclFlag, *tlsFlag)
	if err != nil {
		return usageError(c, stderr, err.Error())
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, orphaned := stopWhenOrphaned(ctx, time.Second/2)
	cl, err := startDevKafka(*listen, topics, sec)
	if err != nil {
		fmt.Fprintf(stderr, "streamsql dev kafka: %v\n", err)
		return exitUsage
	}
	defer cl.Close()
	addr := cl.ListenAddrs()[0]
	fmt.Fprintf(stdout, "streamsql dev kafka: listening on %s\n", addr)
	fmt.Fprintln(stdout, "development broker: keeps nothing, for development only (every topic and record is lost when it stops)")
	names := make([]string, 0, len(topics))
	for n := range topics {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(stdout, "  topic %s: %s\n", n, plural(int(topics[n]), "partition"))
	}
	for _, l := range sec.describe() {
		fmt.Fprintln(stdout, l)
	}
	fmt.Fprintf(stdout, "use 'properties.bootstrap.servers' = '%s'; Ctrl-C stops it\n", addr)
	<-ctx.Done()
	if orphaned() {
		fmt.Fprintln(stdout, "streamsql dev kafka: the process that started it has exited; stopping")
	}
	fmt.Fprintln(stdout, "streamsql dev kafka: stopped")
	return exitOK
}

// stopWhenOrphaned returns a context that is also cancelled when the process
// that started this one goes away (checked every interval): `go run ./cmd/streamsql
// dev kafka &` followed by `kill $!` stops go run, not the broker it started,
// which would otherwise keep its port. A development broker keeps nothing,
// so there is nothing to lose by following its parent. orphaned reports
// whether that is why the context ended.
func stopWhenOrphaned(ctx context.Context, interval time.Duration) (context.Context, func() bool) {
	ctx, cancel := context.WithCancel(ctx)
	parent := os.Getppid()
	var gone atomic.Bool
	go func() {
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if os.Getppid() != parent {
					gone.Store(true)
					cancel()
					return
				}
			}
		}
	}()
	return ctx, gone.Load
}

// startDevKafka starts a one-broker in-memory cluster on listen with the
// topics (name → partitions), secured as sec says.
func startDevKafka(listen string, topics map[string]int32, sec *devSecurity) (*kfake.Cluster, error) {
	if _, _, err := net.SplitHostPort(listen); err != nil {
		return nil, fmt.Errorf("--listen %s: want HOST:PORT", listen)
	}
	opts := []kfake.Opt{
		kfake.NumBrokers(1),
		kfake.ListenFn(func(network, _ string) (net.Listener, error) { return net.Listen(network, listen) }),
		kfake.AllowAutoTopicCreation(),
		kfake.DefaultNumPartitions(1),
	}
	for n, p := range topics {
		opts = append(opts, kfake.SeedTopics(p, n))
	}
	opts = append(opts, sec.options()...)
	cl, err := kfake.NewCluster(opts...)
	if err != nil {
		return nil, err
	}
	if err := sec.olderSASLClients(cl); err != nil {
		cl.Close()
		return nil, err
	}
	return cl, nil
}

// parseTopics reads "a:3,b:1" (a name alone has one partition).
func parseTopics(s string) (map[string]int32, error) {
	out := map[string]int32{}
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		name, n, hasN := strings.Cut(item, ":")
		p := int64(1)
		if hasN {
			var err error
			p, err = strconv.ParseInt(n, 10, 32)
			if err != nil || p < 1 {
				return nil, fmt.Errorf("%q: want NAME:PARTITIONS with at least one partition", item)
			}
		}
		if name == "" {
			return nil, fmt.Errorf("%q: the topic has no name", item)
		}
		out[name] = int32(p)
	}
	return out, nil
}
