// Package strictjson checks a JSON document for what encoding/json lets
// through silently before it decodes it: an object key given twice (the
// last one wins), and a key that names a field of the target struct in
// another case ({"INDEX": 3} fills Index). In a safety loop either can
// turn a request into another one than was meant, so every JSON decoder of
// safegp's inputs (HTTP bodies, JSON specifications, imports) calls Check
// first. It reads the document with the go-json-experiment tokenizer
// (the encoding/json/v2 proposal's jsontext), which refuses duplicate
// names and invalid UTF-8 and gives each error the key's path.
package strictjson
