// Package secret keeps credentials out of job files and out of everything
// streamsql prints.
//
// Two facts live here, once, for every package that reads or prints
// connector options:
//
//   - Which options hold secrets (IsKey): an option whose name says
//     password, secret, token, jaas or user-info, or whose last segment is
//     key (a PEM private key such as 'properties.ssl.keystore.key'). Their
//     values are shown as Mask ("******") by EXPLAIN, the shell, diagnostics
//     and error messages. A value that keeps its secrets elsewhere is
//     shown as written, the reference not being the secret: one that is
//     nothing but references ('${KAFKA_PASSWORD}'), or a JAAS config whose
//     password (secret, token) assignments are all references (Kept).
//
//   - How a value refers to a secret kept elsewhere (Resolve): ${NAME} is
//     the environment variable NAME, ${file:/run/secrets/kafka} the
//     contents of a file (one trailing newline removed, as secret files
//     usually end in one), and $${ a literal "${". References are replaced
//     when a job is loaded (check, explain, run, the shell); a variable
//     that is not set or a file that cannot be read is an error at the
//     reference, never an empty value.
//
// Ranges finds the secret values in SQL text, so that a diagnostic's source
// excerpt and the shell's history can leave them out too.
//
// The package depends on nothing but the standard library: diag, connectors,
// the planner and the command line all use it.
package secret
