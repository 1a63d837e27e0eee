//! The files ALPhotoCapture, ALVideoRecorder and ALVisionToolbox write, on disk under the
//! run's root where the robot path maps there (`choreo_robot::paths`), so that box code that
//! takes a picture and then shows it, sends it or reads its size finds a real file of the
//! documented size and format.
//!
//! The simulated robot has no camera view: every picture and video frame is a uniform mid
//! grey (128), in colour or grey as the colour space says. Sizes are NAOqi's resolution codes
//! (the ALVideoDevice page, "Camera resolution"). Videos are AVI files (RIFF, one video stream,
//! an `idx1` index) whose frames are JPEG pictures (MJPG) or raw planar YUV 4:2:0 (IYUV); the
//! layout of NAOqi 1.x's raw ARV files is not public, so those are not written (the notice
//! says so). A path outside the robot's folders is not written either: nothing leaves the
//! run's folders through a robot path.

use std::io::{Cursor, Write};

use image::codecs::pnm::{PnmSubtype, SampleEncoding};
use image::{DynamicImage, GrayImage, ImageOutputFormat, Luma, Rgb, RgbImage};

/// The grey every pixel has: the simulated robot sees nothing.
const GREY: u8 = 128;

/// Width and height of NAOqi resolution `code` (kQQVGA 0 .. k4VGA 3, kQQQVGA 7, kQQQQVGA 8).
pub(crate) fn size(code: i64) -> Option<(u32, u32)> {
    Some(match code {
        0 => (160, 120),
        1 => (320, 240),
        2 => (640, 480),
        3 => (1280, 960),
        7 => (80, 60),
        8 => (40, 30),
        _ => return None,
    })
}

/// What a capture writes: its pixels' size and whether in colour (`kBGRColorSpace`) or grey.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Frame {
    pub width: u32,
    pub height: u32,
    pub colour: bool,
}

impl Frame {
    /// The uniform grey picture.
    fn image(self) -> DynamicImage {
        if self.colour {
            DynamicImage::ImageRgb8(RgbImage::from_pixel(
                self.width,
                self.height,
                Rgb([GREY; 3]),
            ))
        } else {
            DynamicImage::ImageLuma8(GrayImage::from_pixel(self.width, self.height, Luma([GREY])))
        }
    }

    /// The picture encoded as `extension` says (ALPhotoCapture's formats), or why not.
    pub(crate) fn encode(self, extension: &str) -> Result<Vec<u8>, String> {
        let format = match extension.to_ascii_lowercase().as_str() {
            "jpg" | "jpeg" | "jpe" => ImageOutputFormat::Jpeg(90),
            "png" => ImageOutputFormat::Png,
            "bmp" | "dib" => ImageOutputFormat::Bmp,
            "tif" | "tiff" => ImageOutputFormat::Tiff,
            "pbm" => return Ok(self.bitmap()),
            "pgm" => ImageOutputFormat::Pnm(PnmSubtype::Graymap(SampleEncoding::Binary)),
            "ppm" => ImageOutputFormat::Pnm(PnmSubtype::Pixmap(SampleEncoding::Binary)),
            "sr" | "ras" => return Ok(self.sun_raster()),
            other => return Err(format!("no picture format {other:?}")),
        };
        // Each PNM subtype takes its own pixels: grey for pgm, colour for ppm.
        let image = match format {
            ImageOutputFormat::Pnm(PnmSubtype::Graymap(_)) => self.image().into_luma8().into(),
            ImageOutputFormat::Pnm(PnmSubtype::Pixmap(_)) => self.image().into_rgb8().into(),
            _ => self.image(),
        };
        let mut bytes = Cursor::new(Vec::new());
        image
            .write_to(&mut bytes, format)
            .map_err(|e| e.to_string())?;
        Ok(bytes.into_inner())
    }

    /// The picture as a binary PBM (`P4`), which the image library writes only from 1-bit
    /// pixels: rows of bits padded to bytes, mid grey thresholded to white (bit 0).
    fn bitmap(self) -> Vec<u8> {
        let mut out = format!("P4\n{} {}\n", self.width, self.height).into_bytes();
        let row = self.width.div_ceil(8) as usize;
        out.resize(out.len() + row * self.height as usize, 0);
        out
    }

    /// The picture as a Sun raster file (`sr`, `ras`), which the image library does not
    /// write: a 32-byte header of big-endian words, then rows padded to 16 bits.
    fn sun_raster(self) -> Vec<u8> {
        let depth: u32 = if self.colour { 24 } else { 8 };
        let row = (self.width * depth / 8) as usize;
        let padded = row + row % 2;
        let length = padded * self.height as usize;
        let mut out = Vec::with_capacity(32 + length);
        // Magic, width, height, depth, length, type 1 (standard), no colour map.
        for word in [
            0x59a6_6a95,
            self.width,
            self.height,
            depth,
            length as u32,
            1,
            0,
            0,
        ] {
            out.extend_from_slice(&u32::to_be_bytes(word));
        }
        out.resize(32 + length, GREY);
        out
    }
}

/// A video's stream: its frames' size, count and rate, and its codec (`MJPG` or `IYUV`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Video<'a> {
    pub width: u32,
    pub height: u32,
    pub frames: u32,
    pub fps: f64,
    pub codec: &'a str,
}

/// Writes `video` as an AVI file to `out`; an error says why not (ARV, too large, the disk).
pub(crate) fn write_video(out: &mut dyn Write, video: Video<'_>) -> std::io::Result<()> {
    let frame = match video.codec {
        "MJPG" => Frame {
            width: video.width,
            height: video.height,
            colour: true,
        }
        .encode("jpg")
        .map_err(std::io::Error::other)?,
        "IYUV" => vec![GREY; (video.width * video.height * 3 / 2) as usize],
        other => {
            return Err(std::io::Error::other(format!(
                "the layout of {other} videos is not public"
            )));
        }
    };
    let avi = Avi::new(video, frame.len())
        .ok_or_else(|| std::io::Error::other("over the AVI format's 4 GiB"))?;
    avi.write(out, &frame)
}

/// An AVI file's layout, computed before anything is written: every frame has the same size,
/// so every chunk's size is known and the file is written in one pass.
struct Avi<'a> {
    video: Video<'a>,
    /// One frame's bytes, and padded to an even size as RIFF chunks are.
    frame: u32,
    padded: u32,
    /// The `movi` list's size and the whole file's.
    movi: u32,
    riff: u32,
}

/// The sizes of the header lists: `hdrl` holds `avih` (56 bytes) and `strl`, which holds
/// `strh` (56) and `strf` (a 40-byte BITMAPINFOHEADER).
const STRL: u32 = 4 + (8 + 56) + (8 + 40);
const HDRL: u32 = 4 + (8 + 56) + (8 + STRL);

impl<'a> Avi<'a> {
    fn new(video: Video<'a>, frame: usize) -> Option<Avi<'a>> {
        let frame = u32::try_from(frame).ok()?;
        let padded = frame.checked_add(frame % 2)?;
        // Each frame: an `00dc` chunk in `movi` and a 16-byte entry in `idx1`.
        let movi = padded
            .checked_add(8)?
            .checked_mul(video.frames)?
            .checked_add(4)?;
        let index = video.frames.checked_mul(16)?;
        let riff = (4 + 8 + HDRL + 8u32)
            .checked_add(movi)?
            .checked_add(8)?
            .checked_add(index)?;
        Some(Avi {
            video,
            frame,
            padded,
            movi,
            riff,
        })
    }

    fn write(&self, out: &mut dyn Write, frame: &[u8]) -> std::io::Result<()> {
        let v = self.video;
        // The rate as a fraction: whole frames a second, or thousandths of one.
        let (scale, rate) = if v.fps.fract() == 0.0 {
            (1, v.fps as u32)
        } else {
            (1000, (v.fps * 1000.0).round() as u32)
        };
        let micros = (1e6 / v.fps).round() as u32;
        let codec = fourcc(v.codec);
        let bits: u32 = if v.codec == "IYUV" { 12 } else { 24 };
        let w = |out: &mut dyn Write, words: &[u32]| -> std::io::Result<()> {
            words
                .iter()
                .try_for_each(|x| out.write_all(&x.to_le_bytes()))
        };
        out.write_all(b"RIFF")?;
        w(out, &[self.riff])?;
        out.write_all(b"AVI LIST")?;
        w(out, &[HDRL])?;
        out.write_all(b"hdrlavih")?;
        // Main header: µs a frame, bytes a second, padding, flags (has an index), frames,
        // initial frames, streams, buffer size, width, height, four reserved words.
        let per_second = (f64::from(self.padded) * v.fps).ceil() as u32;
        w(
            out,
            &[
                56,
                micros,
                per_second,
                0,
                0x10,
                v.frames,
                0,
                1,
                self.padded,
                v.width,
                v.height,
                0,
                0,
                0,
                0,
            ],
        )?;
        out.write_all(b"LIST")?;
        w(out, &[STRL])?;
        out.write_all(b"strlstrh")?;
        w(out, &[56])?;
        out.write_all(b"vids")?;
        out.write_all(&codec)?;
        // Flags, priority and language, initial frames, scale, rate, start, length,
        // buffer size, quality (default), sample size, then the frame's rectangle.
        w(
            out,
            &[0, 0, 0, scale, rate, 0, v.frames, self.padded, u32::MAX, 0],
        )?;
        for side in [0u16, 0, v.width as u16, v.height as u16] {
            out.write_all(&side.to_le_bytes())?;
        }
        out.write_all(b"strf")?;
        // BITMAPINFOHEADER: size, width, height, planes and bits, compression, image size,
        // resolution, colours.
        w(out, &[40, 40, v.width, v.height, 1 | (bits << 16)])?;
        out.write_all(&codec)?;
        w(out, &[self.frame, 0, 0, 0, 0])?;
        out.write_all(b"LIST")?;
        w(out, &[self.movi])?;
        out.write_all(b"movi")?;
        let pad = vec![0; (self.padded - self.frame) as usize];
        for _ in 0..v.frames {
            out.write_all(b"00dc")?;
            w(out, &[self.frame])?;
            out.write_all(frame)?;
            out.write_all(&pad)?;
        }
        out.write_all(b"idx1")?;
        w(out, &[v.frames * 16])?;
        for i in 0..v.frames {
            // Key frame, at its offset from the `movi` fourcc.
            out.write_all(b"00dc")?;
            w(out, &[0x10, 4 + i * (self.padded + 8), self.frame])?;
        }
        Ok(())
    }
}

/// The four bytes of a codec's name.
fn fourcc(codec: &str) -> [u8; 4] {
    let mut out = *b"    ";
    for (o, b) in out.iter_mut().zip(codec.bytes()) {
        *o = b;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolutions_are_the_video_device_pages() {
        // ALVideoDevice, "Camera resolution": kVGA is 640*480, kQQQQVGA 40*30.
        assert_eq!(size(2), Some((640, 480)));
        assert_eq!(size(8), Some((40, 30)));
        assert_eq!(size(4), None);
    }

    #[test]
    fn a_sun_raster_has_its_magic_and_padded_rows() {
        let grey = Frame {
            width: 3,
            height: 2,
            colour: false,
        }
        .sun_raster();
        // Magic 0x59a66a95; 3 one-byte pixels padded to 4 bytes a row.
        assert_eq!(&grey[..4], &[0x59, 0xa6, 0x6a, 0x95]);
        assert_eq!(grey.len(), 32 + 4 * 2);
    }
}
