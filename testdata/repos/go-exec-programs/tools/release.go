//go:build ignore

package main

import "os/exec"

func main() { _ = exec.Command("curl", "-fsSLO", "https://example.com/notes").Run() }
