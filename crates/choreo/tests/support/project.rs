//! A small Choregraphe 2.x project written for a test: the `convert`, `package` and
//! `robot install` tests share it.

use std::path::{Path, PathBuf};

use super::cli::workspace;

const HELLO: &str = "examples/hello/behavior.xar";

/// A small 2.x project in `dir/name`: `Proj.pml`, a manifest, one behavior (the hello
/// example), a topic, a sound and a Python library; returns its folder.
pub fn make_project(dir: &Path, name: &str, manifest: &str) -> PathBuf {
    let root = dir.join(name);
    let put = |rel: &str, bytes: &[u8]| {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, bytes).unwrap();
    };
    put(
        "Proj.pml",
        br#"<?xml version="1.0" encoding="UTF-8" ?>
<Package name="Proj" format_version="4">
    <Manifest src="manifest.xml" />
    <BehaviorDescriptions>
        <BehaviorDescription name="behavior" src="behavior_1" xar="behavior.xar" />
    </BehaviorDescriptions>
    <Dialogs>
        <Dialog name="greet" src="greet/greet.dlg" />
    </Dialogs>
    <Resources>
        <File name="ding" src="behavior_1/ding.ogg" />
        <File name="helper" src="lib/helper.py" />
    </Resources>
    <Topics>
        <Topic name="greet_enu" src="greet/greet_enu.top" topicName="greet" language="en_US" />
    </Topics>
</Package>
"#,
    );
    put("manifest.xml", manifest.as_bytes());
    put(
        "behavior_1/behavior.xar",
        &std::fs::read(workspace().join(HELLO)).unwrap(),
    );
    put(
        "behavior_1/ding.ogg",
        &[0x4f, 0x67, 0x67, 0x53, 0, 1, 2, 0xff],
    );
    put("lib/helper.py", b"def helper():\n    return 42\n");
    put(
        "greet/greet.dlg",
        b"multilanguage:greet\n  enu:greet_enu.top\n",
    );
    put(
        "greet/greet_enu.top",
        b"topic: ~greet()\nlanguage: enu\nu:(hello) hi there\n",
    );
    root
}

/// A manifest qipkg accepts, with `uuid`.
pub fn manifest(uuid: &str) -> String {
    format!(
        r#"<?xml version='1.0' encoding='UTF-8'?>
<package uuid="{uuid}" version="1.2.0">
 <names>
  <name lang="en_US">Proj</name>
 </names>
 <supportedLanguages>
  <language>en_US</language>
 </supportedLanguages>
 <descriptionLanguages>
  <language>en_US</language>
 </descriptionLanguages>
 <contents>
  <behaviorContent path="behavior_1">
   <name lang="en_US">Hello</name>
   <userRequestable/>
   <permissions/>
  </behaviorContent>
 </contents>
 <requirements>
  <naoqiRequirement minVersion="2.1"/>
  <robotRequirement model="NAO"/>
 </requirements>
</package>
"#
    )
}
