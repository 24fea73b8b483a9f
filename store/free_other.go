//go:build !unix

package store

// freeBytes is unknown here: only SQLITE_FULL reads as a full disk.
func freeBytes(string) (int64, bool) { return 0, false }
