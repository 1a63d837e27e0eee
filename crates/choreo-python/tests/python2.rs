//! Python-2 scripts: the runtime names no rewrite can fix (builtins, module names), and the
//! fixer applied to every script before it is compiled.

use crate::support;

use support::*;

#[test]
fn python_2_builtins_exist_in_every_script() {
    let code = "
from functools import reduce as reduce3

class MyClass(GeneratedClass):
    def onInput_onStart(self):
        self.log(repr(unicode('a') + unicode(b'\\xc3\\xa9', 'utf-8')))
        self.log(repr([isinstance('x', unicode), isinstance('x', basestring), isinstance(b'x', basestring), isinstance(1, basestring)]))
        self.log(repr(list(xrange(3))))
        self.log(repr([long(5), isinstance(5, long), unichr(233), cmp(1, 2), cmp(2, 2)]))
        self.log(repr(reduce(lambda a, b: a + b, [1, 2, 3]) == reduce3(lambda a, b: a + b, [1, 2, 3])))
        self.log(repr([raw_input is input, file is open, intern('s')]))
        self.log(repr([apply(max, (1, 2)), buffer(b'ab')[0], callable(execfile)]))
        self.onStopped()
";
    let (_, t) = run(&one_box("", code));
    assert!(errors(&t, "root/A").is_empty(), "{t:#?}");
    assert_eq!(
        logs(&t, "root/A"),
        [
            "info: 'aé'",
            "info: [True, True, True, False]",
            "info: [0, 1, 2]",
            "info: [5, True, 'é', -1, 0]",
            "info: True",
            "info: [True, True, 's']",
            "info: [2, 97, True]",
        ]
    );
}

#[test]
fn python_2_module_names_import() {
    let code = "
import Queue
import StringIO
import cPickle
import urllib2
import httplib
import thread
import mutex
import md5, sha, sets

class MyClass(GeneratedClass):
    def onInput_onStart(self):
        q = Queue.Queue()
        q.put(1)
        self.log(repr([q.get(), StringIO.StringIO('x').read(), cPickle.loads(cPickle.dumps(2))]))
        self.log(repr([urllib2.URLError.__name__, httplib.HTTPConnection.__name__]))
        self.log(repr([len(md5.new(b'x').hexdigest()), len(sha.new(b'x').hexdigest()), sets.Set([1])]))
        m = mutex.mutex()
        m.lock(self.log, 'locked')
        m.lock(self.log, 'queued')
        m.unlock()
        self.log(repr(m.test()))
        m.unlock()
        self.log(repr(m.test()))
        thread.start_new_thread(self.later, ())

    def later(self):
        self.log('thread')
        self.onStopped()
";
    let (outcome, t) = run(&one_box("", code));
    assert_eq!(outcome, choreo_engine::Outcome::Finished, "{t:#?}");
    assert_eq!(
        logs(&t, "root/A"),
        [
            "info: [1, 'x', 2]",
            "info: ['URLError', 'HTTPConnection']",
            "info: [32, 40, {1}]",
            "info: locked",
            "info: queued",
            "info: True",
            "info: False",
            "info: thread",
        ]
    );
}

#[test]
fn every_script_goes_through_the_fixer() {
    // Valid in both Python 2 and 3, whatever the fixer does with it; the fixer keeps lines.
    let code = "
class MyClass(GeneratedClass):
    def onInput_onStart(self):
        try:
            print('hello')
            d = {'a': 1}
            self.log('%d' % (7 // 2))
            raise KeyError('k')
        except KeyError as e:
            self.log('caught %s' % e)
        self.onStopped()
";
    assert_eq!(
        choreo_python::fixer::fix(code).lines().count(),
        code.lines().count()
    );
    let (_, t) = run(&one_box("", code));
    assert_eq!(
        logs(&t, "root/A"),
        ["info: hello", "info: 3", "info: caught 'k'"]
    );
}

#[test]
fn a_python_2_script_runs_through_the_fixer() {
    // print statement, `except E, e`, `<>`, qi.async: rewritten by the fixer.
    let code = "
import qi

class MyClass(GeneratedClass):
    def onInput_onStart(self):
        print \"x\"
        try:
            raise ValueError(\"v\")
        except ValueError, e:
            self.log(\"caught %s\" % e)
        if 1 <> 2:
            self.timer = qi.async(self.done, delay=1000)

    def done(self):
        self.onStopped()
";
    let (outcome, t) = run(&one_box("", code));
    assert_eq!(outcome, choreo_engine::Outcome::Finished, "{t:#?}");
    assert_eq!(logs(&t, "root/A"), ["info: x", "info: caught v"]);
}

#[test]
fn a_traceback_shows_the_original_python_2_line() {
    let code = "
class MyClass(GeneratedClass):
    def onInput_onStart(self):
        print \"ratio\", 1 / 0
";
    assert_ne!(choreo_python::fixer::fix(code), code);
    let (_, t) = run(&one_box("", code));
    let errs = errors(&t, "root/A");
    assert!(
        errs[0]
            .contains("File \"root/A\", line 4, in onInput_onStart\n    print \"ratio\", 1 / 0\n"),
        "{errs:#?}"
    );
}

#[test]
fn almath_transforms_as_the_3d_view_projects_use_them() {
    // Choregraphe's Foot Steps project: a transform from ALMotion.getTransform's 16 values,
    // inverted, read as a 2-D pose; the Collision project: an axis, a 6-D position.
    let code = "
import almath as m

class MyClass(GeneratedClass):
    def onInput_onStart(self):
        tf = m.Transform(m.vectorFloat([0, -1, 0, 1, 1, 0, 0, 2, 0, 0, 1, 0.3, 0, 0, 0, 1]))
        self.log('%.2f %.2f %.2f' % (tf.r1_c4, tf.r2_c4, tf.r3_c4))
        back = m.transformInverse(tf) * tf
        self.log(repr([round(v, 9) for v in back.toVector()[:12]]))
        p = m.pose2DFromTransform(tf)
        self.log('%.3f %.3f %.3f' % (p.x, p.y, p.theta))
        axis = m.orthogonalSpace(m.Position3D(0.0, 0.0, 2.0) - m.Position3D(0.0, 0.0, 1.0))
        self.log(repr([axis.r1_c3, axis.r2_c3, axis.r3_c3]))
        six = m.position6DFromTransform(m.transformFromPosition6D(m.Position6D(1, 2, 3, 0.1, 0.2, 0.3)))
        self.log(repr([round(v, 9) for v in six.toVector()]))
        self.log(repr(m.Position3D(1, 2, 3).isNear(m.Position3D(1, 2, 3.00001))))
        self.onStopped()
";
    let (_, t) = run(&one_box("", code));
    assert!(errors(&t, "root/A").is_empty(), "{t:#?}");
    assert_eq!(
        logs(&t, "root/A"),
        [
            "info: 1.00 2.00 0.30",
            "info: [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0]",
            "info: 1.000 2.000 1.571",
            "info: [0.0, 0.0, 1.0]",
            "info: [1.0, 2.0, 3.0, 0.1, 0.2, 0.3]",
            "info: True",
        ]
    );
}

#[test]
fn python_2_list_builtins_reference_globals_and_naoqi_modules() {
    let code = "
import almath
import motion
import email.Parser

class MyClass(GeneratedClass):
    def onInput_onStart(self):
        r = range(3)
        r[0] = 9
        self.log(repr([r, zip([1, 2], 'ab')[1], map(abs, [-1])[0], filter(None, [0, 2])]))
        # qi and time are globals of every box script, as in the reference.
        self.log(repr([callable(qi.PeriodicTask), callable(time.sleep)]))
        p = almath.Pose2D(1.0, 0.0, almath.PI / 2) * almath.Pose2D(1.0, 0.0, 0.0)
        self.log('%.3f %.3f %.3f' % (p.x, p.y, almath.modulo2PI(p.theta + almath.PI)))
        self.log(repr([motion.FRAME_ROBOT, motion.AXIS_MASK_ALL, round(motion.TO_RAD * 180, 6)]))
        link = self.session().service('ALTabletService').onTouchDown.connect(lambda x, y: None)
        self.log(repr([link > 0, email.Parser.Parser.__name__]))
        self.onStopped()
";
    let (_, t) = run(&one_box("", code));
    assert!(errors(&t, "root/A").is_empty(), "{t:#?}");
    assert_eq!(
        logs(&t, "root/A"),
        [
            "info: [[9, 1, 2], (2, 'b'), 1, [2]]",
            "info: [True, True]",
            "info: 1.000 1.000 -1.571",
            "info: [2, 63, 3.141593]",
            "info: [True, 'Parser']",
        ]
    );
}

#[test]
fn two_ints_divide_as_in_python_2_and_everything_else_as_before() {
    let code = r#"
from fractions import Fraction
from decimal import Decimal

class Vec(object):
    def __init__(self, x):
        self.x = x
    def __truediv__(self, k):
        return Vec(self.x / k)
    def __rtruediv__(self, k):
        return 'rtruediv %r' % (k,)
    def __repr__(self):
        return 'Vec(%r)' % (self.x,)

class OwnInt(int):
    def __truediv__(self, other):
        return 'own'

class Acc(object):
    def __init__(self):
        self.v = 8
    def __itruediv__(self, k):
        self.v = self.v / k
        return self

class MyClass(GeneratedClass):
    def onInput_onStart(self):
        n, x = 7, [10, 20, 30, 40, 50]
        self.log(repr([n / 2, -n / 2, n / -2, 2 * n / 2, n / 2 * 2, 100 / 5 / 2, 2 ** 3 / 3, 1 + n / 2]))
        self.log(repr([(45 - 0) % 360 / 45, (45 - 90) % 360 / 45, x[len(x) / 2], True / 2, 10L / 3]))
        self.log(repr([n / 2.0, 7.0 / 2, n / Fraction(2), Fraction(7) / 2, Decimal(7) / 2]))
        self.log(repr([Vec(n) / 2, 2 / Vec(1), OwnInt(7) / 2, 7 / OwnInt(2), 'a/b', '%d/%d' % (n, 2)]))
        m, f, a, d, acc = 7, 7.0, [9], {'k': -5}, Acc()
        m /= 2
        f /= 2
        a[0] /= 2
        d['k'] /= 2 # -5 // 2
        same = acc
        acc /= 3
        self.log(repr([m, f, a, d, acc is same, acc.v]))
        try:
            n / 0
        except ZeroDivisionError, e:
            self.log(str(e))
        self.onStopped()
"#;
    let (_, t) = run(&one_box("", code));
    assert!(errors(&t, "root/A").is_empty(), "{t:#?}");
    assert_eq!(
        logs(&t, "root/A"),
        [
            "info: [3, -4, -4, 7, 6, 10, 2, 4]",
            "info: [1, 7, 30, 0, 3]",
            "info: [3.5, 3.5, Fraction(7, 2), Fraction(7, 2), Decimal('3.5')]",
            "info: [Vec(3), 'rtruediv 2', 'own', 3.5, 'a/b', '7/2']",
            "info: [3, 3.5, [4], {'k': -3}, True, 2]",
            "info: integer division or modulo by zero",
        ]
    );
    // With `from __future__ import division`, `/` is Python 3's.
    let code = "
from __future__ import division

class MyClass(GeneratedClass):
    def onInput_onStart(self):
        n = 7
        n /= 2
        self.log(repr([7 / 2, 7 // 2, n]))
        self.onStopped()
";
    let (_, t) = run(&one_box("", code));
    assert_eq!(logs(&t, "root/A"), ["info: [3.5, 3, 3.5]"]);
}

#[test]
fn files_read_as_python_2_bytes_and_decode_as_them() {
    // Python 2's `open(path, "r")` read bytes: any file read, writing them back gave the same
    // file, a script could seek to any byte (RandomQuote) and decoded what it read.
    let code = r#"
import os, tempfile, codecs

class MyClass(GeneratedClass):
    def onInput_onStart(self):
        d = tempfile.mkdtemp()
        latin, utf8, copy = [os.path.join(d, n) for n in ('latin.txt', 'utf8.txt', 'copy.txt')]
        raw = b'caf\xe9 cr\xe8me.\n<Q>\x85 fin!\n'
        f = open(latin, 'wb'); f.write(raw); f.close()
        f = open(utf8, 'wb'); f.write(u'à la carte, é.\n'.encode('utf-8')); f.close()
        data = open(latin, 'r').read()
        self.log(repr(data.decode('latin-1')))
        self.log(repr(data.decode('cp1252').split('\n')[1]))
        try:
            data.decode('utf-8')
        except UnicodeDecodeError, e:
            self.log('utf-8: ' + e.reason)
        self.log(repr(data.decode('utf-8', 'replace')[:4]))
        text = file(utf8).read()
        self.log(repr([text, text.decode('utf-8') == text, unicode(text, 'utf-8') == text]))
        self.log(repr([b'caf\xc3\xa9'.decode('utf-8'), u'é'.decode('utf-8'), 'abc'.decode()]))
        self.log(repr([unicode(data, 'latin-1')[:4], unicode(b'\xe9', 'latin-1')]))
        self.log(repr(codecs.getincrementaldecoder('utf-8')().decode(b'\xc3\xa9', final=True)))
        # Writing what was read gives back the bytes.
        out = open(copy, 'w'); out.write(data); out.close()
        self.log(repr(open(copy, 'rb').read() == raw))
        # Binary mode and a script's own encoding or errors are Python 3's.
        self.log(repr([open(latin, 'rb').read() == raw, open(latin, encoding='latin-1').read()[:4]]))
        self.log(repr(open(latin, 'rU').readlines()[1].decode('cp1252')))
        try:
            open(latin, 'r', errors='strict').read()
        except UnicodeDecodeError, e:
            self.log('strict: ' + e.reason)
        # Seek to any byte (tell() + n, as RandomQuote does) and read on, line by line and
        # char by char: the bytes from there on, as text.
        size = os.stat(latin)[6]
        same = []
        for n in range(size):
            f = open(latin, 'r')
            f.seek((f.tell() + n) % size)
            first = f.read(1)
            line = f.readline()
            rest = f.read()
            same.append((first + line + rest).encode('utf-8', 'surrogateescape') == raw[n:])
        self.log(repr(all(same)))
        self.onStopped()
"#;
    let (_, t) = run(&one_box("", code));
    assert!(errors(&t, "root/A").is_empty(), "{t:#?}");
    assert_eq!(
        logs(&t, "root/A"),
        [
            r"info: 'café crème.\n<Q>\x85 fin!\n'",
            "info: '<Q>… fin!'",
            "info: utf-8: invalid continuation byte",
            "info: 'caf�'",
            r"info: ['à la carte, é.\n', True, True]",
            "info: ['café', 'é', 'abc']",
            "info: ['café', 'é']",
            "info: 'é'",
            "info: True",
            "info: [True, 'café']",
            r"info: '<Q>… fin!\n'",
            "info: strict: invalid continuation byte",
            "info: True",
        ]
    );
}

#[test]
fn encoded_text_is_a_python_2_byte_string_that_works_as_text_and_as_bytes() {
    // Python 2's `u.encode('utf-8')` gave a `str`: scripts went on using it as text (the
    // PandoraBot boxes: `data = data.encode('utf-8')` then `data.replace("&", " and ")`)
    // and passed it where bytes go (hashlib, sockets, urlopen).
    let code = r#"
import hashlib, base64, urllib, re

class MyClass(GeneratedClass):
    def onInput_onStart(self):
        data = unicode('Tom & Jerry \xe9t\xe9'.decode('utf-8')).encode('utf-8')
        data = data.replace("&", " and ").replace("  ", " ")
        result = "=+ +=" + data + "=+ +="
        self.log(result.replace("=+ +=", "").replace(" ", ";"))
        self.log(repr([data.split(" ")[:2], "and" in data, data == "Tom and Jerry \xe9t\xe9",
                       data.startswith(("x", "Tom")), data[:1], data[0], "%s%d" % (data[:3], 1)]))
        self.log("%s (%d bytes)" % (data, len(data)))
        self.log(repr([str(data), data.upper()[:3], data[:1].join(["a", "b"]), data % ()]))
        self.log(repr([{data: 1}.get("Tom and Jerry \xe9t\xe9"), data.find("Jerry"), (data[:4] + "%s") % b"x"]))
        # Still bytes where bytes go.
        self.log(hashlib.md5('abc'.encode('utf-8')).hexdigest())
        self.log(repr([base64.b64encode('abc'.encode()), urllib.quote_plus('a b&c'.encode('utf-8'))]))
        self.log(repr([isinstance(data, bytes), isinstance(data, basestring), bytes(data)]))
        # `re` takes it with a text pattern, as Python 2's did.
        cleaned = re.sub(r'\s+', ' ', re.sub(ur'[\u007b-\uffff]', '', data + '  !'))
        self.log(repr([cleaned, type(cleaned).__name__, re.findall(r'\w+', data)[:2],
                       re.sub(r'a', 'A'.encode('utf-8'), 'banana'), re.sub(b'a', b'A', b'banana')]))
        # Decoding gives the text back; Python 2's bytes-to-bytes codecs encode the bytes.
        self.log(repr([data.decode('utf-8'), 'ab'.encode('hex'), 'ab'.encode('base64')]))
        # Objects with an `encode` of their own keep it.
        class Box(object):
            def encode(self, how):
                return 'box ' + how
        self.log(Box().encode('x'))
        print data
        self.onStopped(data)
"#;
    let (_, t) = run(&one_box("", code));
    assert!(errors(&t, "root/A").is_empty(), "{t:#?}");
    assert_eq!(
        logs(&t, "root/A"),
        [
            "info: Tom;and;Jerry;été",
            "info: [['Tom', 'and'], True, True, True, 'T', 84, 'Tom1']",
            "info: Tom and Jerry été (19 bytes)",
            "info: ['Tom and Jerry été', 'TOM', 'aTb', 'Tom and Jerry été']",
            "info: [1, 8, 'Tom x']",
            "info: 900150983cd24fb0d6963f7d28e17f72",
            "info: [b'YWJj', 'a+b%26c']",
            "info: [True, True, b'Tom and Jerry \\xc3\\xa9t\\xc3\\xa9']",
            "info: ['Tom and Jerry t !', 'bytestr', ['Tom', 'and'], 'bAnAnA', b'bAnAnA']",
            "info: ['Tom and Jerry été', '6162', 'YWI=\\n']",
            "info: box x",
            "info: Tom and Jerry été",
        ]
    );
    // It crosses to the engine (and NAOqi) as text, as Python 2's `str` did.
    assert!(
        t.iter()
            .any(|l| l == "root/A out onStopped \"Tom and Jerry été\""),
        "{t:#?}"
    );
}

#[test]
fn python_2_email_module_names_import_in_every_form() {
    let code = "
import importlib
import email
import email.Message
import email.Utils as U
from email.MIMEText import MIMEText
from email import Header, MIMEImage

import email.message, email.utils, email.header, email.mime.text, email.mime.image

OLD = {
    'Charset': 'charset', 'Encoders': 'encoders', 'Errors': 'errors', 'FeedParser': 'feedparser',
    'Generator': 'generator', 'Header': 'header', 'Iterators': 'iterators', 'Message': 'message',
    'Parser': 'parser', 'Utils': 'utils', 'base64MIME': 'base64mime', 'quopriMIME': 'quoprimime',
    'MIMEAudio': 'mime.audio', 'MIMEBase': 'mime.base', 'MIMEImage': 'mime.image',
    'MIMEMessage': 'mime.message', 'MIMEMultipart': 'mime.multipart',
    'MIMENonMultipart': 'mime.nonmultipart', 'MIMEText': 'mime.text',
}

class MyClass(GeneratedClass):
    def onInput_onStart(self):
        self.log(repr([email.Message.Message is email.message.Message, U is email.utils,
                       MIMEText is email.mime.text.MIMEText, Header is email.header,
                       MIMEImage is email.mime.image]))
        # After a plain `import email`, as Python 2's lazy importers allowed.
        self.log(repr([email.MIMEBase.MIMEBase.__name__, email.Encoders.encode_base64.__name__]))
        wrong = [old for old, new in sorted(OLD.items())
                 if importlib.import_module('email.' + old).__name__ != 'email.' + new]
        self.log(repr(wrong))
        try:
            email.Nothing
        except AttributeError, e:
            self.log(str(e))
        self.onStopped()
";
    let (_, t) = run(&one_box("", code));
    assert!(errors(&t, "root/A").is_empty(), "{t:#?}");
    assert_eq!(
        logs(&t, "root/A"),
        [
            "info: [True, True, True, True, True]",
            "info: ['MIMEBase', 'encode_base64']",
            "info: []",
            "info: module 'email' has no attribute 'Nothing'",
        ]
    );
}

/// The script of the first box under `file` (in the stock library) whose script contains
/// `marker`.
fn stock_script(rel: &str, marker: &str) -> Option<String> {
    let file = choreo_testkit::library(&format!("stock box script of {rel}"))?.join(rel);
    let project = choreo_xar::source::load_path(&file).unwrap();
    let mut boxes: Vec<_> = project.behaviors.iter().map(|b| &b.xar.root_box).collect();
    while let Some(b) = boxes.pop() {
        if b.code().contains(marker) {
            return Some(b.code().to_string());
        }
        boxes.extend(b.diagrams().flat_map(|d| &d.boxes));
    }
    panic!("no script with {marker:?} in {}", file.display());
}

#[test]
fn the_stock_fetch_e_mail_box_imports_its_python_2_email_modules() {
    let Some(code) = stock_script(
        "standard/Communication/E-mail/Fetch E-mail/box.xar",
        "from email.Message import Message",
    ) else {
        return;
    };
    // Loading runs the module body (its imports) and constructs MyClass.
    let engine = load(&one_box("", &code), None, choreo_engine::Trace::new());
    assert!(
        engine.is_ok(),
        "{}",
        engine.err().map(|e| e.to_string()).unwrap_or_default()
    );
}

#[test]
fn the_stock_single_eye_led_box_names_its_led_with_an_int() {
    let Some(code) = stock_script(
        "standard/LEDs/Fade/Single Eye LED/box.xar",
        "def processAngle(self):",
    ) else {
        return;
    };
    // The box's own code, then a start hook that logs the angle's LED number for each angle.
    let code = format!(
        "{code}\n\n    def onInput_onStart(self):\n        for angle in range(0, 360, 45):\n            \
         self.getParameter = lambda name, a=angle: a\n            \
         self.log('FaceLedLeft' + str(self.processAngle()[0]))\n        self.onStopped()\n"
    );
    let (_, t) = run(&one_box("", &code));
    assert!(errors(&t, "root/A").is_empty(), "{t:#?}");
    assert_eq!(
        logs(&t, "root/A"),
        [1, 0, 7, 6, 5, 4, 3, 2].map(|n| format!("info: FaceLedLeft{n}"))
    );
}

#[test]
fn text_of_bytes_that_are_not_utf_8_is_printed_logged_and_fired_with_u_fffd() {
    // Python 2 passed the bytes on; a Rust string is UTF-8 (convert::text).
    let code = r#"
class MyClass(GeneratedClass):
    def onInput_onStart(self):
        s = b'caf\xe9'.decode('utf-8', 'surrogateescape')
        print s
        self.log(s + ' \xe9')
        self.onStopped(s)
"#;
    let (_, t) = run(&one_box("", code));
    assert!(errors(&t, "root/A").is_empty(), "{t:#?}");
    assert_eq!(
        logs(&t, "root/A"),
        ["info: caf\u{fffd}", "info: caf\u{fffd} \u{e9}"]
    );
    assert!(
        t.iter()
            .any(|l| l == "root/A out onStopped \"caf\u{fffd}\""),
        "{t:#?}"
    );
}
