// Package testbin builds the safegp binary for the tests that run it as a
// process (cmd/safegp's, deploy's). `go test ./...` runs their packages
// at once, and two `go build`s of one program at once each compile every
// package it imports: the build cache is shared only once an entry is
// written. Build holds a lock file across the build, so the second waits
// for the first and then finds every package compiled, linking only.
package testbin
