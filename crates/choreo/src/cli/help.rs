//! What each command's `--help` ends with: its own exit codes, then examples, as cargo's
//! and ripgrep's helps do. Lines stay within 80 columns (`choreo --help` fits a screen;
//! `tests/cli.rs` checks both). The codes are [`crate::exit`]'s; each list names only
//! the codes that command can end with.

/// `choreo --help`.
pub(crate) const CHOREO: &str = "\
Exit codes: each command's help lists its own (`choreo help run`); 2 is always
bad arguments, 141 a closed standard output (`choreo check . | head`).

Examples:
  choreo run examples/hello        run a behavior on the simulated NAO
  choreo run my.pml --fast         in virtual time, as fast as it computes
  choreo check .                   check every behavior file under here
  choreo chat greetings_enu.top    talk with a QiChat topic";

/// `choreo run --help`.
pub(crate) const RUN: &str = "\
Exit codes:
  0    the behavior finished
  1    --repeat: a run's trace differs from the first's
  2    bad arguments
  3    --strict: an error in box code stopped the behavior (or the engine crashed)
  4    the behavior could not be read or loaded
  5    timeout (the load included); --fast: it waits for events that never come;
       box code kept the run past --timeout and 10 s of real time (killed)
  6    an output (--trace) could not be written
  7    --robot: the robot cannot be reached, or was lost (the behavior stopped)
  8    box code ended its process (os._exit, a signal, a segfault in native
       code) or broke its protocol: the report says how and where
  130  Ctrl-C (everything unloaded first; a second Ctrl-C exits at once)
  141  standard output closed by its reader

Box code is confined (docs/security.md): files outside its project, the run's
folders and its Python, the network and other programs are refused at its line,
and the report lists each refusal with the flag that allows it.

Examples:
  choreo run examples/hello
  choreo run project.pml --fast --strict --timeout 60
  choreo run behavior.xar --robot tcp://nao.local:9559
  choreo run project.pml --events scenario.yaml --trace run.jsonl
  choreo run project.pml --allow-net=192.168.1.20:8080 --allow-write ./out";

/// `choreo robot --help` and its commands'.
pub(crate) const ROBOT: &str = "\
Exit codes:
  0    done
  1    the robot answered with an error (install: it refused the package, or NAOqi
       2.1 needs --remote-path)
  2    bad arguments
  4    install: not a .pkg with manifest.xml and a uuid
  7    the robot cannot be reached, or was lost

Examples:
  choreo robot info tcp://nao.local:9559
  choreo robot call tcp://nao.local:9559 ALTextToSpeech.say '\"hello\"'
  choreo robot watch tcp://nao.local:9559 FrontTactilTouched
  choreo robot install tcp://nao.local:9559 app.pkg";

/// `choreo sim --help`.
pub(crate) const SIM: &str = "\
Exit codes:
  0    stopped with Ctrl-C
  2    bad arguments
  3    the simulated robot failed
  4    --events: the scenario cannot be read
  6    an output could not be written
  7    the address cannot be served

Examples:
  choreo sim
  choreo sim --listen tcp://0.0.0.0:9559 --robot-model pepper";

/// `choreo check --help`.
pub(crate) const CHECK: &str = "\
Exit codes:
  0    every file is valid
  1    some file has errors
  2    bad arguments, or a path that does not exist
  141  standard output was closed by its reader

Examples:
  choreo check .
  choreo check behavior.xar topics/ --json";

/// `choreo inspect --help`.
pub(crate) const INSPECT: &str = "\
Exit codes:
  0    shown
  2    bad arguments
  4    the behavior cannot be read
  141  standard output was closed by its reader

Examples:
  choreo inspect behavior.xar
  choreo inspect project.pml";

/// `choreo edit --help`.
pub(crate) const EDIT: &str = "\
Exit codes:
  0    Ctrl-C: every edit was already saved
  2    bad arguments, a path that does not exist, or an address it cannot
       listen on
  4    not a behavior it can edit in place (a behavior's split folder, not
       UTF-8, not a valid behavior; an empty folder: `choreo new` makes one),
       or a --library that cannot be read

A .crg, .cbl or .pkg, or a readable project folder, is edited in a working copy
and written back in its own form after each change.

Examples:
  choreo edit behavior.xar
  choreo edit project/ --behavior behavior_1
  choreo edit project.crg
  choreo edit behavior.xar --library choregraphe/libraries/box/standard";

/// `choreo new --help`.
pub(crate) const NEW: &str = "\
Exit codes:
  0    made (with --edit: as choreo edit's)
  2    bad arguments, or the path is taken (a file, a folder not empty)
  6    it could not be written

Examples:
  choreo new project greeter --edit    greeter/greeter.pml, manifest.xml,
                                       behavior_1/behavior.xar, opened
  choreo new behavior wave.xar
  choreo new library 'My Boxes'        My Boxes.cbl";

/// `choreo convert --help`.
pub(crate) const CONVERT: &str = "\
Exit codes:
  0    written
  2    bad arguments (a form choreo cannot write to)
  4    the input cannot be read
  6    the output could not be written

Examples:
  choreo convert behavior.xar split/
  choreo convert split/ behavior.xar
  choreo convert project.crg readable/
  choreo convert behavior.xar --to qianim animations/";

/// `choreo export-python --help`.
pub(crate) const EXPORT: &str = "\
Exit codes:
  0    written
  2    bad arguments
  4    the behavior cannot be read
  6    the program could not be written

Examples:
  choreo export-python project.pml -o app/
  python app/main.py 192.168.1.12";

/// `choreo replay --help`.
pub(crate) const REPLAY: &str = "\
Exit codes:
  0    stopped with Ctrl-C
  2    bad arguments
  4    the trace or the behavior cannot be read

Examples:
  choreo run project.pml --trace run.jsonl && choreo replay run.jsonl project.pml";

/// `choreo package --help`.
pub(crate) const PACKAGE: &str = "\
Exit codes:
  0    the package was written
  1    the project has errors (shown at their file and line); nothing written
  2    bad arguments
  4    the project cannot be read
  6    the package could not be written

Examples:
  choreo package project/ -o app.pkg
  choreo robot install tcp://nao.local:9559 app.pkg";

/// `choreo plot --help`.
pub(crate) const PLOT: &str = "\
Exit codes:
  0    written
  2    bad arguments: --box names no timeline box with curves; an image not named
       .png or .svg
  4    the behavior cannot be read or has no motion timeline; --trace: not a
       trace, or no joints events in it
  6    the image could not be written

Examples:
  choreo plot behavior.xar -o motion.png
  choreo plot --trace run.jsonl -o run.svg";

/// `choreo motion --help`.
pub(crate) const MOTION: &str = "\
Exit codes:
  0    shown
  2    bad arguments: --box names no timeline box with curves; several motion
       timelines and no --box
  4    the behavior cannot be read or has no motion timeline
  141  standard output was closed by its reader

Examples:
  choreo motion behavior.xar --box Dance";

/// `choreo chat --help`.
pub(crate) const CHAT: &str = "\
Exit codes:
  0    done
  1    --script: an answer differs from the one the script expects
  2    bad arguments
  4    a topic or the behavior cannot be read or loaded

Examples:
  choreo chat greetings_enu.top
  choreo chat project.pml --lang frf
  choreo chat topics/ --script conversation.txt";

/// `choreo explore --help`.
pub(crate) const EXPLORE: &str = "\
Exit codes:
  0    every path ran without a fault
  1    faults found (each with its shortest inputs; --out writes their scenarios)
  2    bad arguments
  4    the behavior cannot be read or loaded
  6    --out cannot be written

Examples:
  choreo explore examples/interactive
  choreo explore project.pml --max-paths 500 --depth 8 --out explored/
  choreo run project.pml --fast --events explored/fault-1.yaml";

/// `choreo stack --help` and its commands'.
pub(crate) const STACK: &str = "\
Exit codes:
  0    check: every definition valid; run: the stack emptied
  1    check: a definition or the tree is wrong
  2    bad arguments
  3    run: an error in a behavior stopped the stack
  4    the folder or a behavior cannot be read
  5    run: timeout (the stack cancelled top-down)
  6    run: an output could not be written
  7    run --robot: the robot cannot be reached, or was lost
  130  run: Ctrl-C (the stack cancelled top-down)

Examples:
  choreo stack check stack/
  choreo stack tree stack/
  choreo stack run stack/ --fast";

/// `choreo diff --help`.
pub(crate) const DIFF: &str = "\
Exit codes:
  0    the behaviors are equal
  1    they differ
  2    bad arguments
  4    one cannot be read

Examples:
  choreo diff old.xar new.xar
  choreo diff behavior.xar split/";
