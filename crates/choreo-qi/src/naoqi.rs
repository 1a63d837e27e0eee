//! NAOqi module conventions (qi-protocol.md §11): every module served carries the ALModule
//! base methods at uids 100–112, then its own methods from 113, one uid per overload, with
//! the signatures of NAOqi's catalogue. The catalogue itself is choreo-robot's
//! ([`choreo_robot::naoqi`]); this crate keeps no copy.

pub use choreo_robot::naoqi::{Catalogue, MODULE_BASE, Method, Module};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::signature::Signature;

    #[test]
    fn every_catalogue_signature_parses() {
        let catalogue = Catalogue::naoqi();
        assert!(catalogue.modules().len() >= 15);
        for module in catalogue.modules() {
            assert!(!module.methods.is_empty(), "{}", module.name);
            for m in &module.methods {
                assert!(
                    Signature::parse(m.params).is_ok_and(|s| s.fields().is_some()),
                    "{}.{}{}",
                    module.name,
                    m.name,
                    m.params
                );
                assert!(
                    Signature::parse(m.returns).is_ok(),
                    "{}.{} returns {}",
                    module.name,
                    m.name,
                    m.returns
                );
            }
        }
        for (name, params, returns) in MODULE_BASE {
            assert!(Signature::parse(params).is_ok(), "{name}");
            assert!(Signature::parse(returns).is_ok(), "{name}");
        }
    }
}
