//! The robot's calendar against dates worked out by hand and by `date -u`.

#[test]
fn a_start_time_reads_as_utc_milliseconds() {
    use choreo_robot::calendar::{format_utc, parse_utc};
    // `date -u -d 2026-01-05T10:00:00Z +%s` gives 1767607200.
    assert_eq!(parse_utc("2026-01-05T10:00:00Z"), Some(1_767_607_200_000));
    assert_eq!(parse_utc("2026-01-05 10:00"), Some(1_767_607_200_000));
    // A leap day: 2024-02-29 is 19,782 days after 1970-01-01 (by hand: 54 years of 365
    // days, 19,710, plus the 13 leap days 1972..2020, 19,723, plus 59 days into 2024).
    assert_eq!(parse_utc("2024-02-29"), Some(19_782 * 86_400_000));
    assert_eq!(parse_utc("1970-01-01T00:00:01.5Z"), Some(1_500));
    assert_eq!(parse_utc("2026-13-01"), None);
    assert_eq!(parse_utc("yesterday"), None);
    assert_eq!(parse_utc("1969-12-31"), None);
    assert_eq!(format_utc(1_767_607_200_000), "2026-01-05T10:00:00Z");
    assert_eq!(format_utc(1_500), "1970-01-01T00:00:01.500Z");
    assert_eq!(
        parse_utc(&format_utc(1_709_164_800_250)),
        Some(1_709_164_800_250)
    );
}
