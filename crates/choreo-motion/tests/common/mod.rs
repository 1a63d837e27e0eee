//! Helpers of the `.qianim` tests: libalmath's checks of a v2 document, written again here
//! independently of our reader (which is lenient where libalmath is not), and comparisons.
#![allow(dead_code)] // each test binary uses a part

use choreo_motion::curve::Curve;
use choreo_xar::package::{XmlDocument, XmlElement};

/// What libalmath's `get_animation` + `Animation::check_all` require of a document; the
/// first breach found, in words.
pub fn libalmath_accepts(text: &str) -> Result<(), String> {
    let doc = XmlDocument::parse("out.qianim", text.as_bytes()).map_err(|e| e.to_string())?;
    let root = &doc.root;
    if root.name != "Animation" {
        return Err(format!("root <{}>", root.name));
    }
    if root.attribute("typeVersion") != Some("2.0") {
        return Err("typeVersion is not 2.0".into());
    }
    for curve in root.elements().filter(|e| e.name == "ActuatorCurve") {
        let actuator = attr(curve, "actuator")?;
        let fps: i32 = parse(curve, "fps")?;
        if fps <= 0 {
            return Err(format!("{actuator}: fps {fps}"));
        }
        if let Some(mute) = curve.attribute("mute")
            && !["0", "1", "true", "false"].contains(&mute)
        {
            return Err(format!("{actuator}: mute {mute:?}"));
        }
        let unit = attr(curve, "unit")?;
        if !["degree", "radian", "dimensionless", "meter"].contains(&unit) {
            return Err(format!("{actuator}: unit {unit:?}"));
        }
        let keys: Vec<&XmlElement> = curve.elements().filter(|e| e.name == "Key").collect();
        for k in &keys {
            let frame: i32 = parse(k, "frame")?;
            if frame < 0 {
                return Err(format!("{actuator}: frame {frame}"));
            }
            let _: f64 = parse(k, "value")?;
        }
        for pair in keys.windows(2) {
            let (k0, k3) = (pair[0], pair[1]);
            let (f0, f3): (i32, i32) = (parse(k0, "frame")?, parse(k3, "frame")?);
            let right = tangent(k0, "right")
                .ok_or_else(|| format!("{actuator}: key {f0} has no right Tangent"))?;
            let left = tangent(k3, "left")
                .ok_or_else(|| format!("{actuator}: key {f3} has no left Tangent"))?;
            let (a1, _o1): (f64, f64) = (
                parse(right, "abscissaParam")?,
                parse(right, "ordinateParam")?,
            );
            let (a2, _o2): (f64, f64) =
                (parse(left, "abscissaParam")?, parse(left, "ordinateParam")?);
            let delta = f3 - f0;
            if delta <= 0 {
                return Err(format!("{actuator}: frames {f0}, {f3} not increasing"));
            }
            let delta = f64::from(delta);
            if !(0.0..=delta).contains(&a1) || !(-delta..=0.0).contains(&a2) {
                return Err(format!(
                    "{actuator}: abscissa out of bounds between {f0} and {f3}"
                ));
            }
        }
    }
    Ok(())
}

/// The first `Tangent` of `key` on `side`, as libalmath's `get_tangent_optional` finds it.
fn tangent<'a>(key: &'a XmlElement, side: &str) -> Option<&'a XmlElement> {
    key.elements()
        .filter(|e| e.name == "Tangent")
        .find(|t| t.attribute("side") == Some(side))
}

fn attr<'a>(el: &'a XmlElement, name: &str) -> Result<&'a str, String> {
    el.attribute(name)
        .ok_or_else(|| format!("<{}> without {name}", el.name))
}

fn parse<T: std::str::FromStr>(el: &XmlElement, name: &str) -> Result<T, String> {
    let text = attr(el, name)?;
    text.parse()
        .map_err(|_| format!("<{} {name}={text:?}> is not a number", el.name))
}

/// The frames where `a` and `b` differ by more than `tolerance` (in ALMotion units), from
/// one frame before their first key to one after their last, every tenth of a frame.
pub fn differing_frames(a: &Curve, b: &Curve, tolerance: f64) -> Vec<f64> {
    let (sa, sb) = (a.spline(), b.spline());
    let from = a.first_frame().min(b.first_frame()) - 1;
    let to = a.last_frame().max(b.last_frame()) + 1;
    (from * 10..=to * 10)
        .map(|tenth| f64::from(tenth) / 10.0)
        .filter(|&f| {
            let (va, vb) = (sa.eval(f), sb.eval(f));
            match (va, vb) {
                (Some(x), Some(y)) => (x - y).abs() > tolerance,
                _ => va.is_some() != vb.is_some(),
            }
        })
        .collect()
}
