package main

import (
	"flag"
	"fmt"
	"strconv"
	"time"

	"github.com/tabhive/tabhive/page/screencast"
)

// defaultScreencastMaxDuration is --screencast-max-duration's default: a
// recording an agent forgot to stop ends on its own, its video whole.
const defaultScreencastMaxDuration = 10 * time.Minute

// screencastFlags defines the flags of screencast_start, with
// chrome-devtools-mcp's spellings: tabhive always records with ffmpeg,
// which is what its --experimentalScreencast selects; here that flag lets
// the video be WebM as well as MP4.
func screencastFlags(fs *flag.FlagSet, s *screencast.Config) {
	for _, n := range []string{"screencast-fps", "screencastFps", "experimental-screencast-fps", "experimentalScreencastFps"} {
		fs.Var(positiveInt{&s.FPS}, n, "frames per second of screencast_start's videos (default 30)")
	}
	for _, n := range []string{"experimental-screencast", "experimentalScreencast"} {
		fs.BoolVar(&s.Experimental, n, false, "let screencast_start write WebM (.webm) as well as MP4")
	}
	for _, n := range []string{"experimental-ffmpeg-path", "experimentalFfmpegPath"} {
		fs.StringVar(&s.FFmpeg, n, "", "ffmpeg binary screencast_start records with (default: ffmpeg on PATH)")
	}
	s.MaxDuration = defaultScreencastMaxDuration
	for _, n := range []string{"screencast-max-duration", "screencastMaxDuration"} {
		fs.Var(nonNegativeDuration{&s.MaxDuration}, n, "a screencast ends on its own, its video finished, once this long (0: no bound)")
	}
	for _, n := range []string{"screencast-max-bytes", "screencastMaxBytes"} {
		fs.Var(byteSize{v: &s.MaxBytes, min: screencast.MinBytes}, n, "a screencast ends on its own, its video finished, before its file is this large, in bytes or with KB, MB or GB, at least 8MB (0, the default: bounded only by what --max-session-disk leaves)")
	}
}

// nonNegativeDuration is a duration flag that refuses negative values.
type nonNegativeDuration struct{ v *time.Duration }

func (d nonNegativeDuration) String() string {
	if d.v == nil {
		return ""
	}
	return d.v.String()
}

func (d nonNegativeDuration) Set(s string) error {
	v, err := time.ParseDuration(s)
	if err != nil || v < 0 {
		return fmt.Errorf("give a duration such as 10m or 90s, or 0 for no bound")
	}
	*d.v = v
	return nil
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
