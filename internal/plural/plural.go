package plural

import "strconv"

// irregular holds the nouns of our messages whose plural is not noun+"s".
var irregular = map[string]string{
	"matrix": "matrices",
	"axis":   "axes",
	"child":  "children",
	"entry":  "entries",
	"study":  "studies",
	"is":     "are",
}

// Of returns noun for n = 1 and its plural otherwise (0 constraints, 2
// constraints).
func Of(n int, noun string) string {
	if n == 1 || n == -1 {
		return noun
	}
	if p, ok := irregular[noun]; ok {
		return p
	}
	return noun + "s"
}

// Count returns n and noun in agreement: "1 constraint", "2 constraints".
func Count(n int, noun string) string {
	return strconv.Itoa(n) + " " + Of(n, noun)
}
