//! Imports: modules Python 3 renamed (the old name kept bound) and Python 2's `urllib`
//! functions, moved to `urllib.parse` and `urllib.request`.

use std::borrow::Cow;

use super::driver::Fixer;
use super::rewrite::Rewrite;
use super::tokenize::Kind;

/// The module Python 3 has in place of Python-2 module `m`.
pub(super) fn renamed_module(m: &[u8]) -> Option<&'static str> {
    Some(match m {
        b"urllib2" => "urllib.request",
        b"Queue" => "queue",
        b"ConfigParser" => "configparser",
        b"thread" => "_thread",
        b"cPickle" => "pickle",
        b"StringIO" | b"cStringIO" => "io",
        b"httplib" => "http.client",
        b"urlparse" => "urllib.parse",
        b"HTMLParser" => "html.parser",
        b"htmlentitydefs" => "html.entities",
        b"cookielib" => "http.cookiejar",
        b"Cookie" => "http.cookies",
        b"SocketServer" => "socketserver",
        b"BaseHTTPServer" | b"SimpleHTTPServer" | b"CGIHTTPServer" => "http.server",
        b"xmlrpclib" => "xmlrpc.client",
        b"SimpleXMLRPCServer" => "xmlrpc.server",
        b"copy_reg" => "copyreg",
        b"__builtin__" | b"exceptions" => "builtins",
        b"commands" => "subprocess",
        b"UserDict" | b"UserList" | b"UserString" => "collections",
        b"anydbm" => "dbm",
        b"robotparser" => "urllib.robotparser",
        b"Tkinter" => "tkinter",
        b"tkMessageBox" => "tkinter.messagebox",
        b"tkFileDialog" => "tkinter.filedialog",
        b"tkSimpleDialog" => "tkinter.simpledialog",
        b"ttk" => "tkinter.ttk",
        b"ScrolledText" => "tkinter.scrolledtext",
        b"Tkconstants" => "tkinter.constants",
        b"tkFont" => "tkinter.font",
        _ => return None,
    })
}

/// Where a Python-2 `urllib` function lives in Python 3.
pub(super) fn urllib_module(name: &[u8]) -> Option<&'static str> {
    match name {
        b"quote" | b"quote_plus" | b"unquote" | b"unquote_plus" | b"urlencode" => {
            Some("urllib.parse")
        }
        b"urlopen"
        | b"urlretrieve"
        | b"urlcleanup"
        | b"pathname2url"
        | b"url2pathname"
        | b"getproxies"
        | b"URLopener"
        | b"FancyURLopener"
        | b"ContentTooShortError" => Some("urllib.request"),
        _ => None,
    }
}

impl<'a> Fixer<'a> {
    /// `import a, b as c` in `s..e`: renamed modules, plain `urllib`.
    pub(super) fn import_statement(&mut self, s: usize, e: usize) {
        let mut k = s + 1;
        while k < e {
            let item_end = self.find0(k, e, Kind::Op, b",").unwrap_or(e);
            let module = self.text(k);
            if self.kind(k) == Some(Kind::Name) {
                let plain = item_end == k + 1;
                let aliased = item_end == k + 3 && self.is_name(k + 1, b"as");
                if plain && module == b"urllib" {
                    self.urllib_imports.push(k);
                } else if let Some(new) = renamed_module(module).filter(|_| plain || aliased) {
                    let text = if plain {
                        Cow::Owned(format!(
                            "{new} as {}",
                            std::str::from_utf8(module).unwrap_or_default()
                        ))
                    } else {
                        Cow::Borrowed(new)
                    };
                    self.edit(self.start(k), self.end(k), text);
                    self.change(k, Rewrite::RenamedModule);
                }
            }
            k = item_end + 1;
        }
    }

    /// `from m import ...` in `s..e` with a renamed `m`, or `from urllib import ...`.
    pub(super) fn import_from(&mut self, s: usize, e: usize) {
        let m = s + 1;
        if self.kind(m) != Some(Kind::Name) || !self.is_name(m + 1, b"import") {
            return;
        }
        let module = self.text(m);
        if module == b"urllib" {
            self.import_from_urllib(m, e);
        } else if let Some(new) = renamed_module(module) {
            self.edit(self.start(m), self.end(m), new);
            self.change(m, Rewrite::RenamedModule);
        }
    }

    /// `from urllib import names` (module token `m`, statement end `e`): the names go to
    /// `urllib.parse` or `urllib.request`, or both as two statements on the line.
    pub(super) fn import_from_urllib(&mut self, m: usize, e: usize) {
        let first = m + 2;
        let paren = self.is_op(first, b"(");
        let (lo, hi) = if paren {
            (first + 1, e.saturating_sub(1))
        } else {
            (first, e)
        };
        if lo >= hi || (paren && !self.is_op(hi, b")")) {
            return;
        }
        let depth = self.depth(lo);
        let (mut parse, mut request) = (Vec::new(), Vec::new());
        let mut k = lo;
        while k < hi {
            let end = (k..hi)
                .find(|&j| self.depth(j) == depth && self.is_op(j, b","))
                .unwrap_or(hi);
            if end > k {
                let text = self
                    .src
                    .get(self.start(k)..self.end(end - 1))
                    .unwrap_or_default();
                match urllib_module(self.text(k)) {
                    Some("urllib.parse") => parse.push(text),
                    Some(_) => request.push(text),
                    None => return,
                }
            }
            k = end + 1;
        }
        let text: Cow<'static, str> = match (parse.is_empty(), request.is_empty()) {
            (true, true) => return,
            (false, true) => "urllib.parse".into(),
            (true, false) => "urllib.request".into(),
            (false, false) => {
                let (from, to) = (self.start(m), self.end(e - 1));
                if paren
                    || self
                        .src
                        .get(from..to)
                        .is_none_or(|t| t.contains(['\n', '\r']))
                {
                    return;
                }
                let text = format!(
                    "urllib.parse import {}; from urllib.request import {}",
                    parse.join(", "),
                    request.join(", ")
                );
                self.edit(from, to, text);
                self.change(m, Rewrite::Urllib);
                return;
            }
        };
        self.edit(self.start(m), self.end(m), text);
        self.change(m, Rewrite::Urllib);
    }
}
