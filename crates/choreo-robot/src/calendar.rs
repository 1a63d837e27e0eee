//! The robot's calendar: the simulated robot keeps UTC, and a run's wall clock (its start
//! time plus behavior time) is read as a UTC date by QiChat's date functions, written in a
//! trace's header and given on the command line (`--start-time`).

/// A moment split as a calendar says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Civil {
    /// The year (2026).
    pub year: i64,
    /// 1 for January ... 12.
    pub month: u32,
    /// 1 ... 31.
    pub day: u32,
    /// 0 ... 23.
    pub hour: u32,
    /// 0 ... 59.
    pub minute: u32,
    /// 0 for Monday ... 6 for Sunday.
    pub weekday: u32,
}

/// `ms` since the Unix epoch as a UTC calendar date and time (the days-from-civil algorithm
/// run backwards).
pub fn civil(ms: u64) -> Civil {
    let secs = ms / 1000;
    let days = i64::try_from(secs / 86_400).unwrap_or(0);
    let rest = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = u32::try_from(doy - (153 * mp + 2) / 5 + 1).unwrap_or(1);
    let month = u32::try_from(if mp < 10 { mp + 3 } else { mp - 9 }).unwrap_or(1);
    let year = yoe + era * 400 + i64::from(month <= 2);
    Civil {
        year,
        month,
        day,
        hour: u32::try_from(rest / 3600).unwrap_or(0),
        minute: u32::try_from(rest % 3600 / 60).unwrap_or(0),
        // 1970-01-01 was a Thursday.
        weekday: u32::try_from((days + 3).rem_euclid(7)).unwrap_or(0),
    }
}

/// Reads a UTC date and time, `2026-03-01T18:30:00Z` (`T` or a space; the seconds, their
/// fraction and the `Z` optional; a date alone is midnight), as milliseconds since the Unix
/// epoch: what a run's start time is given as (`--start-time`). `None` when it is not one
/// (or before 1970).
pub fn parse_utc(text: &str) -> Option<u64> {
    let text = text.trim();
    let text = text.strip_suffix(['Z', 'z']).unwrap_or(text);
    let (date, time) = match text.split_once(['T', 't', ' ']) {
        Some((d, t)) => (d, Some(t)),
        None => (text, None),
    };
    let mut d = date.split('-');
    let year: i64 = d.next()?.parse().ok()?;
    let month: i64 = d.next()?.parse().ok()?;
    let day: i64 = d.next()?.parse().ok()?;
    if d.next().is_some() || !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    let (mut hour, mut minute, mut ms) = (0i64, 0i64, 0i64);
    if let Some(time) = time {
        let mut t = time.split(':');
        hour = t.next()?.parse().ok()?;
        minute = t.next()?.parse().ok()?;
        if let Some(sec) = t.next() {
            let seconds: f64 = sec.parse().ok()?;
            if !(0.0..61.0).contains(&seconds) {
                return None;
            }
            ms = (seconds * 1000.0).round() as i64;
        }
        if t.next().is_some() || !(0..24).contains(&hour) || !(0..60).contains(&minute) {
            return None;
        }
    }
    // Days from the civil date (the days-from-civil algorithm).
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let total = ((days * 24 + hour) * 60 + minute) * 60_000 + ms;
    u64::try_from(total).ok()
}

/// `ms` since the Unix epoch as `2026-01-05T10:00:00Z` (`.250` before the `Z` when it has a
/// fraction of a second): what [`parse_utc`] reads back.
pub fn format_utc(ms: u64) -> String {
    let c = civil(ms);
    let fraction = match ms % 1000 {
        0 => String::new(),
        f => format!(".{f:03}"),
    };
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}{fraction}Z",
        c.year,
        c.month,
        c.day,
        c.hour,
        c.minute,
        ms / 1000 % 60
    )
}
