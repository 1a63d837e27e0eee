//! The languages a NAO or a Pepper speaks and understands: the names NAOqi's speech modules
//! use (`ALTextToSpeech.setLanguage("English")`), the codes of QiChat topics and `.dlg`
//! files (`language: enu`) and the locales of manifests (`en_US`), from the NAOqi 2.x
//! documentation's table of languages. A robot
//! has those of its installed language packs; the simulated robot has them all.

/// A language: NAOqi's name and QiChat's code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Language {
    /// The name speech modules take and return (`English`).
    pub name: &'static str,
    /// The code of topics and `.dlg` files (`enu`).
    pub code: &'static str,
    /// The locale of package manifests and Choregraphe's projects (`en_US`).
    pub locale: &'static str,
}

/// Every language, English first (a robot's default).
pub const LANGUAGES: &[Language] = &[
    Language {
        name: "English",
        code: "enu",
        locale: "en_US",
    },
    Language {
        name: "French",
        code: "frf",
        locale: "fr_FR",
    },
    Language {
        name: "German",
        code: "ged",
        locale: "de_DE",
    },
    Language {
        name: "Spanish",
        code: "spe",
        locale: "es_ES",
    },
    Language {
        name: "Italian",
        code: "iti",
        locale: "it_IT",
    },
    Language {
        name: "Dutch",
        code: "dun",
        locale: "nl_NL",
    },
    Language {
        name: "Portuguese",
        code: "ptp",
        locale: "pt_PT",
    },
    Language {
        name: "Brazilian",
        code: "ptb",
        locale: "pt_BR",
    },
    Language {
        name: "Japanese",
        code: "jpj",
        locale: "ja_JP",
    },
    Language {
        name: "Chinese",
        code: "mnc",
        locale: "zh_CN",
    },
    Language {
        name: "Korean",
        code: "kok",
        locale: "ko_KR",
    },
    Language {
        name: "Polish",
        code: "plp",
        locale: "pl_PL",
    },
    Language {
        name: "Czech",
        code: "czc",
        locale: "cs_CZ",
    },
    Language {
        name: "Swedish",
        code: "sws",
        locale: "sv_SE",
    },
    Language {
        name: "Finnish",
        code: "fif",
        locale: "fi_FI",
    },
    Language {
        name: "Danish",
        code: "dad",
        locale: "da_DK",
    },
    Language {
        name: "Norwegian",
        code: "nor",
        locale: "nb_NO",
    },
    Language {
        name: "Turkish",
        code: "trt",
        locale: "tr_TR",
    },
    Language {
        name: "Russian",
        code: "rur",
        locale: "ru_RU",
    },
    Language {
        name: "Greek",
        code: "grg",
        locale: "el_GR",
    },
    Language {
        name: "Arabic",
        code: "arw",
        locale: "ar_SA",
    },
];

/// The language named `name` (`English`).
pub fn by_name(name: &str) -> Option<&'static Language> {
    LANGUAGES.iter().find(|l| l.name == name)
}

/// The language of locale `locale` (`de_DE`).
pub fn by_locale(locale: &str) -> Option<&'static Language> {
    LANGUAGES.iter().find(|l| l.locale == locale)
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
            assert_eq!(by_locale(l.locale), Some(l));
        }
        assert_eq!(by_name("English").map(|l| l.code), Some("enu"));
        assert_eq!(by_code("frf").map(|l| l.name), Some("French"));
        assert!(by_name("Klingon").is_none());
    }
}
