//! Python-2 scripts: the runtime names no rewrite can fix (builtins, module names), and the
//! fixer applied to every script before it is compiled.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

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
