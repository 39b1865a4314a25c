package vcs

import (
	"os/exec"
	"testing"
)

func TestSigned(t *testing.T) {
	if err := exec.Command("gpg", "--version").Run(); err != nil {
		t.Skip("no gpg")
	}
}
