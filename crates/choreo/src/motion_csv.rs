//! A motion's joint angles frame by frame as CSV (`choreo motion --csv`), and the body's
//! balance beside them (`--body`).

use std::fmt::Write as _;

use choreo_motion::Motion;

/// The CSV of `motion`: `frame,time_s`, then its joints in the robot's "Body" order; times
/// from the start frame; values as [`Motion::samples`] gives them, in Rust's shortest
/// round-trip spelling (read back, they are the same numbers).
pub fn csv(motion: &Motion) -> String {
    let (start, end) = (motion.start, motion.end_frame());
    let frames: Vec<f64> = (start..=end).map(f64::from).collect();
    let mut columns = motion.samples(&frames);
    columns.sort_by_key(|(joint, _)| motion.robot.joint_index(joint));
    let mut text = String::from("frame,time_s");
    for (joint, _) in &columns {
        let _ = write!(text, ",{joint}");
    }
    text.push('\n');
    let fps = f64::from(motion.fps);
    for (row, frame) in (start..=end).enumerate() {
        let _ = write!(text, "{frame},{}", f64::from(frame - start) / fps);
        for (_, values) in &columns {
            let _ = write!(text, ",{}", values[row]);
        }
        text.push('\n');
    }
    text
}

/// `csv` (the motion's, one row per frame) with the body's columns after each row (see
/// `choreo motion --body`): each frame's values at the 10 ms step nearest its time; a
/// finding on the row of its frame, quoted.
pub fn with_body(motion: &Motion, csv: &str) -> String {
    let report = choreo_body::check::check(motion, "StandInit");
    let fps = f64::from(motion.fps.max(1));
    let mut out = String::new();
    for (row, line) in csv.lines().enumerate() {
        out.push_str(line);
        if row == 0 {
            out.push_str(",com_x,com_y,zmp_x,zmp_y,body\n");
            continue;
        }
        let frame = motion.start + (row - 1) as i32;
        let t = f64::from(frame - motion.start) / fps;
        let mut cells = [None; 4];
        let mut found = Vec::new();
        if let Some(report) = &report {
            let path = &report.path;
            let k = (t / choreo_body::balance::STEP).round() as usize;
            if k < path.times.len() {
                if let Some(c) = path.com[k] {
                    cells[0] = Some(c[0]);
                    cells[1] = Some(c[1]);
                }
                if let Some(z) = path.zmp[k] {
                    cells[2] = Some(z[0]);
                    cells[3] = Some(z[1]);
                }
            }
            for finding in &report.findings {
                if finding.frame().round() as i32 == frame {
                    found.push(finding.describe(fps, motion.start));
                }
            }
        }
        for cell in cells {
            out.push(',');
            if let Some(v) = cell {
                let _ = write!(out, "{v}");
            }
        }
        out.push(',');
        if !found.is_empty() {
            let _ = write!(out, "\"{}\"", found.join("; ").replace('"', "\"\""));
        }
        out.push('\n');
    }
    out
}
