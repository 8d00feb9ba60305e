//go:build race

package rawtcp

const raceEnabled = true
