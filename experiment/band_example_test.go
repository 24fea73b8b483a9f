package experiment_test

import (
	"fmt"

	"github.com/safegp/safegp/experiment"
)

// The band of `safegp run --band`, and the words its figure's title uses.
func ExampleParseBand() {
	for _, s := range []string{"se", "std", "none", "sd"} {
		b, err := experiment.ParseBand(s)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(b.Describe(30))
	}
	// Output:
	// mean ± 1 SE over 30 realizations
	// mean ± 1 std over 30 realizations
	// mean over 30 realizations
	// band "sd": unknown band (want std, se or none)
}
