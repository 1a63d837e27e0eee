//! The code a `content` element holds, whatever XML shape Choregraphe or a hand gave it
//! (CDATA, plain text, or both mixed with comments): read, written and located alike.

use crate::xml::TextContent;

/// The code held by the inner XML of a `content` element: the CDATA text, plain character
/// data, or for mixed content the text and CDATA pieces with comments left out.
/// Whitespace alone is no code.
pub(crate) fn code_of_raw_content(inner: &str) -> String {
    let code = match crate::xml::classify_text(inner) {
        TextContent::Cdata(code, _) => return code,
        TextContent::Text(text) => text,
        TextContent::Mixed => text_and_cdata_of(inner),
    };
    if code.trim().is_empty() {
        String::new()
    } else {
        code
    }
}

/// Concatenates the character data and CDATA of `inner`, leaving out comments, PIs and tags.
fn text_and_cdata_of(inner: &str) -> String {
    let mut reader = quick_xml::Reader::from_str(inner);
    let mut out = String::new();
    while let Ok(event) = reader.read_event() {
        match event {
            quick_xml::events::Event::Eof => break,
            quick_xml::events::Event::Text(t) => out.push_str(&t.xml10_content()),
            quick_xml::events::Event::CData(c) => out.push_str(&c.xml10_content()),
            quick_xml::events::Event::GeneralRef(r) => {
                if let Ok(Some(ch)) = r.resolve_char_ref() {
                    out.push(ch);
                } else if let Some(s) = quick_xml::escape::resolve_predefined_entity(&r) {
                    out.push_str(s);
                }
            }
            _ => {}
        }
    }
    out
}
