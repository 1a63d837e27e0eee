//! ALDialog: QiChat topics run by choreo-qichat's dialog engine, with the API of the NAOqi
//! 2.8 ALDialog page.
//!
//! **Topics.** `loadTopic(path)` (with the concepts of the files its `include:` lines name,
//! next to it) and `loadTopicContent(text)` parse a topic; a syntax error fails the call
//! with its location, as NAOqi raises on a bad topic. Topics are kept by name and language
//! (one name may be loaded in English and in French); a topic answers while it is activated
//! and ALDialog's language (`setLanguage`) is the topic's `language:`.
//!
//! **Variables are ALMemory's.** `$name` reads memory key `name` and `$name=value` writes it
//! (a string, notifying subscribers as `insertData` does); `setVariablePath(topic, name,
//! key)` makes the topic's `$name` and `e:name` key `key` instead (the stock Dialog box gives
//! its inputs and outputs keys of their own this way). `e:` rules answer memory events while
//! the dialog runs.
//!
//! **Answers.** While a dialog runs (something subscribed), what the robot hears (a
//! scenario's `recognize` at or above the confidence threshold, `forceInput`, which answers
//! even with no subscriber) raises `Dialog/LastInput`, then `Dialog/Answered` and the answer,
//! or `Dialog/NotUnderstood` (a fallback service, `addFallback`, may answer it). An answer is
//! performed in the order its output says, on a background activity, one answer after the
//! other: words and the animated-speech instructions through ALAnimatedSpeech, `$var=value`
//! once the words before it are said. `gotoTag`, `gotoTopic`, `forceOutput` and push mode
//! (`startPush`) make the robot speak first. The engine itself is `engine.rs`.
//!
//! The files, from the bottom up: `state` (ALDialog's state), `fallback` (the fallback
//! services), `silence` (the silence events), `engine` (the QiChat engine and what runs its
//! answers), `module` (ALDialog's methods).

mod engine;
mod fallback;
mod module;
mod silence;
mod state;

pub use engine::DialogScripts;
pub(crate) use engine::{Engine, dialog_call};
pub(crate) use module::{heard, memory_event, serve, set_preferred_language};

/// The rules of the active topics while a dialog runs (something subscribed to ALDialog);
/// empty otherwise, as nothing then answers what is heard. Unless `wait`, `None` while the
/// engine is busy answering (this thread's `^call`, another's answer): then it is not
/// looked at, rather than waited for.
pub(crate) fn listening(
    sim: &crate::robot::core::Sim,
    wait: bool,
) -> Option<Vec<choreo_qichat::dialog::listening::Listened>> {
    let running = !sim.state().part::<state::Dialog>().subscribers.is_empty();
    if !running {
        return Some(Vec::new());
    }
    let engine = sim.extension::<Engine>();
    if wait {
        Some(engine.get().listening())
    } else {
        engine.try_get().map(|d| d.listening())
    }
}

/// Every user rule of the topics loaded so far (unloaded since or not), and those that
/// answered so far.
pub(crate) fn coverage(
    sim: &crate::robot::core::Sim,
) -> (
    Vec<choreo_qichat::dialog::listening::RuleAt>,
    std::collections::BTreeSet<choreo_qichat::dialog::listening::RuleAt>,
) {
    let engine = sim.extension::<Engine>();
    let mut rules = engine.loaded_rules();
    rules.extend(engine.get().rules());
    (rules.into_iter().collect(), engine.matched())
}
