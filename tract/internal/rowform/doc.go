// Package rowform is how the tract stores lay tract values out in rows:
// hashes as their 32 raw bytes, a commit's parents packed back to back, the
// dedicated column of an encoding's token counts. Only the stores
// (tract/sqlite, tract/postgres) import it; the tract domain speaks hex
// hashes and encoding names and never sees these forms.
package rowform
