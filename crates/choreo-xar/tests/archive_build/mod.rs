//! Builders of real archives (ar, tar, gzip, zip) for the archive and source tests, including
//! malformed ones that no well-behaved tool would write.

use std::io::Write;

/// An ar archive with the given members (GNU-style names ending in `/`, bodies padded).
pub fn ar(members: &[(&str, &[u8])]) -> Vec<u8> {
    let mut out = b"!<arch>\n".to_vec();
    for (name, data) in members {
        out.extend(ar_header(&format!("{name}/"), data.len()));
        out.extend_from_slice(data);
        if data.len() % 2 == 1 {
            out.push(b'\n');
        }
    }
    out
}

/// One 60-byte ar member header.
pub fn ar_header(name: &str, size: usize) -> Vec<u8> {
    let header = format!(
        "{name:<16}{:<12}{:<6}{:<6}{:<8}{size:<10}`\n",
        0, 0, 0, "100644"
    );
    assert_eq!(header.len(), 60);
    header.into_bytes()
}

/// A tar entry header whose name bytes are written as given (no path checks).
pub fn raw_header(name: &str, kind: tar::EntryType, size: u64) -> tar::Header {
    let mut h = tar::Header::new_gnu();
    let bytes = name.as_bytes();
    h.as_old_mut().name[..bytes.len()].copy_from_slice(bytes);
    h.set_entry_type(kind);
    h.set_size(size);
    h.set_mode(0o644);
    h.set_cksum();
    h
}

/// A tar archive of regular files.
pub fn tar(files: &[(&str, &[u8])]) -> Vec<u8> {
    let mut b = tar::Builder::new(Vec::new());
    for (name, data) in files {
        let h = raw_header(name, tar::EntryType::Regular, data.len() as u64);
        b.append(&h, *data).unwrap();
    }
    b.into_inner().unwrap()
}

/// A tar archive with one entry of `kind` (a link gets `target` as its link name).
pub fn tar_special(name: &str, kind: tar::EntryType, target: &str) -> Vec<u8> {
    let mut b = tar::Builder::new(Vec::new());
    let mut h = raw_header(name, kind, 0);
    if !target.is_empty() {
        h.set_link_name(target).unwrap();
        h.set_cksum();
    }
    b.append(&h, &[][..]).unwrap();
    b.into_inner().unwrap()
}

/// Gzip-compressed bytes.
pub fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

/// A `.crg` with a control file titled `title` and `data` as data.tar.gz.
pub fn crg(title: &str, data: &[u8]) -> Vec<u8> {
    let control = format!("Type: ChoregrapheProject\nVersion: 2.0\ntitle: {title}\n");
    let control = gzip(&tar(&[("control", control.as_bytes())]));
    ar(&[
        ("debian-binary", b"2.0\n"),
        ("control.tar.gz", &control),
        ("data.tar.gz", data),
    ])
}

/// A deflated zip of the given files.
pub fn zip(files: &[(&str, &[u8])]) -> Vec<u8> {
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for (name, data) in files {
        w.start_file(*name, options).unwrap();
        w.write_all(data).unwrap();
    }
    w.finish().unwrap().into_inner()
}

/// A minimal behavior.xar with one child box named `child`.
pub fn behavior_xar(child: &str) -> Vec<u8> {
    format!(
        r#"<?xml version="1.0" encoding="UTF-8" ?>
<ChoregrapheProject xmlns="http://www.aldebaran-robotics.com/schema/choregraphe/project.xsd" xar_version="3">
    <Box name="root" id="-1" localization="8" tooltip="Root box" x="0" y="0">
        <bitmap>media/images/box/root.png</bitmap>
        <script language="4"><content><![CDATA[]]></content></script>
        <Input name="onLoad" type="1" type_size="1" nature="0" inner="1" tooltip="" id="1" />
        <Input name="onStart" type="1" type_size="1" nature="2" inner="0" tooltip="" id="2" />
        <Output name="onStopped" type="1" type_size="1" nature="1" inner="0" tooltip="" id="3" />
        <Timeline enable="0">
            <BehaviorLayer name="behavior_layer1">
                <BehaviorKeyframe name="keyframe1" index="1">
                    <Diagram>
                        <Box name="{child}" id="1" localization="8" tooltip="" x="100" y="100">
                            <bitmap>media/images/box/box-python-script.png</bitmap>
                            <script language="4"><content><![CDATA[class MyClass(GeneratedClass):
    def onInput_onStart(self):
        self.onStopped()
]]></content></script>
                            <Input name="onStart" type="1" type_size="1" nature="2" inner="0" tooltip="" id="1" />
                            <Output name="onStopped" type="1" type_size="1" nature="1" inner="0" tooltip="" id="2" />
                        </Box>
                        <Link inputowner="1" indexofinput="1" outputowner="0" indexofoutput="2" />
                        <Link inputowner="0" indexofinput="3" outputowner="1" indexofoutput="2" />
                    </Diagram>
                </BehaviorKeyframe>
            </BehaviorLayer>
        </Timeline>
    </Box>
</ChoregrapheProject>
"#
    )
    .into_bytes()
}
