//go:build !unix

package testbin

// lock does nothing where there is no flock: the builds then only
// compile the same packages twice.
func lock(string) (func(), error) { return func() {}, nil }
