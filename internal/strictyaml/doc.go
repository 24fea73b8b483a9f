// Package strictyaml decodes YAML (and JSON, a subset of it) into Go
// structs strictly: unknown keys, null values, numbers with a fraction
// where an integer is expected and values of the wrong kind are errors that
// name the key path and line, in the words of the configuration rather
// than of Go.
package strictyaml
