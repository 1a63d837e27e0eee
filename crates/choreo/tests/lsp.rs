//! `choreo lsp` driven over stdio by a client speaking JSON-RPC as an editor does: open,
//! change, diagnostics, definition, references, hover, completion, rename, formatting,
//! symbols, "Try this rule", on hand-written topics and behaviors (every range below
//! counted by hand from the text) and on the corpus's files.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::Duration;

use serde_json::{Value, json};

/// How long an answer may take before the test says the server hangs: far above what any
/// answer needs, so that a loaded machine never reaches it.
const PATIENCE: Duration = Duration::from_secs(120);

/// A client: the server's process, its stdin, and the messages it sent, read on a thread.
struct Client {
    child: Child,
    stdin: ChildStdin,
    inbox: Receiver<Value>,
    /// Notifications seen while waiting for responses.
    notes: Vec<Value>,
    next: i64,
}

impl Client {
    fn start() -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_choreo"))
            .arg("lsp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("choreo lsp starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, inbox) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let mut length = None;
                loop {
                    let mut header = String::new();
                    if reader.read_line(&mut header).unwrap_or(0) == 0 {
                        return;
                    }
                    let header = header.trim();
                    if header.is_empty() {
                        break;
                    }
                    if let Some(n) = header.strip_prefix("Content-Length: ") {
                        length = n.parse::<usize>().ok();
                    }
                }
                let mut body = vec![0; length.expect("a Content-Length header")];
                if reader.read_exact(&mut body).is_err() {
                    return;
                }
                let _ =
                    tx.send(serde_json::from_slice::<Value>(&body).expect("JSON from the server"));
            }
        });
        let mut client = Client {
            child,
            stdin,
            inbox,
            notes: Vec::new(),
            next: 1,
        };
        let init = client.request(
            "initialize",
            json!({"processId": null, "rootUri": null, "capabilities": {}}),
        );
        assert!(
            init["capabilities"]["definitionProvider"]
                .as_bool()
                .unwrap_or(false),
            "{init}"
        );
        client.notify("initialized", json!({}));
        client
    }

    fn send(&mut self, message: &Value) {
        let body = message.to_string();
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
        self.stdin.flush().unwrap();
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    fn next_message(&mut self) -> Value {
        match self.inbox.recv_timeout(PATIENCE) {
            Ok(m) => m,
            Err(RecvTimeoutError::Timeout) => panic!("the server answered nothing in {PATIENCE:?}"),
            Err(RecvTimeoutError::Disconnected) => panic!("the server closed its output"),
        }
    }

    /// The result of a request (panics on a protocol error).
    fn request(&mut self, method: &str, params: Value) -> Value {
        let response = self.request_raw(method, params);
        assert!(response.get("error").is_none(), "{method}: {response}");
        response["result"].clone()
    }

    fn request_raw(&mut self, method: &str, params: Value) -> Value {
        let id = self.next;
        self.next += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let m = self.next_message();
            if m.get("id") == Some(&json!(id)) {
                return m;
            }
            self.notes.push(m);
        }
    }

    /// The diagnostics the server publishes next for `uri`.
    fn diagnostics(&mut self, uri: &str) -> Vec<Value> {
        loop {
            let found = self.notes.iter().position(|n| {
                n["method"] == "textDocument/publishDiagnostics" && n["params"]["uri"] == uri
            });
            if let Some(i) = found {
                let n = self.notes.remove(i);
                return n["params"]["diagnostics"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default();
            }
            let m = self.next_message();
            self.notes.push(m);
        }
    }

    fn open(&mut self, path: &Path, language: &str, text: &str) -> String {
        let uri = uri(path);
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": language, "version": 1, "text": text}}),
        );
        uri
    }

    fn at(&mut self, method: &str, uri: &str, line: u32, character: u32, extra: Value) -> Value {
        let mut params = json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": character}});
        if let (Some(p), Some(e)) = (params.as_object_mut(), extra.as_object()) {
            p.extend(e.clone());
        }
        self.request(method, params)
    }

    /// Shuts the server down as an editor does; its exit code.
    fn finish(mut self) -> i32 {
        self.request("shutdown", Value::Null);
        self.notify("exit", Value::Null);
        drop(self.stdin);
        self.child.wait().unwrap().code().unwrap_or(-1)
    }
}

fn uri(path: &Path) -> String {
    lsp_types::Url::from_file_path(path).unwrap().to_string()
}

/// `[line, start, end]` of a range (its start and end on one line).
fn span(range: &Value) -> [u64; 3] {
    let n = |v: &Value| v.as_u64().unwrap();
    assert_eq!(range["start"]["line"], range["end"]["line"], "{range}");
    [
        n(&range["start"]["line"]),
        n(&range["start"]["character"]),
        n(&range["end"]["character"]),
    ]
}

const GREET: &str = "topic: ~greet()
language: enu
concept:(hello) [hello hi \"good morning\"]
u:(~hello) ~hello, what is your name?
    u1:(my name is _*) nice to meet you $name=$1
u:(what is my name) your name is $name
u:(bye) ^goto(farewell)
proposal: %weather what a day
";

/// The labels of a completion answer.
fn labels_of(items: &Value) -> Vec<String> {
    items
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["label"].as_str().unwrap().to_string())
        .collect()
}

fn project() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("manifest.xml"),
        "<package uuid=\"t\" version=\"0.0.1\"/>",
    )
    .unwrap();
    let greet = dir.path().join("greet_enu.top");
    std::fs::write(&greet, GREET).unwrap();
    let other = dir.path().join("other_enu.top");
    std::fs::write(
        &other,
        "topic: ~other()\nlanguage: enu\nu:(~hello robot) ~hello human\n",
    )
    .unwrap();
    (dir, greet, other)
}

#[test]
fn a_topic_is_checked_as_typed_and_its_names_are_navigable() {
    let (_dir, greet, other) = project();
    let mut c = Client::start();
    let u = c.open(&greet, "qichat", GREET);
    // `^goto(farewell)`: line 6, "u:(bye) ^goto(" is 14 characters, "farewell" ends at 22.
    let d = c.diagnostics(&u);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(span(&d[0]["range"]), [6, 14, 22]);
    assert!(d[0]["message"].as_str().unwrap().contains("%farewell"));

    // A syntax error typed: the parenthesis left open on line 6.
    let broken = GREET.replace("u:(bye) ^goto(farewell)", "u:(bye ^goto(farewell)");
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": u, "version": 2}, "contentChanges": [{"text": broken}]}),
    );
    let d = c.diagnostics(&u);
    let errors: Vec<&Value> = d.iter().filter(|x| x["severity"] == 1).collect();
    assert!(!errors.is_empty(), "{d:?}");
    assert_eq!(errors[0]["range"]["start"]["line"], 6, "{d:?}");
    // A variable no topic sets: information at its name (line 8, "u:(how are you) I feel $"
    // is 24 characters).
    let unset = format!("{GREET}u:(how are you) I feel $mood\n");
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": u, "version": 3}, "contentChanges": [{"text": unset}]}),
    );
    let d = c.diagnostics(&u);
    let info: Vec<&Value> = d.iter().filter(|x| x["severity"] == 3).collect();
    assert_eq!(info.len(), 1, "{d:?}");
    assert_eq!(span(&info[0]["range"]), [8, 24, 28]);
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": u, "version": 4}, "contentChanges": [{"text": GREET}]}),
    );
    c.diagnostics(&u);

    // Definition of `~hello` (line 3, character 4) is `concept:(hello)`: line 2, 9..14.
    let def = c.at("textDocument/definition", &u, 3, 4, json!({}));
    assert_eq!(def.as_array().unwrap().len(), 1, "{def}");
    assert_eq!(span(&def[0]["range"]), [2, 9, 14]);
    // Its references: the definition, two uses here, two in the other topic.
    let refs = c.at(
        "textDocument/references",
        &u,
        3,
        4,
        json!({"context": {"includeDeclaration": true}}),
    );
    let refs = refs.as_array().unwrap();
    assert_eq!(refs.len(), 5, "{refs:?}");
    assert_eq!(refs.iter().filter(|r| r["uri"] == uri(&other)).count(), 2);
    // A variable: `$name` (line 5: `$` at 33) is set on line 4, where four spaces and
    // "u1:(my name is _*) nice to meet you " (36 characters) put `$` at 40, the name at 41.
    let def = c.at("textDocument/definition", &u, 5, 34, json!({}));
    assert_eq!(span(&def[0]["range"]), [4, 41, 45]);

    let hover = c.at("textDocument/hover", &u, 3, 5, json!({}));
    let shown = hover["contents"]["value"].as_str().unwrap();
    assert!(
        shown.contains("concept:(hello) [hello hi \"good morning\"]"),
        "{shown}"
    );

    // Completion after `~` offers the project's concepts; after `^` QiChat's functions.
    let line = "u:(~";
    let edited = format!("{GREET}{line}");
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": u, "version": 5}, "contentChanges": [{"text": edited}]}),
    );
    let labels = labels_of(&c.at("textDocument/completion", &u, 8, 4, json!({})));
    assert_eq!(labels, ["hello"]);
    // Inside a rule with nothing typed (Ctrl+Space after `u:(`): the concepts and the
    // variables, their sigils included.
    let labels = labels_of(&c.at("textDocument/completion", &u, 8, 3, json!({})));
    assert!(labels.iter().any(|l| l == "~hello"), "{labels:?}");
    assert!(labels.iter().any(|l| l.starts_with('$')), "{labels:?}");
    let items = c.at("textDocument/completion", &u, 6, 9, json!({}));
    assert!(
        items
            .as_array()
            .unwrap()
            .iter()
            .any(|i| i["label"] == "gotoReactivate")
    );
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": u, "version": 6}, "contentChanges": [{"text": GREET}]}),
    );

    // Rename `hello` to `greeting`: five edits in two files.
    let edit = c.at(
        "textDocument/rename",
        &u,
        2,
        10,
        json!({"newName": "greeting"}),
    );
    let changes = edit["changes"].as_object().unwrap();
    assert_eq!(changes[&u].as_array().unwrap().len(), 3);
    assert_eq!(changes[&uri(&other)].as_array().unwrap().len(), 2);
    let refused = c.request_raw(
        "textDocument/rename",
        json!({"textDocument": {"uri": u}, "position": {"line": 2, "character": 10}, "newName": "two words"}),
    );
    assert!(refused.get("error").is_some(), "{refused}");

    // The outline: the topic, the concept, two rules (the first with its subrule), a
    // third, the proposal.
    let symbols = c.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": u}}),
    );
    let names: Vec<&str> = symbols
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 6, "{names:?}");
    assert!(names[0].starts_with("topic:") && names[2].starts_with("u: (~hello)"));
    assert_eq!(
        symbols[2]["children"][0]["name"],
        "u1: (my name is _*) nice to meet you $name=$1"
    );
    assert_eq!(c.finish(), 0);
}

#[test]
fn formatting_lays_a_topic_out_and_try_this_rule_answers() {
    let (_dir, greet, _) = project();
    let mut c = Client::start();
    let messy = "topic: ~greet()\n   language: enu\n\n\n\nu:(what is my name) your name is $name  \nu1:(no) sorry\n";
    let u = c.open(&greet, "qichat", messy);
    c.diagnostics(&u);
    let edits = c.request(
        "textDocument/formatting",
        json!({"textDocument": {"uri": u}, "options": {"tabSize": 4, "insertSpaces": true}}),
    );
    assert_eq!(edits.as_array().unwrap().len(), 1);
    assert_eq!(
        edits[0]["newText"],
        "topic: ~greet()\nlanguage: enu\n\nu:(what is my name) your name is $name\n    u1:(no) sorry\n"
    );
    // The edit replaces the whole text: from 0:0 to the line after the last.
    assert_eq!(edits[0]["range"]["end"], json!({"line": 7, "character": 0}));

    // The syntax page's introduction: "what is my name" before any name is "I don't know".
    let intro = "topic: ~introduction ()\nlanguage: enu\nu:(my name is _*) nice to meet you $name=$1\n\
                 u:(what is my name) ^first[\"your name is $name\" \"I don't know\"]\n";
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": u, "version": 2}, "contentChanges": [{"text": intro}]}),
    );
    c.diagnostics(&u);
    let range = json!({"start": {"line": 3, "character": 0}, "end": {"line": 3, "character": 0}});
    let actions = c.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": u}, "range": range, "context": {"diagnostics": []}}),
    );
    let action = &actions[0];
    assert_eq!(action["title"], "Try this rule: \"what is my name\"");
    let command = &action["command"];
    let said = c.request(
        "workspace/executeCommand",
        json!({"command": command["command"], "arguments": command["arguments"]}),
    );
    assert_eq!(
        said,
        "human: what is my name\nrobot: I don't know   [line 4]"
    );
    // A sentence of the editor's own.
    let said = c.request(
        "workspace/executeCommand",
        json!({"command": "choreo.tryRule", "arguments": [u, 2, "my name is David"]}),
    );
    assert_eq!(
        said,
        "human: my name is David\nrobot: nice to meet you   [line 3]"
    );
    assert_eq!(c.finish(), 0);
}

const BEHAVIOR: &str = r#"<?xml version="1.0" encoding="UTF-8" ?>
<ChoregrapheProject xmlns="http://www.aldebaran-robotics.com/schema/choregraphe/project.xsd" xar_version="3">
<Box name="root" id="-1" localization="8" tooltip="" x="0" y="0">
<bitmap>media/images/box/root.png</bitmap><script language="4"><content><![CDATA[]]></content></script>
<Input name="onLoad" type="1" type_size="1" nature="0" inner="1" tooltip="" id="1" />
<Input name="onStart" type="1" type_size="1" nature="2" inner="0" tooltip="" id="2" />
<Input name="onStop" type="1" type_size="1" nature="3" inner="0" tooltip="" id="3" />
<Output name="onStopped" type="1" type_size="1" nature="1" inner="0" tooltip="" id="4" />
<Timeline enable="0"><BehaviorLayer name="behavior_layer1"><BehaviorKeyframe name="keyframe1" index="1"><Diagram>
<Box name="Hello" id="2" localization="8" tooltip="says hello" x="100" y="100"><bitmap>media/images/box/box-python-script.png</bitmap><script language="4"><content><![CDATA[class MyClass(GeneratedClass):
    def __init__(self):
        GeneratedClass.__init__(self)
        self.tts = ALProxy("ALTextToSpeech")

    def onInput_onStart(self):
        self.tts.say("hello")
        self.onStopped()
]]></content></script>
<Input name="onLoad" type="1" type_size="1" nature="0" inner="1" tooltip="" id="1" />
<Input name="onStart" type="1" type_size="1" nature="2" inner="0" tooltip="" id="2" />
<Output name="onStopped" type="1" type_size="1" nature="1" inner="0" tooltip="" id="3" />
</Box>
<Link inputowner="2" indexofinput="2" outputowner="0" indexofoutput="2" />
<Link inputowner="0" indexofinput="4" outputowner="2" indexofoutput="3" />
</Diagram></BehaviorKeyframe></BehaviorLayer></Timeline></Box></ChoregrapheProject>
"#;

#[test]
fn a_behavior_s_links_lead_to_their_ports_and_its_scripts_know_naoqi() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("behavior.xar");
    std::fs::write(&path, BEHAVIOR).unwrap();
    let mut c = Client::start();
    let u = c.open(&path, "xml", BEHAVIOR);
    let d = c.diagnostics(&u);
    assert!(d.is_empty(), "{d:?}");
    // The second link (line 23) names output 3 of box 2: Hello's onStopped, line 20.
    let link = BEHAVIOR.lines().nth(23).unwrap();
    let column = u32::try_from(link.find("indexofoutput").unwrap()).unwrap();
    let def = c.at("textDocument/definition", &u, 23, column + 2, json!({}));
    assert_eq!(def[0]["range"]["start"]["line"], 20, "{def}");
    // Its input end (`inputowner="0" indexofinput="4"`): the root's onStopped, line 7.
    let def = c.at("textDocument/definition", &u, 23, 8, json!({}));
    assert_eq!(def[0]["range"]["start"]["line"], 7, "{def}");
    // Hello's onStopped is used by that link only; the root's onStart by the first link.
    let refs = c.at(
        "textDocument/references",
        &u,
        20,
        5,
        json!({"context": {"includeDeclaration": false}}),
    );
    let lines: Vec<&Value> = refs
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["range"]["start"]["line"])
        .collect();
    assert_eq!(lines, [&json!(23)]);
    let refs = c.at(
        "textDocument/references",
        &u,
        5,
        5,
        json!({"context": {"includeDeclaration": false}}),
    );
    assert_eq!(refs[0]["range"]["start"]["line"], 22, "{refs}");
    // Hover on the box: its ports; on `say` (line 15): ALTextToSpeech.say's signatures.
    let hover = c.at("textDocument/hover", &u, 18, 5, json!({}));
    let shown = hover["contents"]["value"].as_str().unwrap();
    assert!(
        shown.contains("`Hello`") && shown.contains("outputs: `onStopped`"),
        "{shown}"
    );
    let say = BEHAVIOR.lines().nth(15).unwrap();
    let column = u32::try_from(say.find("say").unwrap()).unwrap();
    let hover = c.at("textDocument/hover", &u, 15, column + 1, json!({}));
    let shown = hover["contents"]["value"].as_str().unwrap();
    assert!(
        shown.contains("ALTextToSpeech.say") && shown.contains("say(s) -> v"),
        "{shown}"
    );
    // The outline: root, and Hello inside it.
    let symbols = c.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": u}}),
    );
    assert_eq!(symbols[0]["name"], "root");
    assert_eq!(symbols[0]["children"][0]["name"], "Hello");

    // A Python syntax error typed in the script: at the file's own line (15).
    let broken = BEHAVIOR.replace("self.tts.say(\"hello\")", "self.tts.say(\"hello\"");
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": u, "version": 2}, "contentChanges": [{"text": broken}]}),
    );
    let d = c.diagnostics(&u);
    assert!(
        d.iter().any(|x| x["severity"] == 1
            && (15..=16).contains(&x["range"]["start"]["line"].as_u64().unwrap())),
        "{d:?}"
    );
    // Completion of ALTextToSpeech's methods after `self.tts.`.
    let typing = BEHAVIOR.replace("self.tts.say(\"hello\")", "self.tts.");
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": u, "version": 3}, "contentChanges": [{"text": typing}]}),
    );
    c.diagnostics(&u);
    let items = c.at("textDocument/completion", &u, 15, 17, json!({}));
    assert!(
        items
            .as_array()
            .unwrap()
            .iter()
            .any(|i| i["label"] == "setLanguage"),
        "{items}"
    );
    assert_eq!(c.finish(), 0);
}

/// Every corpus topic and behavior opened: the server answers each with diagnostics inside
/// the text, as many errors as `choreo check` finds, and an outline.
#[test]
fn every_corpus_topic_and_behavior_is_served() {
    let Some(corpus) = choreo_testkit::corpus("choreo lsp on the corpus") else {
        return;
    };
    let files = choreo_testkit::files_under(&corpus, &|p| {
        choreo_testkit::has_extension(p, &["top", "xar"])
    });
    let mut c = Client::start();
    let (mut opened, mut errors) = (0, 0);
    for f in files.iter().take(400) {
        // A path without `..`: the URI the server names the file by is the same.
        let Ok(f) = dunce::canonicalize(f) else {
            continue;
        };
        let Ok(text) = std::fs::read_to_string(&f) else {
            continue;
        };
        let language = if f.extension().is_some_and(|e| e == "top") {
            "qichat"
        } else {
            "xml"
        };
        let u = c.open(&f, language, &text);
        let d = c.diagnostics(&u);
        let lines = u64::try_from(text.lines().count().max(1)).unwrap();
        for x in &d {
            assert!(
                x["range"]["start"]["line"].as_u64().unwrap() < lines,
                "{}: {x}",
                f.display()
            );
        }
        let found = d.iter().filter(|x| x["severity"] == 1).count();
        let report = choreo_xar::source::check_file(&f.display().to_string(), text.as_bytes());
        if language == "qichat" {
            assert_eq!(found, report.error_count(), "{}: {d:?}", f.display());
        }
        errors += found;
        let symbols = c.request(
            "textDocument/documentSymbol",
            json!({"textDocument": {"uri": u}}),
        );
        assert!(symbols.is_array(), "{}", f.display());
        c.notify("textDocument/didClose", json!({"textDocument": {"uri": u}}));
        c.diagnostics(&u);
        opened += 1;
    }
    println!("choreo lsp: {opened} corpus files served, {errors} errors shown");
    assert!(opened >= 100, "only {opened} corpus files");
    assert_eq!(c.finish(), 0);
}
