//go:build !unix

package main

import (
	"errors"
	"io"
)

// Elsewhere than on Unix every study command runs in its own process.
const residentSupported = false

var errNoResident = errors.New("no resident study server on this system")

func spawnDetached(string, ...string) (io.ReadCloser, error) { return nil, errNoResident }

func lockResident(string) (func(), error) { return nil, errNoResident }

func privateDir(string) error { return errNoResident }
