package sync

import "os/exec"

func Mirror(src, dst string) error { return exec.Command("rsync", "-a", src, dst).Run() }
