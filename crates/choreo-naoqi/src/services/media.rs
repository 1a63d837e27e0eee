//! Media files read by symphonia's demuxers, nothing decoded: the robot's players last as
//! long as their files, so a sound or a video is measured, never guessed, where its file
//! can be read.

use symphonia::core::formats::{FormatOptions, FormatReader, TrackType};
use symphonia::core::io::MediaSourceStream;
use symphonia::core::meta::MetadataOptions;
use symphonia::core::units::{Duration, TimeBase};

/// A demuxer for `file`, chosen by its content (`name`'s extension a hint).
pub(crate) fn open(file: std::fs::File, name: &str) -> Option<Box<dyn FormatReader>> {
    let mut hint = symphonia::core::formats::probe::Hint::new();
    if let Some(ext) = std::path::Path::new(name)
        .extension()
        .and_then(|e| e.to_str())
    {
        hint.with_extension(ext);
    }
    let stream = MediaSourceStream::new(Box::new(file), Default::default());
    symphonia::default::get_probe()
        .probe(
            &hint,
            stream,
            FormatOptions::default(),
            MetadataOptions::default(),
        )
        .ok()
}

/// `ticks` of `time_base`, in seconds.
pub(crate) fn seconds(time_base: TimeBase, ticks: Duration) -> Option<f64> {
    Some(time_base.calc_duration(ticks)?.as_secs_f64())
}

/// The length in seconds of the video in file `path` (an MP4, as the tablet plays): the
/// movie's own duration (its `mvhd` header), else its video track's; `None` when no
/// demuxer reads the file.
pub(crate) fn video_length(path: &std::path::Path) -> Option<f64> {
    let file = std::fs::File::open(path).ok()?;
    let reader = open(file, &path.to_string_lossy())?;
    let info = reader.media_info();
    if let (Some(base), Some(ticks)) = (info.time_base, info.duration) {
        return seconds(base, ticks);
    }
    let track = reader.default_track(TrackType::Video)?;
    seconds(track.time_base?, track.duration?)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> std::path::PathBuf {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/videos")
            .join(name)
    }

    /// The fixtures were made by ffmpeg: ten frames at 4 per second (H.264), and 1.5 s of
    /// picture beside a 1.5 s AAC tone; ffmpeg reports them as 2.50 s and 1.50 s long.
    #[test]
    fn a_video_lasts_what_its_movie_header_says() {
        let got = video_length(&fixture("blue-2.5s.mp4")).unwrap();
        assert!((got - 2.5).abs() < 1e-3, "{got}");
        let got = video_length(&fixture("red-tone-1.5s.mp4")).unwrap();
        assert!((got - 1.5).abs() < 0.05, "{got}");
    }

    #[test]
    fn what_is_not_a_video_has_no_length() {
        let dir = std::env::temp_dir().join(format!("choreo-media-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let junk = dir.join("junk.mp4");
        std::fs::write(&junk, b"not a video").unwrap();
        assert_eq!(video_length(&junk), None);
        assert_eq!(video_length(&dir.join("absent.mp4")), None);
        std::fs::remove_dir_all(dir).unwrap();
    }
}
