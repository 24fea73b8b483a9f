package quote

import (
	"strconv"
	"unicode/utf8"
)

// Max is the most bytes of a value an error quotes.
const Max = 64

// Short returns s quoted as Go quotes it (strconv.Quote) when it has at
// most Max bytes; else its first Max bytes (cut back to a whole UTF-8
// character) quoted, then "…" and the value's length:
// "aaaa"… (16777216 bytes).
func Short(s string) string {
	if len(s) <= Max {
		return strconv.Quote(s)
	}
	return strconv.Quote(s[:cut(s)]) + "… (" + strconv.Itoa(len(s)) + " bytes)"
}

// Bytes is Short for a byte slice; it copies only the prefix.
func Bytes(b []byte) string {
	if len(b) <= Max {
		return strconv.Quote(string(b))
	}
	p := string(b[:Max+1]) // one more, to see whether Max cuts a character
	return strconv.Quote(p[:cut(p)]) + "… (" + strconv.Itoa(len(b)) + " bytes)"
}

// cut is where a prefix of at most Max bytes of s (len(s) > Max) ends: at
// Max, or before the character that Max would cut in two.
func cut(s string) int {
	c := Max
	for c > Max-utf8.UTFMax && !utf8.RuneStart(s[c]) {
		c--
	}
	if !utf8.RuneStart(s[c]) {
		return Max // not UTF-8 there: cut at Max, quoted as bytes
	}
	return c
}

// Prefix returns s unquoted when it has at most Max bytes, else its first
// Max bytes (a whole character) followed by "…": for values a message
// shows inside quotes of its own.
func Prefix(s string) string {
	if len(s) <= Max {
		return s
	}
	return s[:cut(s)] + "…"
}

// Raw returns a JSON token (a number: ASCII, nothing to escape) as it was
// written when it has at most Max bytes, else its first Max bytes, "…" and
// its length.
func Raw(b []byte) string {
	if len(b) <= Max {
		return string(b)
	}
	return string(b[:Max]) + "… (" + strconv.Itoa(len(b)) + " bytes)"
}
