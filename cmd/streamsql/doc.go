// Command streamsql plans and runs Flink-style streaming SQL jobs.
//
// The command line is a contract that scripts, CI and tests rely on (see the
// design brief):
//
//	streamsql run [--state-dir DIR] [--set key=value]... FILE.sql   # execute; bounded jobs exit 0 when done
//	streamsql check [--format text|json|github] FILE.sql...         # plan without running: exit 0 ok, 1 errors, 2 usage/IO
//	streamsql explain FILE.sql                                      # plans with changelog modes, keys, state retention
//	streamsql reconcile [--sink NAME] [--format text|json] FILE.sql # sink contents vs what the job computes: exit 0 equal, 1 differ
//	streamsql shell                                                  # interactive SQL
//	streamsql dev kafka [--listen ADDR] [--topics t:N,...] [--tls CERT,KEY[,CA]] [--sasl MECH:USER:PASS]... [--acl USER:OP:RESOURCE:NAME]...
//
// check plans without running; run executes a job; explain prints its
// plans; shell is the interactive shell (shell.go and its neighbours; the
// user's guide is docs/shell.md), which keeps one planner session across
// statements, runs a SELECT in the foreground and an INSERT as a background
// job. reconcile (reconcile.go) runs one INSERT into memory and compares the
// result with what its sink table holds, read back through the table's
// connector, key by key; its 1 means the two differ.
//
// Exit status, for every command: 0 success, 1 the job has errors, 2 a usage
// error (unknown command or flag, bad flag value, wrong number of files), an
// unreadable file, or a command that is not available yet.
//
// Diagnostics follow the go vet convention, FILE:LINE:COL: error: message
// [CODE], with the offending source line and a caret under it in text mode.
// check writes them to stdout, because they are its result; run and explain
// write them to stderr, which keeps stdout for the job's or the plan's
// output. Every code is documented in docs/errors.md.
//
// No command prints a secret: diagnostics show the values of secret options
// (package secret) as ******, in their messages and in the source lines
// under them; explain, the shell's DESCRIBE and SET do the same, and the
// shell does not save a statement that holds one in its history. dev kafka
// (dev.go, devsec.go) takes its users' passwords as ${VAR} references too,
// and prints the users without them.
//
// The program is a single function, run(args, stdout, stderr) int, which main
// calls with os.Args[1:] and passes to os.Exit, so tests drive the real
// command in-process.
package main
