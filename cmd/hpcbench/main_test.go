package main

import (
	"os"
	"testing"

	"github.com/hpcbench/hpcbench/internal/testenv"
)

// hpcbench is the binary the end-to-end tests run, built once by TestMain.
var hpcbench string

func TestMain(m *testing.M) {
	os.Exit(testenv.BuildMain(m, &hpcbench))
}
