//! Dates and times for the time functions (`^currentDateTime`, ...) and the `def:sayDate`
//! family, from the robot's clock (UTC: the simulated robot's time zone; the calendar is
//! choreo-robot's).

pub(super) use choreo_robot::calendar::{Civil, civil};

/// The value of one of ALDialog's time data at `ms` (the ALDialog API page, "Data"):
/// `Dialog/Year` (YYYY), `Dialog/Hour` (24-hour), `Dialog/Minute`, `Dialog/Second`,
/// `Dialog/DateCode` (month number + day number: "1225 for Christmas"), `Dialog/Morning`
/// (1 from 5 AM to 11 AM), `Dialog/Default` (1 from 11 AM to 7 PM), `Dialog/Night` (1 from
/// 7 PM to 5 AM); `None` for any other key.
pub(super) fn data(key: &str, ms: u64) -> Option<String> {
    let c = civil(ms);
    let flag = |on: bool| if on { "1" } else { "0" }.to_string();
    Some(match key {
        "Dialog/Year" => format!("{:04}", c.year),
        "Dialog/Hour" => c.hour.to_string(),
        "Dialog/Minute" => c.minute.to_string(),
        "Dialog/Second" => (ms / 1000 % 60).to_string(),
        "Dialog/DateCode" => format!("{}{:02}", c.month, c.day),
        "Dialog/Morning" => flag((5..11).contains(&c.hour)),
        "Dialog/Default" => flag((11..19).contains(&c.hour)),
        "Dialog/Night" => flag(!(5..19).contains(&c.hour)),
        _ => return None,
    })
}

/// The coming Sunday (today if it is one): `^endOfWeek`, "the date of the next sunday".
pub(super) fn end_of_week(ms: u64) -> Civil {
    let today = civil(ms);
    let ahead = u64::from(6 - today.weekday);
    civil(ms.saturating_add(ahead * 86_400_000))
}

/// A date, a time or both, as the 2.8 page's "Date and time format" writes them:
/// `YYYY-MM-DD`, `hh:mm`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct DateParts {
    date: Option<(String, String, String)>,
    time: Option<(String, String)>,
}

impl DateParts {
    pub(super) fn date_time(c: &Civil) -> DateParts {
        DateParts {
            date: Self::date(c).date,
            time: Self::time(c).time,
        }
    }

    pub(super) fn date(c: &Civil) -> DateParts {
        DateParts {
            date: Some((
                format!("{:04}", c.year),
                format!("{:02}", c.month),
                format!("{:02}", c.day),
            )),
            time: None,
        }
    }

    pub(super) fn time(c: &Civil) -> DateParts {
        DateParts {
            date: None,
            time: Some((format!("{:02}", c.hour), format!("{:02}", c.minute))),
        }
    }

    /// As written: `2017-05-03 10:15`.
    pub(super) fn text(&self) -> String {
        let date = self.date.as_ref().map(|(y, m, d)| format!("{y}-{m}-{d}"));
        let time = self.time.as_ref().map(|(h, m)| format!("{h}:{m}"));
        [date, time]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The `def:` that says it: `sayDateTime`, `sayDate` or `sayTime`.
    pub(super) fn def_name(&self) -> &'static str {
        match (&self.date, &self.time) {
            (Some(_), Some(_)) => "sayDateTime",
            (Some(_), None) => "sayDate",
            _ => "sayTime",
        }
    }

    /// The values of that `def:`'s parameters: year, month, day, hour, minute (those it has).
    pub(super) fn values(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let Some((y, m, d)) = &self.date {
            out.extend([y.clone(), m.clone(), d.clone()]);
        }
        if let Some((h, m)) = &self.time {
            out.extend([h.clone(), m.clone()]);
        }
        out
    }
}

/// A date (`YYYY-MM-DD`, then maybe `hh:mm`) or a time at the start of `words`: how many
/// words it takes, and its parts.
pub(super) fn date_in(words: &[&str]) -> Option<(usize, DateParts)> {
    let first = words.first()?;
    if let Some(date) = parse_date(first) {
        let time = words.get(1).and_then(|w| parse_time(w));
        let taken = if time.is_some() { 2 } else { 1 };
        return Some((
            taken,
            DateParts {
                date: Some(date),
                time,
            },
        ));
    }
    parse_time(first).map(|time| {
        (
            1,
            DateParts {
                date: None,
                time: Some(time),
            },
        )
    })
}

/// `text` with the keyword `now` in dates and times (`now-$m-01`, `now:30`) replaced by
/// the current year, month, day, hour or minute ("“now” keyword will be replaced by the
/// current value").
pub(super) fn fill_now(text: &str, now: &Civil) -> String {
    let words: Vec<String> = text
        .split(' ')
        .map(|w| {
            let values = |sep: char, current: &[String]| -> Option<String> {
                let parts: Vec<&str> = w.split(sep).collect();
                let fits = parts.len() == current.len()
                    && parts.contains(&"now")
                    && parts
                        .iter()
                        .all(|p| *p == "now" || p.bytes().all(|b| b.is_ascii_digit()));
                fits.then(|| {
                    parts
                        .iter()
                        .zip(current)
                        .map(|(p, c)| {
                            if *p == "now" {
                                c.clone()
                            } else {
                                (*p).to_string()
                            }
                        })
                        .collect::<Vec<_>>()
                        .join(&sep.to_string())
                })
            };
            let date = [
                format!("{:04}", now.year),
                format!("{:02}", now.month),
                format!("{:02}", now.day),
            ];
            let time = [format!("{:02}", now.hour), format!("{:02}", now.minute)];
            values('-', &date)
                .or_else(|| values(':', &time))
                .unwrap_or_else(|| w.to_string())
        })
        .collect();
    words.join(" ")
}

fn digits(s: &str, n: usize) -> bool {
    s.len() == n && s.bytes().all(|b| b.is_ascii_digit())
}

fn parse_date(w: &str) -> Option<(String, String, String)> {
    let mut it = w.split('-');
    let (y, m, d) = (it.next()?, it.next()?, it.next()?);
    (it.next().is_none() && digits(y, 4) && digits(m, 2) && digits(d, 2))
        .then(|| (y.to_string(), m.to_string(), d.to_string()))
}

fn parse_time(w: &str) -> Option<(String, String)> {
    let (h, m) = w.split_once(':')?;
    (digits(h, 2) && digits(m, 2)).then(|| (h.to_string(), m.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_dates() {
        // 2017-05-03 10:15 UTC was a Wednesday (hand-checked against a calendar).
        let c = civil(1_493_806_500_000);
        assert_eq!(
            (c.year, c.month, c.day, c.hour, c.minute, c.weekday),
            (2017, 5, 3, 10, 15, 2)
        );
        let sunday = end_of_week(1_493_806_500_000);
        assert_eq!((sunday.month, sunday.day, sunday.weekday), (5, 7, 6));
        assert_eq!(DateParts::date_time(&c).text(), "2017-05-03 10:15");
        assert_eq!(civil(0).weekday, 3);
        assert_eq!(
            data("Dialog/DateCode", 1_493_806_500_000).as_deref(),
            Some("503")
        );
        assert_eq!(
            data("Dialog/Morning", 1_493_806_500_000).as_deref(),
            Some("1")
        );
        assert_eq!(
            data("Dialog/Night", 1_493_806_500_000).as_deref(),
            Some("0")
        );
        assert_eq!(
            data("Dialog/Year", 1_493_806_500_000).as_deref(),
            Some("2017")
        );
    }
}
