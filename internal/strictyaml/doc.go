// Package strictyaml decodes YAML (and JSON, a subset of it) into Go
// structs strictly: unknown keys, keys given twice, null values, numbers
// with a fraction where an integer is expected and values of the wrong kind
// are errors that name the key path and line, in the words of the
// configuration rather than of Go. Types with a YAML form of their own
// (yaml.Unmarshaler) decode it into typed fields with DecodeNode and report
// bad values with Errorf; Decode names those errors by their full key path
// too.
package strictyaml
