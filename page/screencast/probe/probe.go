// Package probe reads a video's size, frame rate, frame count and duration
// with ffprobe, decoding every frame. Tests use it to check recordings.
package probe

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// Info is what ffprobe says of a file's first video stream.
type Info struct {
	Codec         string
	Width, Height int
	FPS           float64
	Frames        int           // decoded, not declared
	Duration      time.Duration // the last frame's end
}

// File probes path with the ffprobe binary (if empty, "ffprobe").
func File(ctx context.Context, ffprobe, path string) (Info, error) {
	if ffprobe == "" {
		ffprobe = "ffprobe"
	}
	out, err := exec.CommandContext(ctx, ffprobe, "-v", "error", "-count_frames", "-select_streams", "v:0",
		"-show_entries", "stream=codec_name,width,height,r_frame_rate,nb_read_frames:format=duration",
		"-of", "json", path).Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return Info{}, fmt.Errorf("ffprobe %s: %s", path, strings.TrimSpace(string(ee.Stderr)))
		}
		return Info{}, fmt.Errorf("ffprobe %s: %w", path, err)
	}
	var v struct {
		Streams []struct {
			Codec  string `json:"codec_name"`
			Width  int    `json:"width"`
			Height int    `json:"height"`
			Rate   string `json:"r_frame_rate"`
			Frames string `json:"nb_read_frames"`
		} `json:"streams"`
		Format struct {
			Duration string `json:"duration"`
		} `json:"format"`
	}
	if err := json.Unmarshal(out, &v); err != nil {
		return Info{}, fmt.Errorf("ffprobe %s: %w", path, err)
	}
	if len(v.Streams) == 0 {
		return Info{}, fmt.Errorf("ffprobe %s: no video stream", path)
	}
	s := v.Streams[0]
	info := Info{Codec: s.Codec, Width: s.Width, Height: s.Height}
	if num, den, ok := strings.Cut(s.Rate, "/"); ok {
		n, _ := strconv.ParseFloat(num, 64)
		d, _ := strconv.ParseFloat(den, 64)
		if d > 0 {
			info.FPS = n / d
		}
	}
	info.Frames, _ = strconv.Atoi(s.Frames)
	secs, _ := strconv.ParseFloat(v.Format.Duration, 64)
	info.Duration = time.Duration(secs * float64(time.Second))
	return info, nil
}

// Distinct counts the frames of path that differ from the one before
// (ffmpeg's mpdecimate filter), with the ffmpeg binary (if empty,
// "ffmpeg"): a video of a still image has 1.
func Distinct(ctx context.Context, ffmpeg, path string) (int, error) {
	if ffmpeg == "" {
		ffmpeg = "ffmpeg"
	}
	out, err := exec.CommandContext(ctx, ffmpeg, "-hide_banner", "-nostdin", "-i", path,
		"-vf", "mpdecimate,showinfo", "-f", "null", "-").CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("ffmpeg %s: %w: %s", path, err, out)
	}
	return strings.Count(string(out), "] n:"), nil
}
