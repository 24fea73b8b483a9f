module github.com/safegp/safegp

go 1.26.8

require (
	github.com/google/go-cmp v0.6.0
	go.yaml.in/yaml/v3 v3.0.6
	gonum.org/v1/gonum v0.17.0
)
