//! Property: any behavior model survives `to_tree` -> `from_tree` unchanged, including
//! extras (unknown attributes, raw children, child order, spellings), absent attributes,
//! raw script content, plugin content, prolog, namespace and root kind.
//!
//! The models come from [`support::arbitrary`]: every model the XAR round trip is checked
//! on, and also what only the split format must keep ([`Target::Split`]).

use crate::support;

use choreo_xar::split::{from_tree, is_split_tree, to_tree};
use proptest::prelude::*;
use support::arbitrary::{Coverage, Target, check_models};

#[test]
fn split_round_trip_is_lossless() {
    check_models(Target::Split, 256, |x| {
        let tree = to_tree(x);
        prop_assert!(is_split_tree(&tree));
        let back = match from_tree("generated", &tree) {
            Ok(p) => p.value,
            Err(e) => {
                let files: Vec<String> = tree
                    .iter()
                    .map(|(k, v)| format!("--- {k}\n{}", String::from_utf8_lossy(v)))
                    .collect();
                return Err(TestCaseError::fail(format!("{e}\n{}", files.join("\n"))));
            }
        };
        prop_assert_eq!(&back, x);
        Ok(())
    });
}

#[test]
fn generator_covers_the_model() {
    let c = Coverage::of(Target::Split);
    println!("{c:#?}");
    c.assert_covers(&[
        ("links", c.links),
        ("links to parameters", c.links_to_parameters),
        ("keys", c.keys),
        ("tangents", c.tangents),
        ("unknown children", c.unknown_children),
        ("recorded orders", c.recorded_orders),
        ("spellings", c.spellings),
        ("attribute spellings", c.attribute_spellings),
        ("empty extras records", c.empty_records),
        ("motion timelines", c.motion_timelines),
        ("plain flow-diagram holders", c.plain_holders),
        ("raw script contents", c.raw_contents),
        ("codes with CR", c.codes_with_cr),
    ]);
}
