// Package outdir publishes an output folder all at once: everything is
// written into a temporary folder beside the target and renamed into place
// only when complete, so a failure never leaves old and new files mixed.
// An existing folder is replaced only when asked to, and only when safegp
// wrote it (it holds the Marker file).
package outdir
