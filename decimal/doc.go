// Package decimal reads decimal text into streamsql's encoding of a
// DECIMAL(p, s) value: the unscaled int64 (12.34 in DECIMAL(10, 2) is 1234).
// A DECIMAL(p <= 18) value has at most p digits; a wider one is read if it
// fits 64 bits (eval's arithmetic keeps results to MaxDigits). It is the
// one decimal parser of the engine: CAST and DECIMAL literals (eval), the
// formats (json, csv) and datagen's bounds all read numbers through Parse.
//
// The text is an optional sign, digits with an optional fraction (either
// side of the point may be empty, not both), and an optional exponent:
// "12", "-0.5", ".5", "5.", "1.5E3", "+2e-3". It is read exactly, never
// through a float. Digits beyond the scale are rounded half up (away from
// zero), as Flink's DECIMAL casts do; a value that then has more digits than
// the precision allows, or than 64 bits hold, is an error (ErrRange), never
// a truncation. Malformed text is ErrSyntax. Nothing in it allocates unless
// it fails.
//
// Append writes the plain text of a value ("12.30" for 1230 at scale 2)
// for CAST to STRING and the formats alike; Parse reads it back.
package decimal
