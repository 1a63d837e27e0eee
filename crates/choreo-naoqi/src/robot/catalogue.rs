//! What the simulated robot reads from NAOqi's catalogue (`choreo_robot::naoqi`): a module's
//! method set, written there once, and the error for a method it does not serve.

use choreo_robot::naoqi::Catalogue;

/// How many close names an error proposes.
const SUGGESTIONS: usize = 3;

/// The own methods of module `service` (the generic ones come on top), empty for a module
/// the catalogue does not have.
pub(crate) fn methods(service: &str) -> Vec<&'static str> {
    Catalogue::naoqi()
        .module(service)
        .map(|m| m.method_names())
        .unwrap_or_default()
}

/// False when module `service` is in the catalogue and no NAOqi version of it has `method`
/// (such a call is refused before it reaches the service); true otherwise.
pub(crate) fn may_have(service: &str, method: &str) -> bool {
    Catalogue::naoqi()
        .module(service)
        .is_none_or(|m| m.has_method(method))
}

/// What the error for `service.method`, not served, adds to NAOqi's wording: whether NAOqi
/// has the method (then the simulated robot does not serve it yet) or no version has it,
/// and the closest method names the module has. Empty for a module the catalogue lacks.
pub(crate) fn not_served(service: &str, method: &str) -> String {
    let Some(module) = Catalogue::naoqi().module(service) else {
        return String::new();
    };
    let why = if module.has_method(method) {
        format!("NAOqi has {service}.{method}, the simulated robot does not serve it yet")
    } else {
        format!("no NAOqi version has {service}.{method}")
    };
    match module.closest(method, SUGGESTIONS).as_slice() {
        [] => format!("; {why}"),
        near => format!("; {why}; closest: {}", near.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_method_a_table_serves_is_in_the_catalogue() {
        // A method missing from the catalogue would be refused before its table is asked.
        let mut missing = Vec::new();
        let tables = crate::registry::MODULES.iter().filter_map(|s| match s {
            crate::registry::Serve::Table(service) => Some(service),
            crate::registry::Serve::Module(..) => None,
        });
        for service in tables {
            for m in service.method_names() {
                if !may_have(service.name, m) || methods(service.name).is_empty() {
                    missing.push(format!("{}.{m}", service.name));
                }
            }
        }
        assert!(missing.is_empty(), "not in the catalogue: {missing:?}");
    }

    #[test]
    fn method_sets_come_from_the_catalogue() {
        let motion = methods("ALMotion");
        assert!(motion.contains(&"angleInterpolationBezier"));
        assert_eq!(motion.iter().filter(|m| **m == "moveTo").count(), 1);
        assert!(methods("ALNoSuch").is_empty());
        assert!(may_have("ALMotion", "moveTo"));
        assert!(may_have("ALMotion", "wait"), "the generic methods");
        assert!(!may_have("ALMotion", "moveToo"));
        assert!(may_have("ALNotInTheCatalogue", "anything"));
    }

    #[test]
    fn the_error_says_why_and_proposes_names() {
        let typo = not_served("ALMotion", "moveToo");
        assert!(
            typo.starts_with("; no NAOqi version has ALMotion.moveToo"),
            "{typo}"
        );
        assert!(typo.contains("closest: moveTo"), "{typo}");
        let later = not_served("ALMotion", "setFootSteps");
        assert!(
            later.contains("the simulated robot does not serve it yet"),
            "{later}"
        );
        assert!(later.contains("closest: "), "{later}");
        assert!(
            !later.contains("closest: setFootSteps,"),
            "not itself: {later}"
        );
        assert_eq!(not_served("ALNoSuch", "x"), "");
    }
}
