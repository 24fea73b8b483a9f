// Package testjson holds checks of JSON documents for the tests of the
// decoders, written independently of internal/strictjson (which the
// decoders use) on encoding/json's own tokenizer, so that a test does not
// check strictjson against itself.
package testjson
