// Package readlimit bounds what safegp reads from a file, so that a file
// that is too large — or endless, /dev/zero — is refused, naming the file,
// the limit and the flag that raises it, before it exhausts memory:
//
//   - a YAML or JSON document (a configuration, a specification, a sweep)
//     at most MaxDocument bytes, the HTTP create body's limit: a YAML node
//     costs about 200 bytes in memory, so 16 MiB of the densest YAML is
//     already more nodes than strictyaml takes;
//   - a text file read line by line (CSV data, decision sets, runs.jsonl)
//     at most For(--max-memory) bytes in all and MaxLine bytes a line for
//     CSV: parsing holds a file's values and a line's fields at a few
//     times their size.
package readlimit
