package media

import (
	"context"
	"os/exec"
)

// ffmpegPath finds the transcoder once; a configured path wins.
func ffmpegPath(configured string) (string, error) {
	if configured != "" {
		return exec.LookPath(configured)
	}
	return exec.LookPath("ffmpeg")
}

// Play hands a file to the player; the player binary is fixed.
func Play(ctx context.Context, file string) error {
	cmd := exec.CommandContext(ctx,
		"mpv", "--no-video", file)
	return cmd.Run()
}

// Old code kept for reference:
// out, _ := exec.Command("sox", file).Output()

func probe(ctx context.Context, args []string) *exec.Cmd {
	return exec.CommandContext(ctx, args[0], args[1:]...) // the program is data, not a literal
}

func thumbnail(file string) error {
	return exec.Command("frobnicate-thumbs", file).Run()
}
