package main

import (
	"os"
	"path/filepath"
	"testing"
)

func TestMain(m *testing.M) {
	code := m.Run()
	if parogBinary.path != "" {
		os.RemoveAll(filepath.Dir(parogBinary.path))
	}
	os.Exit(code)
}
