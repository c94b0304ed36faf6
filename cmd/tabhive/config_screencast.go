package main

import (
	"flag"
	"fmt"
	"strconv"

	"github.com/tabhive/tabhive/transport"
)

// screencastFlags defines the flags of screencast_start, with
// chrome-devtools-mcp's spellings: tabhive always records with ffmpeg,
// which is what its --experimentalScreencast selects; here that flag lets
// the video be WebM as well as MP4.
func screencastFlags(fs *flag.FlagSet, s *transport.ScreencastConfig) {
	for _, n := range []string{"screencast-fps", "screencastFps", "experimental-screencast-fps", "experimentalScreencastFps"} {
		fs.Var(positiveInt{&s.FPS}, n, "frames per second of screencast_start's videos (default 30)")
	}
	for _, n := range []string{"experimental-screencast", "experimentalScreencast"} {
		fs.BoolVar(&s.Experimental, n, false, "let screencast_start write WebM (.webm) as well as MP4")
	}
	for _, n := range []string{"experimental-ffmpeg-path", "experimentalFfmpegPath"} {
		fs.StringVar(&s.FFmpeg, n, "", "ffmpeg binary screencast_start records with (default: ffmpeg on PATH)")
	}
}

// positiveInt is an integer flag that must be above zero.
type positiveInt struct{ v *int }

func (p positiveInt) String() string {
	if p.v == nil || *p.v == 0 {
		return ""
	}
	return strconv.Itoa(*p.v)
}

func (p positiveInt) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		return fmt.Errorf("give a whole number above 0, such as 10")
	}
	*p.v = n
	return nil
}
