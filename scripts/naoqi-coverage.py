#!/usr/bin/env python3
"""List every method of every NAOqi module API page (NAOqi 2.1 and 2.8 documentation
mirrors) and say whether choreo's simulated robot serves it.

Steps (each reusable on its own):
  1. docs:      read the Sphinx API pages of both mirrors (git repos without work tree):
                every <dl class="function|member|qisignal"><dt id=...> entry, plus methods
                that a page's method list names without documenting them ("listed only").
  2. catalogue: read choreo's catalogue (crates/choreo-robot/data/naoqi.txt).
  3. probe:     ask a running simulated robot (`choreo sim`, NAO and Pepper) about every
                (module, method): each catalogue overload is called with placeholder
                arguments built from its qi signature; the sim answers "not served" (the
                module's function or table returned Reply::NotServed), "no method"
                (not in the catalogue: refused before any module is asked), "cannot find
                service" (module not registered, or not on that model), or anything else
                (a value, or an argument/runtime error: the module served the call).
                Results are cached in probe.json (delete it, or pass --probe, to redo).
                The binary is copied first (another process may rebuild it); probe.json
                records its mtime and hash, and the commit read.
  4. in process: the ALModule base methods as a box script sees them (`choreo run` of a
                copy of examples/hello whose box calls them), cached in probe.json.
  5. static:    methods the qi client cannot call (an `o` parameter) are decided from the
                string literals of crates/choreo-naoqi and choreo-qi.
  6. write documented.tsv and coverage.md (reasons: RULES, MODULE_NATURE, ACKNOWLEDGED).

choreo's catalogue and sources are read at one commit (--rev, default HEAD) through git,
never from the work tree, which another session may be editing.

Usage:  python3 scripts/naoqi-coverage.py [--probe] [--rev REV] [--choreo PATH] [--out DIR]
No cargo build is needed: the probe uses the already built target/debug/choreo.
"""

import argparse
import collections
import html
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time

# The documentation mirrors (git directories: `fetch` of Cartheur-Nao/aldeb-2.1.4.13 and
# Cartheur-Nao/aldeb-2.8.7.4), from CHOREO_DOCS_2_1 / CHOREO_DOCS_2_8 or where the tool
# library puts them.
MIRRORS = {
    "2.1": os.environ.get("CHOREO_DOCS_2_1", "/work/.mirror/Cartheur-Nao+aldeb-2.1.4.13/repo"),
    "2.8": os.environ.get("CHOREO_DOCS_2_8", "/work/.mirror/Cartheur-Nao+aldeb-2.8.7.4/repo"),
}
# This checkout.
MAIN = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CATALOGUE = "crates/choreo-robot/data/naoqi.txt"
# choreo's files are read at one commit (REV, set by main(); the work tree may be mid-edit),
# through git, never from the work tree.
REV = "HEAD"


def main_show(path):
    return git_show(MAIN, path, REV)


def main_ls(prefix):
    out = subprocess.run(["git", "-C", MAIN, "ls-tree", "-r", "--name-only", REV, prefix],
                         capture_output=True, text=True, check=True).stdout
    return [p for p in out.split("\n") if p]

# Base classes: their pages document methods every module (ALModule) or every extractor
# (ALExtractor, ALVisionExtractor) inherits.
BASES = {"ALModule", "ALExtractor", "ALVisionExtractor"}

# Documentation class name (Proxy suffix removed) -> the service's name on the robot.
MODULE_NAMES = {
    "AutonomousBlinking": "ALAutonomousBlinking",
    "AutonomousLife": "ALAutonomousLife",
    "AutonomousMoves": "ALAutonomousMoves",
    "BackgroundMovement": "ALBackgroundMovement",
    "ListeningMovement": "ALListeningMovement",
    "SpeakingMovement": "ALSpeakingMovement",
    "ServiceManager": "ALServiceManager",  # qi::ServiceManager, registered as ALServiceManager
}
# A page's module when an entry has no class name (ALStore's `status`).
PAGE_MODULE = {"naoqi/core/alstore-api.html": "ALStore"}
# Not services: objects a method returns.
NOT_SERVICES = {"ExpressionObject"}


def git_ls(repo):
    out = subprocess.run(["git", "-C", repo, "ls-tree", "-r", "--name-only", "HEAD"],
                         capture_output=True, text=True, check=True).stdout
    return out.split("\n")


def git_show(repo, path, rev="HEAD"):
    return subprocess.run(["git", "-C", repo, "show", rev + ":" + path],
                          capture_output=True, text=True, errors="replace", check=True).stdout


def strip_tags(s):
    s = re.sub(r"<[^>]+>", "", s)
    return html.unescape(s).replace("\u00b6", "").strip()


def norm_module(cls):
    cls = cls.strip().rstrip(":.").strip()
    cls = re.sub(r"^(qi::|AL::)", "", cls)
    if cls.endswith("Proxy"):
        cls = cls[:-5]
    return MODULE_NAMES.get(cls, cls)


def split_params(text):
    """Top-level comma split of a parameter list's text."""
    depth, cur, out = 0, "", []
    for ch in text:
        if ch in "<([{":
            depth += 1
        elif ch in ">)]}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur)
    return [p.strip() for p in out if p.strip() and p.strip() != "void"]


def param_count(sig_text, name):
    """Parameters of `... name(params) const` (None if no parenthesis)."""
    i = sig_text.find(name + "(")
    if i < 0:
        return None
    j = i + len(name) + 1
    depth = 1
    k = j
    while k < len(sig_text) and depth:
        if sig_text[k] == "(":
            depth += 1
        elif sig_text[k] == ")":
            depth -= 1
        k += 1
    return len(split_params(sig_text[j:k - 1]))


HEAD_RE = re.compile(r"<h([1-6])>(.*?)</h\1>", re.S)
DL_RE = re.compile(r'<dl class="([^"]*)">\s*<dt id="([^"]*)">(.*?)</dt>', re.S)
CLASS_RE = re.compile(r'<(?:tt|code) class="descclassname">(.*?)</(?:tt|code)>', re.S)
NAME_RE = re.compile(r'<(?:tt|code) class="descname">(.*?)</(?:tt|code)>', re.S)
LI_RE = re.compile(r"<li>(.*?)</li>", re.S)
XREF_RE = re.compile(r'<span class="pre">([A-Za-z_][A-Za-z0-9_:.]*?)(?:\(\))?</span>')


def parse_page(version, repo, path):
    """Entries of one API page: dicts with module, method, kind, deprecated, params..."""
    text = git_show(repo, path)
    # Ignore the sidebar and footer: they repeat headings ("Quick search"...).
    end = text.find('<div class="sphinxsidebar"')
    body_text = text if end < 0 else text[:end]
    tokens = []
    for m in HEAD_RE.finditer(body_text):
        tokens.append((m.start(), "h", int(m.group(1)), strip_tags(m.group(2))))
    for m in DL_RE.finditer(body_text):
        tokens.append((m.start(), "dl", m, None))
    tokens.sort(key=lambda t: t[0])
    heads = [None] * 7
    entries = []
    dls = [t for t in tokens if t[1] == "dl"]
    for idx, tok in enumerate(tokens):
        if tok[1] == "h":
            lv = tok[2]
            heads[lv] = tok[3]
            for k in range(lv + 1, 7):
                heads[k] = None
            continue
        m = tok[2]
        cls, anchor, sig = m.group(1), m.group(2), m.group(3)
        if cls not in ("function", "member", "qisignal"):
            continue  # events, memory keys, classes, types
        # The entry's description: up to the next definition.
        nxt = [t for t in dls if t[0] > tok[0]]
        dd = body_text[m.end(): nxt[0][0] if nxt else len(body_text)]
        cm, nm = CLASS_RE.search(sig), NAME_RE.search(sig)
        if not nm:
            continue
        method = strip_tags(nm.group(1))
        raw_class = strip_tags(cm.group(1)).rstrip(":.") if cm else ""
        module = norm_module(raw_class) if cm else PAGE_MODULE.get(path, "?")
        sig_text = re.sub(r"\s+", " ", strip_tags(sig))
        heading = " > ".join(h for h in heads[2:] if h)
        if cls == "qisignal" or "qi::Signal" in sig_text:
            kind = "signal"
        elif "qi::Property" in sig_text:
            kind = "property"
        elif cls == "member":
            kind = "signal"  # ALTabletService, ALUserSession...: signals documented as members
        elif re.search(r"\bSignals?\b", heading) or "Signal list" in heading:
            kind = "signal"
        elif re.search(r"\bPropert", heading):
            kind = "property"
        elif raw_class.split("::")[-1] == method or method.startswith("~"):
            kind = "constructor"
        else:
            kind = "method"
        # The description stops at the next heading (a "Deprecated methods" title after the
        # last method of "Methods" is not about that method).
        cut = re.search(r"<h[1-6]>|<div class=\"section\"", dd)
        if cut:
            dd = dd[:cut.start()]
        deprecated = bool(
            re.search(r"deprecat|depecat", heading, re.I)
            or 'class="deprecated"' in dd
            or re.search(r"Deprecated since version", strip_tags(dd))
        )
        entries.append(dict(
            version=version, page=path, module=module, method=method, kind=kind,
            deprecated=deprecated, params=param_count(sig_text, method),
            signature=sig_text, heading=heading, anchor=anchor, listed_only=False,
        ))
    # Method lists: a <li> naming Module(Proxy)::method(), possibly "(deprecated ...)".
    listed = []
    for li in LI_RE.finditer(body_text):
        inner = li.group(1)
        x = XREF_RE.search(inner)
        if not x or not strip_tags(inner).startswith(strip_tags(x.group(0))[:5]):
            continue
        full = x.group(1)
        parts = re.split(r"::|\.", full)
        if len(parts) < 2:
            continue
        module, method = norm_module("::".join(parts[:-1])), parts[-1]
        if module in ("NetworkInfo", "IPInfo", "NotificationInfo", "PartitionInfo"):
            continue
        rest = strip_tags(inner)
        listed.append(dict(module=module, method=method,
                           deprecated=bool(re.search(r"deprecat", rest, re.I)),
                           note=rest, page=path, version=version))
    bases = {"almodule-api.html": "ALModule", "alextractor-api.html": "ALExtractor",
             "alvisionextractor-api.html": "ALVisionExtractor"}
    inherits = sorted({bases[os.path.basename(h)] for h in re.findall(
        r"inherits methods from\s*(?:the\s*)?<a[^>]*href=\"([^\"#]*)", body_text)
        if os.path.basename(h) in bases})
    if re.search(r"inherits from (?:the )?ALSoundExtractor", body_text):
        inherits.append("ALSoundExtractor (no page)")
    t = re.search(r"<h1>([^<]*)<a class=\"headerlink\"", body_text)
    title = strip_tags(t.group(1)) if t else ""
    page_module = norm_module(re.sub(r"\s+API$", "", title).split(" - ")[0].strip()) if title else None
    own = collections.Counter(x["module"] for x in entries if x["kind"] == "method")
    if own:
        page_module = own.most_common(1)[0][0]  # "Cartesian control API" is ALMotion's
    return entries, listed, inherits, page_module


PAGES = []  # every API page: version, page, module (from its title), inherits, own_methods


def parse_docs():
    """All entries of both versions, with listed-only methods added."""
    all_entries, inherit = [], {}
    for version, repo in MIRRORS.items():
        pages = [p for p in git_ls(repo)
                 if p.startswith("naoqi/") and p.endswith(".html") and re.search(r"[-_]api\.html$", p)]
        ver_entries, ver_listed = [], []
        for p in sorted(pages):
            e, l, inh, page_module = parse_page(version, repo, p)
            ver_entries += e
            ver_listed += l
            PAGES.append(dict(version=version, page=p, module=page_module, inherits=inh,
                              own_methods=sum(1 for x in e if x["kind"] == "method")))
            mods = {x["module"] for x in e if x["kind"] == "method"} | {page_module}
            for mod in mods:
                if inh and mod:
                    inherit[(version, p, mod)] = inh
        defined = {(x["module"], x["method"]) for x in ver_entries}
        # Deprecation said in a method list marks the documented method too.
        dep_listed = {(x["module"], x["method"]) for x in ver_listed if x["deprecated"]}
        for x in ver_entries:
            if (x["module"], x["method"]) in dep_listed and x["kind"] == "method":
                x["deprecated"] = True
                x["dep_from_list"] = True
        seen = set()
        for x in ver_listed:
            key = (x["module"], x["method"])
            if key in defined or key in seen:
                continue
            # Only the page's own module (a list naming another module's method is a link).
            page_mods = {e["module"] for e in ver_entries if e["page"] == x["page"]}
            page_mods |= {pg["module"] for pg in PAGES if pg["page"] == x["page"] and pg["version"] == version}
            page_stem = os.path.basename(x["page"]).split("-api")[0].split("_api")[0].lower()
            if x["module"] not in page_mods and x["module"].lower() != page_stem:
                continue
            seen.add(key)
            ver_entries.append(dict(
                version=version, page=x["page"], module=x["module"], method=x["method"],
                kind="method", deprecated=x["deprecated"], params=None,
                signature="(listed only) " + x["note"][:120], heading="method list",
                anchor="", listed_only=True))
        all_entries += ver_entries
    return all_entries, inherit


# ---------------------------------------------------------------------------- catalogue

def parse_catalogue(path=CATALOGUE):
    """{module: {"marks": [4], "robot": str|None, "methods": {name: [(sig, ret, marks)]}}}"""
    cat = collections.OrderedDict()
    cur = None
    for raw in main_show(path).splitlines():
        line = raw.split("#", 1)[0].rstrip()
        if not line.strip():
            continue
        if not line.startswith(" "):
            words = line.split()
            name = words[0]
            marks = words[1:5]
            robot = words[5] if len(words) > 5 else None
            cur = cat.setdefault(name, {"marks": marks, "robot": robot, "methods": collections.OrderedDict()})
            continue
        m = re.match(r"\s+(\S+)\s+\((.*?)\)\s+(\S+)((?:\s+[yn?]){4})?\s*$", line)
        if not m:
            # signatures with spaces/parentheses inside: take the name, the marks at the end
            m2 = re.match(r"\s+(\S+)\s+(.*?)((?:\s+[yn?]){4})?\s*$", line)
            name, rest, marks = m2.group(1), m2.group(2), m2.group(3)
            sig, ret = rest, ""
        else:
            name, sig, ret, marks = m.group(1), m.group(2), m.group(3), m.group(4)
        marks = marks.split() if marks else cur["marks"]
        cur["methods"].setdefault(name, []).append((sig, ret, marks))
    return cat


# ---------------------------------------------------------------------------- probe

def split_sig(sig):
    """qi signature letters -> list of one type each."""
    out, i = [], 0
    while i < len(sig):
        c = sig[i]
        if c in "[({<":
            close = {"[": "]", "(": ")", "{": "}", "<": ">"}[c]
            depth, j = 1, i + 1
            while j < len(sig) and depth:
                if sig[j] == c:
                    depth += 1
                elif sig[j] == close:
                    depth -= 1
                j += 1
            out.append(sig[i:j])
            i = j
        else:
            out.append(c)
            i += 1
    return out


def placeholder(t):
    if t == "s":
        return "x"
    if t in "fd":
        return 0.0
    if t in "iIlLwWcCh":
        return 0
    if t == "b":
        return False
    if t.startswith("["):
        return []
    if t.startswith("{"):
        return {}
    if t.startswith("("):
        return [placeholder(x) for x in split_sig(t[1:-1])]
    return 0  # m (dynamic), o, v: anything


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


class Sim:
    def __init__(self, choreo, model):
        self.choreo, self.model = choreo, model
        self.start()

    def start(self):
        self.port = free_port()
        self.url = "tcp://127.0.0.1:%d" % self.port
        self.proc = subprocess.Popen(
            [self.choreo, "sim", "--listen", self.url, "--robot-model", self.model, "-q"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", self.port), 0.2).close()
                return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("choreo sim did not start")

    def stop(self):
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
            self.proc.wait(5)
        except Exception:
            pass

    def call(self, module, method, args, timeout=8):
        cmd = [self.choreo, "robot", "call", self.url, "%s.%s" % (module, method)]
        cmd += [json.dumps(a) for a in args]
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return "timeout", ""
        out = (r.stdout + r.stderr).strip()
        if r.returncode == 7 or self.proc.poll() is not None:
            self.stop()
            self.start()
            return "sim-died", out
        return classify(r.returncode, out), out


def classify(rc, out):
    if "does not serve it yet" in out or "method not served by the robot" in out:
        return "not-served"
    if re.search(r"Cannot find service|Can't find service", out):
        return "no-service"
    if re.search(r": no method \S+$|no NAOqi version has", out, re.M):
        return "no-method"
    if "no overload takes" in out:
        return "bad-signature"
    return "served" if rc in (0, 1) else "unknown"


def probe(choreo, cat, doc_entries, cache_path):
    """{model: {"Module.method": {"verdict": ..., "tries": [[sig, verdict, output], ...]}}}"""
    results = {}
    targets = collections.OrderedDict()
    for mod, info in cat.items():
        for meth, overloads in info["methods"].items():
            targets[(mod, meth)] = [o[0] for o in overloads]
    for e in doc_entries:
        if e["kind"] == "method":
            targets.setdefault((e["module"], e["method"]), [])
    # The generic ALModule methods, on a module every model serves.
    for meth in ["ping", "version", "getBrokerName", "getMethodList", "getMethodHelp",
                 "getModuleHelp", "getUsage", "isRunning", "wait", "stop", "exit",
                 "innerTest", "setDebugMode", "getDebugMode", "pCall", "isStatsEnabled",
                 "enableStats", "stats", "clearStats", "isTraceEnabled", "enableTrace",
                 "getMethodHelp"]:
        targets.setdefault(("ALMemory", meth), [])
    for model in ("nao", "pepper"):
        sim = Sim(choreo, model)
        res = {}
        try:
            for (mod, meth), sigs in targets.items():
                tries = []
                for sig in (sigs or [None]):
                    args = [] if sig is None else [placeholder(t) for t in split_sig(sig)]
                    verdict, out = sim.call(mod, meth, args)
                    if verdict == "bad-signature" and sig is None:
                        # not in the catalogue but the qi layer knows it: take its candidates
                        cands = re.findall(r"\(([^()]*)\)", out.split("candidates:", 1)[-1])
                        for c in cands[:3]:
                            verdict, out = sim.call(mod, meth, [placeholder(t) for t in split_sig(c)])
                            tries.append([c, verdict, out[-300:]])
                        break
                    tries.append([sig, verdict, out[-300:]])
                    if verdict == "served":
                        break
                verdicts = [t[1] for t in tries]
                if "served" in verdicts:
                    v = "served"
                elif "timeout" in verdicts:
                    v = "timeout"
                else:
                    v = verdicts[-1]
                res["%s.%s" % (mod, meth)] = {"verdict": v, "tries": tries}
        finally:
            sim.stop()
        results[model] = res
    json.dump(results, open(cache_path, "w"), indent=1)
    return results


# ---------------------------------------------------------------------------- in process

BASE_CALLS = [("getMethodHelp", ["getData"]), ("getModuleHelp", []), ("getUsage", ["getData"]),
              ("ping", []), ("version", []), ("getBrokerName", []), ("getMethodList", []),
              ("exit", []), ("innerTest", []), ("setDebugMode", [True]), ("isRunning", [1]),
              ("wait", [1, 0]), ("stop", [1]), ("pCall", [["getData", "x"]])]


def inprocess_base_check(choreo, workdir=os.path.join(os.environ.get("TMPDIR", "/tmp"), "choreo_base_check")):
    """The ALModule base methods as a box script sees them (`choreo run`, in process): a copy
    of examples/hello whose first box calls them on ALMemory and logs each answer."""
    import shutil
    shutil.rmtree(workdir, ignore_errors=True)
    os.makedirs(workdir)
    xar = os.path.join(workdir, "behavior.xar")
    text = main_show("examples/hello/behavior.xar")
    old = """    def onInput_onStart(self):
        self.motion.wakeUp()
        self.onStopped()"""
    new = """    def onInput_onStart(self):
        m = ALProxy("ALMemory")
        for name, args in %r:
            try:
                r = getattr(m, name)(*args)
                self.logger.info("BASEOK %%s %%s" %% (name, str(r)[:60]))
            except Exception as e:
                self.logger.info("BASEERR %%s %%s" %% (name, str(e)[:200]))
        self.onStopped()""" % (BASE_CALLS,)
    if old not in text:
        return {}
    open(xar, "w", encoding="utf-8").write(text.replace(old, new))
    r = subprocess.run([choreo, "run", "--fast", xar], capture_output=True, text=True, timeout=300)
    out = {}
    for m in re.finditer(r"BASE(OK|ERR) (\w+) (.*)", r.stdout + r.stderr):
        out[m.group(2)] = ("served" if m.group(1) == "OK" else
                           "not-served" if "does not serve it yet" in m.group(3) else
                           "no-method" if "no NAOqi version has" in m.group(3) else "served (error)",
                           m.group(3).strip()[:80])
    return out


# ---------------------------------------------------------------------------- static check

def static_served():
    """{module: set(method names)} from the sources: method tables, and for the modules
    served by their own function the string literals of their files (an over-estimate:
    a cross-check, not the verdict)."""
    out = collections.defaultdict(set)
    for f in main_ls("crates/choreo-naoqi/src/services"):
        if not f.endswith(".rs"):
            continue
        src = main_show(f)
        for m in re.finditer(r'Service\s*\{\s*name:\s*"([^"]+)",\s*methods:\s*&\[(.*?)\]\s*,\s*own', src, re.S):
            out[m.group(1)] |= set(re.findall(r'\(\s*"([A-Za-z_0-9]+)"\s*,\s*Op::', m.group(2)))
    return out



def source_literals():
    """Every "identifier" string literal of crates/choreo-naoqi/src and choreo-qi's robot layer."""
    lits = set()
    for d in ("crates/choreo-naoqi/src", "crates/choreo-qi/src"):
        for f in main_ls(d):
            if f.endswith(".rs"):
                lits |= set(re.findall(r'"([A-Za-z_][A-Za-z0-9_]*)"', main_show(f)))
    return lits


def generic_lists():
    """The ALModule base methods each path serves: in process (Sim::generic, calls.rs GENERIC)
    and over qi messaging (choreo-robot's MODULE_BASE, served by choreo-qi's robot.rs)."""
    calls = main_show("crates/choreo-naoqi/src/robot/calls.rs")
    m = re.search(r"pub\(crate\) const GENERIC: &\[&str\] = &\[(.*?)\];", calls, re.S)
    in_process = re.findall(r'"(\w+)"', m.group(1)) if m else []
    naoqi = main_show("crates/choreo-robot/src/naoqi.rs")
    m = re.search(r"pub const MODULE_BASE.*?= \[(.*?)\];", naoqi, re.S)
    over_qi = re.findall(r'\("(\w+)"', m.group(1)) if m else []
    return in_process, over_qi


# ---------------------------------------------------------------------------- reasons

HW = "hardware/system operation"
PERC = "needs perception the simulation lacks"
MOTION = "motion control the simulation does not model (Cartesian, whole-body balance, footsteps)"
META = "bookkeeping/introspection not modelled (statistics, metadata, tags, task lists)"
DEP = "deprecated"
CATGAP = "not in choreo's catalogue: refused before any module is asked"
LISTED = "named in the page's method list only, undocumented ('do not use', experimental)"
# No category fits: nothing the simulation lacks stands in its way; it waits its turn, as
# crates/choreo-naoqi/tests/corpus_served.rs serves first every method the corpus calls.
UNKNOWN = "not served yet: no corpus script calls it"

# docs/simulated-robot.md, "Not served yet": what the project itself lists as missing.
ACKNOWLEDGED = [
    ("ALInfrared", r"^confRemoteRecord"),
    ("ALTracker", r"^(addTarget|removeTargets?|removeAllTargets|getManagedTargets|[gs]etExtractorPeriod|[gs]etMaximum(Velocity|Acceleration))$"),
    ("ALAutonomousLife", r"Statistic|Nature|Launchpad|Plugin"),
    ("ALAudioDevice", r"^(playSine|subscribe|unsubscribe|send\w*BufferToOutput|flushAudioOutputs|setClientPreferences|setFileAsInput)$"),
    ("ALFaceDetection", r"^importOldDatabase$"),
    ("ALLocalization", r"Panorama|Frame"),
    ("DCM", r"^(getPrefix|special|calibration|preferences)$"),
    ("ALSystem", r"Memory|disk|Disk|Icon|upgrade|Password|password"),
]

# (module regex, method regex, category), first match wins; for served modules' methods.
RULES = [
    ("ALAudioDevice", r"^playSine$", "sound generation (the simulated robot plays no audio)"),
    ("ALAudioDevice", r"subscribe|Buffer|flushAudioOutputs|setClientPreferences|setFileAsInput", PERC + ": raw microphone/speaker buffers"),
    ("ALAudioPlayer", r"SoundSet|playWebStream", "robot-installed sound sets / network audio stream"),
    ("ALAutonomousLife", r".", META + ": activity statistics, natures, focus context"),
    ("ALBehaviorManager", r"Tag|Nature|resolveBehaviorName", META + ": behavior tags/natures"),
    ("ALBehaviorManager", r"Default|playDefaultProject", "default (boot) behaviors management"),
    ("ALBehaviorManager", r"install|remove", "behavior install/remove on the robot (deprecated 1.x API)"),
    ("ALConnectionManager", r".", HW + ": network, Wi-Fi, tethering"),
    ("ALDialog", r"connectionChanged|endOfUtterance|eventReceived|packageInstalled|statusChanged|wordRecognized|wordsRecognized|^tell$",
     "NAOqi 2.1 internal callback (deprecated)"),
    ("ALFaceDetection", r"importOldDatabase", "face database migration (old format)"),
    ("ALInfrared", r"confRemoteRecord", "LIRC remote-recording wizard"),
    ("ALMemory", r"Ptr$", "C++ in-process pointer access (not meaningful remotely)"),
    ("ALMemory", r"Description|getType|getTimestamp|getEventHistory|MicroEvent|getExtractorEvent|unregisterModuleReference",
     META + ": key descriptions, types, timestamps, histories"),
    ("ALMotion", r"^wb", MOTION + ": whole-body balancer"),
    ("ALMotion", r"SecurityDistance|ClosestObstacle", PERC + ": obstacle avoidance distances"),
    ("ALMotion", r"FootSteps|getNextRobotPosition|walkInit", MOTION + ": footstep planning / 1.x walk"),
    ("ALMotion", r"Position|Transform|Interpolation", MOTION + ": Cartesian control"),
    ("ALMotion", r"TaskList|killTask|getSensorNames|Notifications|updateTrackerTarget", META + ": motion tasks, sensor names, notifications"),
    ("ALNavigation", r"(?i)explor|map|localization", PERC + ": maps, exploration, localization"),
    ("ALNavigation", r"FreeZone", PERC + ": free-zone search (obstacles)"),
    ("ALServiceManager", r".", HW + ": process memory"),
    ("ALSpeechRecognition", r".", "ASR grammar rules/slots/context sets/expressions not modelled"),
    ("ALSystem", r".", HW),
    ("ALTabletService", r"Wifi", HW + ": tablet Wi-Fi"),
    ("ALTextToSpeech", r"sayToFile", "writes synthesized speech to a file"),
    ("ALTextToSpeech", r"Dictionary", "pronunciation dictionary"),
    ("ALTracker", r"Target|Effector|ExtractorPeriod|Maximum", "multi-target API, extractor period, velocity/acceleration limits"),
    ("ALTracker", r"SearchFraction", "target search when lost (docs/simulated-robot.md: not simulated)"),
    ("ALVideoDevice", r"From|FOV|Aperture|Model|CameraName|DepthCamera|resolutionToSizes|sizesToResolution",
     "camera geometry/model (image <-> angle conversions, FOV)"),
    ("ALVideoDevice", r"Image|Raw|recordVideo|stopVideo|FrameGrabber|SimCam", PERC + ": camera images"),
    ("ALVideoDevice", r".", "camera device control (open/start cameras, per-camera parameters, colour spaces)"),
    ("ALVisualCompass", r".", PERC + ": reference image matching"),
]

# What an unserved module is, for its one line.
MODULE_NATURE = {
    "ALAudioRecorder": "microphone recording to file",
    "ALBackgroundMovement": "autonomous ability (2.8)", "ALListeningMovement": "autonomous ability (2.8)",
    "ALSpeakingMovement": "autonomous ability (2.8)",
    "ALColorBlobDetection": PERC + " (camera images)", "ALEngagementZones": PERC + " (people zones; settings only could be kept)",
    "ALGazeAnalysis": PERC + " (gaze)", "ALSegmentation3D": PERC + " (depth camera)",
    "ALSittingPeopleDetection": PERC + " (people)", "ALVisionRecognition": PERC + " (object recognition)",
    "ALVisualSpaceHistory": PERC + " (camera images)", "ALWavingDetection": PERC + " (people)",
    "ALTactileGesture": "touch gestures (could be scenario-driven)", "ALTouch": "touch sensor listing",
    "ALSensors": "sensor extractor", "ALLaser": "NAO's optional laser head (hardware)",
    "ALRecharge": "Pepper's charging station docking (hardware)", "ALDiagnosis": "hardware diagnosis",
    "ALStore": HW + " (application store updates; deprecated)", "PackageManager": HW + " (package install/remove)",
    "ALLauncher": "module loading (deprecated)", "ALPreferences": "preference files (deprecated)",
    "ALPreferenceManager": "robot preferences store", "ALResourceManager": "resource locking",
    "ALNotificationManager": "robot notifications", "ALMotionRecorder": "motion recording (deprecated since 1.14)",
    "ALKnowledge": "knowledge base (2.8)", "ALUserSession": "user sessions database",
    "ALUserInfo": "user info database (2.8)", "ALRobotMood": "robot mood (2.8)",
    "ALExpressionWatcher": "memory expression watcher (2.8)",
    "ExpressionObject": "not a service: the object ALExpressionWatcher.add returns",
}


def acknowledged(mod, meth):
    return any(mod == m and re.search(rx, meth) for m, rx in ACKNOWLEDGED)


def reason(mod, meth, deprecated, listed_only, in_cat, served_modules):
    if mod not in served_modules:
        return "module not served at all" + (": " + MODULE_NATURE[mod] if mod in MODULE_NATURE else "")
    if listed_only:
        return LISTED
    tags = []
    if not in_cat:
        tags.append(CATGAP)
    if deprecated:
        tags.append(DEP)
    for mrx, rx, cat in RULES:
        if re.fullmatch(mrx, mod) and re.search(rx, meth):
            tags.append(cat)
            break
    else:
        if not tags:
            tags.append(UNKNOWN)
        elif tags == [DEP]:
            tags.append(UNKNOWN)
    if acknowledged(mod, meth):
        tags.append("listed in docs/simulated-robot.md 'Not served yet'")
    return "; ".join(tags)


# ---------------------------------------------------------------------------- main

FIXTURE = os.path.join(MAIN, "crates", "choreo-naoqi", "tests", "fixtures", "documented-methods.tsv")


def write_fixture(final):
    """The documentation's facts only (module, method, the versions documenting it, whether
    the module is a base class, the page), one line per (module, method): what
    crates/choreo-naoqi/tests/documented.rs checks the simulated robot and
    docs/simulated-robot.md against without the mirrors."""
    seen = collections.OrderedDict()
    for r in final:
        key = (r["module"], r["method"])
        row = seen.setdefault(key, dict(versions=set(), base=r["detail"].startswith("base class"), page=r["page"]))
        row["versions"].add(r["version"])
    out = ["# module\tmethod\tversions\tbase class\tpage (scripts/naoqi-coverage.py writes this file)"]
    for (mod, meth), row in seen.items():
        out.append("\t".join([mod, meth, ",".join(sorted(row["versions"])), "base" if row["base"] else "module",
                              row["page"]]))
    open(FIXTURE, "w").write("\n".join(out) + "\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--probe", action="store_true", help="redo the probe even if cached")
    ap.add_argument("--choreo", default=MAIN + "/target/debug/choreo")
    ap.add_argument("--out", default=os.path.join(MAIN, "target", "naoqi-coverage"))
    ap.add_argument("--rev", default="HEAD", help="the commit of this checkout whose catalogue and sources are read")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    global REV
    REV = subprocess.run(["git", "-C", MAIN, "rev-parse", args.rev], capture_output=True, text=True,
                         check=True).stdout.strip()

    entries, inherit = parse_docs()
    cat = parse_catalogue()
    cache = os.path.join(args.out, "probe.json")
    if args.probe or not os.path.exists(cache):
        print("probing the simulated robot (NAO, Pepper)...", file=sys.stderr)
        # A snapshot of the binary: another process may rebuild it meanwhile.
        import shutil
        import hashlib
        snap = os.path.join(os.environ.get("TMPDIR", "/tmp"), "choreo-probe-%d" % os.getpid())
        shutil.copy2(args.choreo, snap)
        meta = {"binary": args.choreo,
                "binary_mtime": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(os.path.getmtime(args.choreo))),
                "binary_sha256": hashlib.sha256(open(snap, "rb").read()).hexdigest()[:16],
                "rev": REV,
                "rev_time": subprocess.run(["git", "-C", MAIN, "show", "-s", "--format=%ci", REV],
                                           capture_output=True, text=True).stdout.strip(),
                "worktree_changes": subprocess.run(["git", "-C", MAIN, "status", "--short", "crates"],
                                                   capture_output=True, text=True).stdout.split("\n")[:20],
                "probed_at": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())}
        try:
            results = probe(snap, cat, entries, cache)
            results["inprocess"] = inprocess_base_check(snap)
        finally:
            os.remove(snap)
        results["meta"] = meta
        json.dump(results, open(cache, "w"), indent=1)
    else:
        results = json.load(open(cache))
    inprocess = results.pop("inprocess", {})
    meta = results.pop("meta", {})
    # A method the qi client cannot call (an `o` object parameter): decide from the sources.
    lits = source_literals()
    for model in results.values():
        for key, v in model.items():
            if v["verdict"] == "bad-signature":
                v["verdict"] = "unknown" if key.split(".", 1)[1] in lits else "not-served (static: no literal)"
    json.dump(entries, open(os.path.join(args.out, "doc_entries.json"), "w"), indent=0)
    served_modules = {k.split(".")[0] for m in results.values() for k, v in m.items()
                      if v["verdict"] != "no-service"}
    write_outputs(args.out, entries, inherit, cat, results, served_modules, inprocess, meta)


def verdict_of(results, mod, meth):
    """(served yes/no, detail)."""
    vs = {model: results[model].get("%s.%s" % (mod, meth), {}).get("verdict", "unprobed")
          for model in ("nao", "pepper")}
    ok = [m for m, v in vs.items() if v in ("served", "timeout")]
    if len(ok) == 2:
        det = "NAO and Pepper" + (" (call timed out: a task started)" if "timeout" in vs.values() else "")
        return "yes", det
    if ok:
        other = "pepper" if ok[0] == "nao" else "nao"
        return "yes", "%s only (%s: %s)" % (ok[0], other, vs[other])
    return "no", "/".join(sorted(set(vs.values())))


def marks_of(cat, mod, meth):
    """The catalogue marks of a method (one string per distinct overload marks)."""
    if mod not in cat:
        return ""
    if meth not in cat[mod]["methods"]:
        return "(module: %s)" % " ".join(cat[mod]["marks"])
    return ";".join(sorted({" ".join(o[2]) for o in cat[mod]["methods"][meth]}))


def write_outputs(out, entries, inherit, cat, results, served_modules, inprocess, meta):
    methods = [e for e in entries if e["kind"] == "method"]
    others = [e for e in entries if e["kind"] != "method"]
    rows = collections.OrderedDict()
    for e in methods:
        key = (e["module"], e["method"], e["version"])
        r = rows.get(key)
        if r is None:
            rows[key] = r = dict(e, pages=[e["page"]], nparams=[], dep_all=[])
        elif e["page"] not in r["pages"]:
            r["pages"].append(e["page"])
        if e["params"] is not None and e["params"] not in r["nparams"]:
            r["nparams"].append(e["params"])
        r["dep_all"].append(e["deprecated"])
        r["listed_only"] = r["listed_only"] and e["listed_only"]
        r["dep_from_list"] = r.get("dep_from_list") or e.get("dep_from_list")
    inherits_by_mod = collections.defaultdict(set)
    for (ver, page, mod), bases in inherit.items():
        for b in bases:
            inherits_by_mod[b].add(mod)

    header = ["module", "method", "version", "deprecated", "page", "params", "served",
              "in_catalogue", "catalogue_marks_2.1_2.5_2.8_2.9", "served_detail", "reason_not_served", "note"]
    lines = ["\t".join(header)]
    final = []
    for (mod, meth, ver), r in rows.items():
        if mod == "ALModule":
            continue
        in_cat = mod in cat and meth in cat[mod]["methods"]
        marks = marks_of(cat, mod, meth)
        dep = any(r["dep_all"])
        if mod in ("ALExtractor", "ALVisionExtractor"):
            inheritors = sorted(m for m in inherits_by_mod.get("ALExtractor", ()) if m in served_modules and m not in BASES)
            if mod == "ALVisionExtractor":
                # No page names ALVisionExtractor as its base: take the camera-based ones,
                # the ALExtractor heirs documented under naoqi/vision/ and naoqi/peopleperception/.
                cam = {p["module"] for p in PAGES if re.match(r"naoqi/(vision|peopleperception)/", p["page"])}
                inheritors = [m for m in inheritors if m in cam]
            got = [m for m in inheritors if verdict_of(results, m, meth)[0] == "yes"]
            served = "yes" if inheritors and len(got) == len(inheritors) else ("partial" if got else "no")
            detail = "base class: served on %d of the %d served modules inheriting it%s" % (
                len(got), len(inheritors),
                (" (missing: " + ", ".join(sorted(set(inheritors) - set(got))) + ")") if len(got) < len(inheritors) else "")
            in_cat_s, why = "n/a", ""
        elif mod in NOT_SERVICES:
            served, detail, in_cat_s = "no", "not a service", "n/a"
            why = "module not served at all: " + MODULE_NATURE[mod]
        else:
            served, detail = verdict_of(results, mod, meth)
            in_cat_s = "yes" if in_cat else "no"
            why = "" if served == "yes" else reason(mod, meth, dep, r["listed_only"], in_cat, served_modules)
        note = []
        if r["listed_only"]:
            note.append("listed in the method list, not documented")
        if dep and not all(r["dep_all"]):
            note.append("one overload deprecated")
        if r.get("dep_from_list"):
            note.append("deprecation said in the method list")
        if len(r["pages"]) > 1:
            note.append("also on " + ", ".join(r["pages"][1:]))
        params = ",".join(str(p) for p in sorted(r["nparams"])) if r["nparams"] else "?"
        lines.append("\t".join([mod, meth, ver, "yes" if dep else "no", r["pages"][0], params, served,
                                in_cat_s, marks, detail, why, "; ".join(note)]))
        final.append(dict(module=mod, method=meth, version=ver, deprecated=dep, page=r["pages"][0],
                          served=served, in_cat=in_cat_s, detail=detail, listed_only=r["listed_only"],
                          marks=marks, reason=why))
    open(os.path.join(out, "documented.tsv"), "w").write("\n".join(lines) + "\n")
    write_fixture(final)
    base_rows = [r for r in rows.values() if r["module"] == "ALModule"]
    write_coverage(out, final, base_rows, others, cat, results, served_modules, inherits_by_mod, inprocess, meta)


def write_coverage(out, final, base_rows, others, cat, results, served_modules, inherits_by_mod, inprocess, meta):
    L = []
    P = L.append
    svc = [f for f in final if f["module"] not in ("ALExtractor", "ALVisionExtractor")]
    P("# NAOqi 2.1 and 2.8 documented methods: what choreo's simulated robot serves\n")
    P("Generated by `scripts/naoqi-coverage.py` (one row per module, method and version: "
      "`documented.tsv`; the probe's raw answers: `probe.json`; every parsed documentation "
      "entry, signals and properties included: `doc_entries.json`).\n")
    P("**Method**: a `<dl class=\"function\">` entry of a module API page (`naoqi/**/*-api.html`, "
      "`alaudiosourcelocalization_api.html`) that is not under a Signals/Properties heading, not a "
      "`qi::Signal`/`qi::Property`, not a constructor; plus methods a page's method list names without "
      "documenting them (\"listed only\": 2.1 ALAudioDevice's experimental methods, 2.8 ALTabletService's "
      "and ALVideoDevice's missing entries). Overloads count once. ALModule's base methods are listed once, "
      "at the end; the ALExtractor/ALVisionExtractor pages (base classes) have their own section. "
      "**Deprecated**: under a \"Deprecated methods\" heading, a Sphinx `deprecated` note "
      "(\"Deprecated since version ...\") in the entry, or \"(deprecated)\" in the method list.\n")
    P("**Served**: probed on `choreo sim` (the built `target/debug/choreo`, NAO and Pepper models) "
      "with `choreo robot call`: every catalogue overload is called with placeholder arguments made from its "
      "qi signature; a method is served when the call reached the module and it did not answer "
      "`Reply::NotServed` (it returned a value, or raised an argument or runtime error). Not served: "
      "\"does not serve it yet\" (`not-served`), not in the catalogue (`no-method`: the qi object has no such "
      "method, and in process `may_have` refuses it), module not registered or not on that model "
      "(`no-service`). Pepper-only modules (ALTabletService, ALVoiceEmotionAnalysis) count as served when "
      "Pepper serves them.\n")
    P("**State read**: choreo commit `%s` (%s) for the catalogue and sources; probe of the binary `%s` "
      "(modified %s, sha256 %s…) at %s. Uncommitted changes in `crates/` at probe time: %s. The catalogue "
      "is compiled into the binary (`include_str!`), so the probe answers with the catalogue the binary was "
      "built from.\n" % (
          meta.get("rev", REV)[:10], meta.get("rev_time", "?"), meta.get("binary", "?"), meta.get("binary_mtime", "?"),
          meta.get("binary_sha256", "?"), meta.get("probed_at", "?"),
          "; ".join(x.strip() for x in meta.get("worktree_changes", []) if x.strip()) or "none"))
    P("## Counts\n")
    P("| | 2.1 | 2.8 | either (distinct module.method) |")
    P("|---|---|---|---|")

    def cnt(pred, ver=None):
        return len({(f["module"], f["method"]) for f in svc if pred(f) and (ver is None or f["version"] == ver)})
    rowsdef = [
        ("documented methods", lambda f: True),
        ("  deprecated", lambda f: f["deprecated"]),
        ("  listed only (no documentation)", lambda f: f["listed_only"]),
        ("in choreo's catalogue", lambda f: f["in_cat"] == "yes"),
        ("**served**", lambda f: f["served"] == "yes"),
        ("  served on Pepper only", lambda f: f["served"] == "yes" and f["detail"].startswith("pepper only")),
        ("  served on NAO only", lambda f: f["served"] == "yes" and f["detail"].startswith("nao only")),
        ("**not served**", lambda f: f["served"] != "yes"),
        ("  module not served at all", lambda f: f["served"] != "yes" and f["module"] not in served_modules),
        ("  module served, method not", lambda f: f["served"] != "yes" and f["module"] in served_modules),
        ("    of which not in the catalogue", lambda f: f["served"] != "yes" and f["module"] in served_modules and f["in_cat"] != "yes"),
        ("    of which deprecated", lambda f: f["served"] != "yes" and f["module"] in served_modules and f["deprecated"]),
        ("not deprecated: documented", lambda f: not f["deprecated"]),
        ("not deprecated: served", lambda f: f["served"] == "yes" and not f["deprecated"]),
    ]
    for name, pred in rowsdef:
        P("| %s | %d | %d | %d |" % (name, cnt(pred, "2.1"), cnt(pred, "2.8"), cnt(pred)))
    mods = {v: {f["module"] for f in svc if f["version"] == v} for v in ("2.1", "2.8")}
    P("\nModules with documented methods: 2.1 %d, 2.8 %d, either %d (base classes apart). "
      "Left out as not methods: %d signals, %d properties, %d constructors/destructor "
      "(`doc_entries.json`).\n" % (
          len(mods["2.1"]), len(mods["2.8"]), len(mods["2.1"] | mods["2.8"]),
          sum(e["kind"] == "signal" for e in others), sum(e["kind"] == "property" for e in others),
          sum(e["kind"] == "constructor" for e in others)))

    # Findings worth a look (computed).
    P("## Findings\n")
    vid = [f for f in svc if f["module"] == "ALVideoDevice"]
    P("- %d modules with documented methods are not served at all (list below); the simulated robot "
      "serves %d modules, %d of which have no API page." % (
          len([m for m in {f["module"] for f in svc} if m not in served_modules]), len(served_modules),
          len([m for m in served_modules if m not in {p["module"] for p in PAGES}])))
    P("- ALVideoDevice is the served module with the lowest coverage: %d of %d documented (module, "
      "method, version) rows served (no images, no per-camera control)." % (
          sum(f["served"] == "yes" for f in vid), len(vid)))
    nocat_pages = sorted({p["module"] for p in PAGES if p["module"] not in cat and p["module"] not in BASES
                          and p["module"] not in NOT_SERVICES})
    P("- Modules with an API page that choreo's catalogue lacks entirely: %s." % ", ".join(nocat_pages))
    ext_unserved = sorted({p["module"] for p in PAGES if p["own_methods"] == 0 and "ALExtractor" in p["inherits"]
                           and p["module"] not in served_modules})
    P("- Extractor modules whose pages document only the inherited ALExtractor methods and that the "
      "simulated robot does not serve (a `subscribe` on them fails): %s." % ", ".join(ext_unserved))
    P("- See the last sections for the catalogue's marks that contradict the pages and for the ALModule "
      "base methods, which the qi path and the in-process path answer differently.\n")

    P("## Per module\n")
    P("documented / served, per version; `-`: no page (or no method) in that version.\n")
    P("| module | 2.1 | 2.8 | choreo serves the module |")
    P("|---|---|---|---|")
    by_mod = collections.defaultdict(list)
    for f in svc:
        by_mod[f["module"]].append(f)
    for mod in sorted(by_mod):
        fs = by_mod[mod]

        def vs(ver):
            xs = [f for f in fs if f["version"] == ver]
            return "%d / %d" % (len(xs), sum(f["served"] == "yes" for f in xs)) if xs else "-"
        only = cat.get(mod, {}).get("robot")
        P("| %s | %s | %s | %s |" % (mod, vs("2.1"), vs("2.8"),
                                     ("yes" + (" (%s only)" % only if only else "")) if mod in served_modules else "**no**"))
    unserved = sorted(m for m in by_mod if m not in served_modules)
    P("\n**Modules entirely unserved (%d)**: %s.\n" % (len(unserved), ", ".join(unserved)))
    paged = {p["module"] for p in PAGES}
    extra = sorted(m for m in served_modules if m not in paged)
    P("Modules the simulated robot serves that have no API page in either version: %s.\n" % ", ".join(extra))

    # Pages with no own method
    P("### Module pages that document no method of their own\n")
    P("| module | version | page | inherits (page says) | choreo serves the module |")
    P("|---|---|---|---|---|")
    for pg in sorted(PAGES, key=lambda p: (p["module"] or "", p["version"])):
        if pg["own_methods"] == 0 and pg["module"] not in by_mod and pg["module"] not in BASES:
            P("| %s | %s | %s | %s | %s |" % (pg["module"], pg["version"], pg["page"], ", ".join(pg["inherits"]) or "-",
                                              "yes" if pg["module"] in served_modules else "no"))
    P("")

    P("## Documented methods not served, by module\n")
    P("Versions in brackets: where the method is documented. The reason is a category inferred "
      "from the module and the method's name (and from docs/simulated-robot.md's \"Not served yet\" "
      "where it names the method); 'not served yet: no corpus script calls it' where no "
      "category fits (every method a corpus script calls is served: "
      "`crates/choreo-naoqi/tests/corpus_served.rs`).\n")
    groups = collections.OrderedDict()
    for f in sorted(svc, key=lambda f: (f["module"] in served_modules, f["module"], f["method"], f["version"])):
        if f["served"] == "yes":
            continue
        g = groups.setdefault(f["module"], collections.OrderedDict())
        x = g.setdefault(f["method"], dict(f, versions=[]))
        x["versions"].append(f["version"])
        x["deprecated"] = x["deprecated"] or f["deprecated"]
        x["listed_only"] = x["listed_only"] and f["listed_only"]
    for mod, g in groups.items():
        for m, x in g.items():
            if mod not in NOT_SERVICES:
                x["reason"] = reason(mod, m, x["deprecated"], x["listed_only"], x["in_cat"] == "yes", served_modules)
    P("### Modules not served at all\n")
    for mod, g in groups.items():
        if mod in served_modules:
            continue
        P("- **%s** (%d; %s): %s" % (mod, len(g), MODULE_NATURE.get(mod, UNKNOWN), ", ".join(
            "`%s`%s%s" % (m, " (deprecated)" if x["deprecated"] else "",
                           "" if len(x["versions"]) == 2 else " [" + x["versions"][0] + "]")
            for m, x in g.items())))
    P("\n### Served modules: methods not served\n")
    for mod, g in groups.items():
        if mod not in served_modules:
            continue
        P("#### %s (%d)\n" % (mod, len(g)))
        for m, x in g.items():
            P("- `%s` [%s]%s: %s" % (m, ",".join(x["versions"]), " *deprecated*" if x["deprecated"] else "", x["reason"]))
        P("")
    cats = collections.Counter()
    for mod, g in groups.items():
        for m, x in g.items():
            r = x["reason"]
            key = ("module not served at all" if r.startswith("module not served") else
                   CATGAP if CATGAP in r else LISTED if r == LISTED else
                   r.split("; ")[1] if r.startswith(DEP + ";") else r.split("; ")[0])
            key = key.split(":")[0]
            cats[key] += 1
    P("### Reason categories (distinct module.method not served)\n")
    P("| category (first tag; a deprecated method counted under its second tag) | methods |")
    P("|---|---|")
    for k, n in cats.most_common():
        P("| %s | %d |" % (k, n))
    P("")

    # Extractor bases
    P("## Extractor base methods (ALExtractor, ALVisionExtractor pages)\n")
    P("These base-class pages document methods that the extractor modules inherit. Served means: "
      "served on every served module whose page says it inherits the base.\n")
    seen = set()
    for f in sorted([f for f in final if f["module"] in ("ALExtractor", "ALVisionExtractor")],
                    key=lambda f: (f["module"], f["method"], f["version"])):
        key = (f["module"], f["method"])
        if key in seen:
            continue
        seen.add(key)
        vers = sorted({g["version"] for g in final if (g["module"], g["method"]) == key})
        P("- `%s.%s` [%s]: %s (%s)" % (f["module"], f["method"], ",".join(vers), f["served"], f["detail"]))
    P("\nModules whose pages say they inherit ALExtractor: %s. No page links ALVisionExtractor as its "
      "base (the vision extractors' pages link ALExtractor only); ALAudioDevice's says it inherits from "
      "ALSoundExtractor, which has no page.\n" % ", ".join(sorted(m for m in inherits_by_mod.get("ALExtractor", ()) if m not in BASES)))
    vis = {}
    for model in results.values():
        for k, v in model.items():
            mod, meth = k.split(".", 1)
            if meth in ("getActiveCamera", "setResolution", "getFrameRate", "isPaused") and v["verdict"] == "served":
                vis.setdefault(mod, set()).add(meth)
    P("Modules that serve the ALVisionExtractor methods (getActiveCamera, setResolution, getFrameRate, "
      "isPaused): %s.\n" % ", ".join("%s (%d/4)" % (m, len(s)) for m, s in sorted(vis.items())))

    # ALModule
    in_process, over_qi = generic_lists()
    P("## ALModule base methods (listed once)\n")
    P("Two paths serve them differently: over qi messaging (`choreo sim`, probed here) choreo-qi answers "
      "the 13 of choreo-robot's `MODULE_BASE` itself (`crates/choreo-qi/src/robot.rs`, `module_object`); "
      "in process (`choreo run`: box scripts) `Sim::generic` serves only calls.rs's `GENERIC` list "
      "(%s), the others reach the module, which does not serve them (checked with a box script calling "
      "ALMemory's: getMethodHelp, getModuleHelp, getUsage answer \"does not serve it yet\").\n" % ", ".join(in_process))
    P("| method | documented | over qi (`choreo sim`, probed) | in process: in `GENERIC` | in process: a box script's call (`choreo run`) |")
    P("|---|---|---|---|---|")
    docd = collections.OrderedDict()
    for r in base_rows:
        docd.setdefault(r["method"], []).append(r["version"])
    names = list(docd) + [m for m in over_qi + in_process + ["innerTest", "setDebugMode"] if m not in docd]
    names = [m for m in names if m != "__pCall"]
    seen = set()
    for meth in names:
        if meth in seen:
            continue
        seen.add(meth)
        v = results["nao"].get("ALMemory.%s" % meth, {})
        ans = v.get("verdict", "unprobed")
        if v.get("tries"):
            ans += " (`%s`)" % v["tries"][-1][2][:40].replace("|", "/")
        ip = inprocess.get(meth)
        ip = "%s (`%s`)" % (ip[0], ip[1][:40].replace("|", "/")) if ip else "not tried"
        P("| `%s` | %s | %s | %s | %s |" % (meth, ",".join(docd.get(meth, [])) or "no", ans,
                                            "yes" if meth in in_process else "no", ip))
    P("")

    # Catalogue vs pages
    P("## choreo's catalogue against the pages\n")
    col = {"2.1": 0, "2.8": 2}
    contra = collections.defaultdict(list)
    for f in svc:
        if f["in_cat"] != "yes":
            continue
        ms = [o[2] for o in cat[f["module"]]["methods"][f["method"]]]
        if all(m[col[f["version"]]] == "n" for m in ms):
            contra[(f["version"], f["module"])].append(f["method"])
    P("### Documented in a version whose catalogue mark says `n` (all overloads)\n")
    if not contra:
        P("None.\n")
    for (ver, mod), ms in sorted(contra.items()):
        P("- NAOqi %s, **%s** (%d): %s" % (ver, mod, len(ms), ", ".join("`%s`" % m for m in sorted(ms))))
        srv = sorted(m for m in ms if any(f["module"] == mod and f["method"] == m and f["served"] == "yes" for f in svc))
        P("  - of which the simulated robot serves %d: %s" % (len(srv), ", ".join("`%s`" % m for m in srv)))
        m25 = sorted(m for m in ms if all(o[2][1] == "n" for o in cat[mod]["methods"][m]))
        P("  - of which also marked `n` for 2.5: %d (the 2.5 and 2.8 marks come from the lugu/qiloop "
          "NAO V5/V6 metaObject scans, per the catalogue's header)" % len(m25))
    P("")
    P("### Documented but not in the catalogue (the simulated robot refuses them as \"no NAOqi version has\")\n")
    gap = collections.defaultdict(set)
    for f in svc:
        if f["in_cat"] == "no":
            gap[f["module"]].add((f["method"], f["version"]))
    for mod in sorted(gap):
        ms = collections.defaultdict(list)
        for m, v in gap[mod]:
            ms[m].append(v)
        P("- **%s**%s: %s" % (mod, "" if mod in cat else " (module absent from the catalogue)",
                             ", ".join("`%s` [%s]" % (m, ",".join(sorted(v))) for m, v in sorted(ms.items()))))
    P("")
    unknown_marks = collections.Counter()
    for f in svc:
        if f["in_cat"] == "yes":
            ms = [o[2] for o in cat[f["module"]]["methods"][f["method"]]]
            if all(m[col[f["version"]]] == "?" for m in ms):
                unknown_marks[f["version"]] += 1
    P("### Marked `?` (unknown) for a version whose page documents the method\n")
    P("The pages could settle these marks: 2.1: %d methods, 2.8: %d methods (`documented.tsv`, column "
      "catalogue_marks).\n" % (unknown_marks["2.1"], unknown_marks["2.8"]))
    # marks y for 2.1 where the 2.1 page exists but does not document it: informative only
    undocumented = collections.defaultdict(list)
    docset = {(f["module"], f["method"], f["version"]) for f in svc}
    for mod, info in cat.items():
        for ver in ("2.1", "2.8"):
            if mod not in mods[ver]:
                continue
            for meth, ovs in info["methods"].items():
                if any(o[2][col[ver]] == "y" for o in ovs) and (mod, meth, ver) not in docset:
                    undocumented[ver].append("%s.%s" % (mod, meth))
    P("### Marked `y` for a version whose page of the module does not document the method (informative)\n")
    for ver in ("2.1", "2.8"):
        P("- %s: %d methods (e.g. %s)" % (ver, len(undocumented[ver]), ", ".join(undocumented[ver][:8])))
    P("")
    open(os.path.join(out, "coverage.md"), "w").write("\n".join(L) + "\n")


if __name__ == "__main__":
    main()
