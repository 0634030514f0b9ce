// Package settings holds a job's configuration: the keys SET, RESET and
// `--set key=value` name, each parsed once into a typed field of Settings.
//
// One table (keys in settings.go) says, for every key streamsql knows,
// what kind of value it takes, what the value means and which field of
// Settings it fills. Values are written the way Flink writes them, with
// one parser per kind:
//
//	duration     a whole number and a unit: '10 s', '10s', '1 min', '24h'
//	             (ParseDuration; a bare number is milliseconds)
//	memory size  a whole number and a unit in powers of 1024: '128mb', '1 gb'
//	             (ParseMemorySize; a bare number is bytes)
//	boolean      'true' or 'false', in any case
//	count        a whole number of at least 1
//	enum         one of a fixed list of words, in any case
//	time zone    a name of UTC (streamsql computes in UTC only)
//	text         anything
//
// The flow is: Check each value where it is written (a SET statement, a
// --set flag), so that a bad one is reported there with the key, the
// value and what is accepted; keep the checked texts as Values (later
// values replace earlier ones, RESET goes back to the value before the
// job's own SETs); Resolve them once into Settings, on top of Defaults.
// Whatever reads a setting (the planner, exec, the command line) reads a
// field, never a key, so a bad value can never quietly become a default
// at run time.
//
// The package is a leaf: it imports only the standard library, so that
// every layer can take a Settings.
package settings
