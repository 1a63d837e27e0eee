//! The languages a NAO or a Pepper speaks and understands: the names NAOqi's speech modules
//! use (`ALTextToSpeech.setLanguage("English")`) and the codes of QiChat topics and `.dlg`
//! files (`language: enu`), from the NAOqi 2.x documentation's table of languages. A robot
//! has those of its installed language packs; the simulated robot has them all.

/// A language: NAOqi's name and QiChat's code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Language {
    /// The name speech modules take and return (`English`).
    pub name: &'static str,
    /// The code of topics and `.dlg` files (`enu`).
    pub code: &'static str,
}

/// Every language, English first (a robot's default).
pub const LANGUAGES: &[Language] = &[
    Language {
        name: "English",
        code: "enu",
    },
    Language {
        name: "French",
        code: "frf",
    },
    Language {
        name: "German",
        code: "ged",
    },
    Language {
        name: "Spanish",
        code: "spe",
    },
    Language {
        name: "Italian",
        code: "iti",
    },
    Language {
        name: "Dutch",
        code: "dun",
    },
    Language {
        name: "Portuguese",
        code: "ptp",
    },
    Language {
        name: "Brazilian",
        code: "ptb",
    },
    Language {
        name: "Japanese",
        code: "jpj",
    },
    Language {
        name: "Chinese",
        code: "mnc",
    },
    Language {
        name: "Korean",
        code: "kok",
    },
    Language {
        name: "Polish",
        code: "plp",
    },
    Language {
        name: "Czech",
        code: "czc",
    },
    Language {
        name: "Swedish",
        code: "sws",
    },
    Language {
        name: "Finnish",
        code: "fif",
    },
    Language {
        name: "Danish",
        code: "dad",
    },
    Language {
        name: "Norwegian",
        code: "nor",
    },
    Language {
        name: "Turkish",
        code: "trt",
    },
    Language {
        name: "Russian",
        code: "rur",
    },
    Language {
        name: "Greek",
        code: "grg",
    },
    Language {
        name: "Arabic",
        code: "arw",
    },
];

/// The language named `name` (`English`).
pub fn by_name(name: &str) -> Option<&'static Language> {
    LANGUAGES.iter().find(|l| l.name == name)
}

/// The language of QiChat code `code` (`enu`).
pub fn by_code(code: &str) -> Option<&'static Language> {
    LANGUAGES.iter().find(|l| l.code == code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_codes_are_unique_and_go_both_ways() {
        for l in LANGUAGES {
            assert_eq!(by_name(l.name), Some(l));
            assert_eq!(by_code(l.code), Some(l));
        }
        assert_eq!(by_name("English").map(|l| l.code), Some("enu"));
        assert_eq!(by_code("frf").map(|l| l.name), Some("French"));
        assert!(by_name("Klingon").is_none());
    }
}
