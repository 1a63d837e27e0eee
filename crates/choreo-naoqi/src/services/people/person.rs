//! The person the simulated robot sees, as ALFaceCharacteristics reads them: their face
//! (`face.rs` writes its properties to ALMemory). A scenario's `face` sets it; `choreo
//! explore` tries each other where box code analyzes a face.

use serde::{Deserialize, Serialize};

/// A person's gender as ALFaceCharacteristics tells it (alfacecharacteristics-api.html,
/// GenderProperties: "either 0 for female or 1 for male").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Gender {
    /// 0; the default: the page's first.
    #[default]
    Female,
    /// 1.
    Male,
}

/// The five expressions ExpressionProperties scores, in its order (alfacecharacteristics-
/// api.html: "[neutral, happy, surprised, angry or sad]").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Expression {
    /// The default: a face at rest.
    #[default]
    Neutral,
    /// Smiling.
    Happy,
    /// Surprised.
    Surprised,
    /// Angry.
    Angry,
    /// Sad.
    Sad,
}

impl Expression {
    /// Every expression, in ExpressionProperties' order.
    pub const ALL: [Expression; 5] = [
        Expression::Neutral,
        Expression::Happy,
        Expression::Surprised,
        Expression::Angry,
        Expression::Sad,
    ];
}

/// The face of the person the simulated robot sees: what ALFaceCharacteristics reads from
/// it. A scenario's `face: {gender: male, expression: happy}`; `choreo explore` tries each
/// other where box code analyzes a face.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Face {
    /// Female or male.
    pub gender: Gender,
    /// The expression it wears.
    pub expression: Expression,
}

/// How sure the simulated robot is of what it reads on a face in front of it: sure enough
/// for every threshold the stock boxes use (Get Gender's and Get Expression's "Confidence
/// Threshold" default to 0.6).
const CONFIDENCE: f64 = 0.9;

/// A person's age as the simulated robot reads it (years, in the page's [0, 75]).
const AGE: f64 = 30.0;

impl Face {
    /// Its properties as ALFaceCharacteristics writes them: age [years, confidence],
    /// gender [0 female or 1 male, confidence], expression (one score per expression, summing
    /// to 1), smile [degree 0..1, confidence] (a happy face smiles).
    pub(crate) fn properties(self) -> [(&'static str, Vec<f64>); 4] {
        let gender = match self.gender {
            Gender::Female => 0.0,
            Gender::Male => 1.0,
        };
        let expression = Expression::ALL
            .iter()
            .map(|e| if *e == self.expression { 1.0 } else { 0.0 })
            .collect();
        let smile = if self.expression == Expression::Happy {
            0.8
        } else {
            0.0
        };
        [
            ("AgeProperties", vec![AGE, CONFIDENCE]),
            ("GenderProperties", vec![gender, CONFIDENCE]),
            ("ExpressionProperties", expression),
            ("SmileProperties", vec![smile, CONFIDENCE]),
        ]
    }
}
