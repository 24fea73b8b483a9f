package main

import (
	"fmt"

	"os"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if err != errUsage {
			fmt.Fprintln(os.Stderr, "safegp:", err)
		}
		os.Exit(exitCode(err))
	}
}
