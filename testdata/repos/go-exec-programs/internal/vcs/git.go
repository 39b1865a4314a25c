package vcs

import "os/exec"

var (
	// GitExecutable is the command name of git; SetPath may replace it.
	GitExecutable = "git"
)

func SetPath(path string) error {
	if path != "" {
		GitExecutable = path
	}
	abs, err := exec.LookPath(GitExecutable)
	if err != nil {
		return err
	}
	GitExecutable = abs
	return nil
}
