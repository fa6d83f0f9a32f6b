package netconfig

import _ "embed"

// example is the file sandnet init writes.
//
//go:embed example.yaml
var example []byte
