//! NAOqi in box scripts, from the one catalogue (`choreo_robot::naoqi`): the modules to
//! complete in `ALProxy("...")` and `session.service("...")`, the methods of a proxy a
//! script named (`self.tts = ALProxy("ALTextToSpeech")`, then `self.tts.`), and hovers
//! with a method's signatures and the NAOqi versions that have it.

use choreo_robot::naoqi::{Catalogue, Module, Versions};
use lsp_types::{CompletionItem, CompletionItemKind, Position};

use crate::documents::{byte_of_column, line_of};

use choreo_python::box_scripts::{MODULE_OPENERS, proxies};

/// "2.1, 2.5, 2.8" (the versions known to have it), or "no version known".
fn versions(v: &Versions) -> String {
    let known: Vec<String> = v.known().iter().map(ToString::to_string).collect();
    if known.is_empty() {
        "no version known".to_string()
    } else {
        format!("NAOqi {}", known.join(", "))
    }
}

/// Completions at `position` of a script's text: modules inside `ALProxy("` or
/// `.service("`, a named proxy's methods after `proxy.`.
pub fn completion(text: &str, position: Position) -> Vec<CompletionItem> {
    let n = usize::try_from(position.line).unwrap_or(usize::MAX);
    let line = line_of(text, n);
    let before = &line[..byte_of_column(line, position.character)];
    let word = before.len()
        - before
            .chars()
            .rev()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .map(char::len_utf8)
            .sum::<usize>();
    let head = &before[..word];
    let catalogue = Catalogue::naoqi();
    if let Some(open) = head.strip_suffix(['"', '\''])
        && MODULE_OPENERS.iter().any(|o| open.trim_end().ends_with(o))
    {
        return catalogue
            .modules()
            .iter()
            .map(|m| CompletionItem {
                label: m.name.to_string(),
                kind: Some(CompletionItemKind::MODULE),
                detail: Some(versions(&m.versions)),
                ..CompletionItem::default()
            })
            .collect();
    }
    let Some(object) = head.strip_suffix('.') else {
        return Vec::new();
    };
    let start = object
        .rfind(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
        .map_or(0, |i| i + 1);
    let Some(module) = proxies(text).get(&object[start..]).copied() else {
        return Vec::new();
    };
    module
        .method_names()
        .into_iter()
        .map(|name| CompletionItem {
            label: name.to_string(),
            kind: Some(CompletionItemKind::METHOD),
            detail: Some(signatures(module, name)),
            ..CompletionItem::default()
        })
        .collect()
}

/// `say(s) -> v; say(ss) -> v (NAOqi 2.1, 2.5, 2.8)`.
fn signatures(module: &Module, name: &str) -> String {
    let overloads: Vec<String> = module
        .overloads(name)
        .map(|m| format!("{name}{} -> {}", m.params, m.returns))
        .collect();
    let known = module
        .overloads(name)
        .next()
        .map_or(String::new(), |m| format!(" ({})", versions(&m.versions)));
    format!("{}{known}", overloads.join("; "))
}

/// Hover text at `position`: a module named in a string (its versions), or a proxy's
/// method (its signatures and versions).
pub fn hover(text: &str, position: Position) -> Option<String> {
    let n = usize::try_from(position.line).ok()?;
    let line = line_of(text, n);
    let at = byte_of_column(line, position.character);
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    let start = line[..at].rfind(|c: char| !is_word(c)).map_or(0, |i| i + 1);
    let end = line[at..]
        .find(|c: char| !is_word(c))
        .map_or(line.len(), |i| at + i);
    let word = line.get(start..end).filter(|w| !w.is_empty())?;
    let catalogue = Catalogue::naoqi();
    if let Some(module) = catalogue.module(word) {
        return Some(format!(
            "**{}** ({}): {} methods",
            module.name,
            versions(&module.versions),
            module.method_names().len()
        ));
    }
    let object = line[..start].strip_suffix('.')?;
    let from = object
        .rfind(|c: char| !(is_word(c) || c == '.'))
        .map_or(0, |i| i + 1);
    let module = proxies(text).get(&object[from..]).copied()?;
    module
        .has_method(word)
        .then(|| format!("**{}.{word}**: {}", module.name, signatures(module, word)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_proxy_s_methods_complete_after_its_name() {
        let text = "        self.tts = ALProxy(\"ALTextToSpeech\")\n        self.tts.\n";
        let items = completion(text, Position::new(1, 17));
        assert!(items.iter().any(|i| i.label == "say"), "{items:?}");
        let modules = completion("x = ALProxy(\"", Position::new(0, 13));
        assert!(modules.iter().any(|i| i.label == "ALMotion"));
    }
}
