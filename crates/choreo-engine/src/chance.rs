//! The run's chance as box code draws it. Each whole-number draw of box code's `random`
//! (`randint`, `choice`, `shuffle`, ...: one draw among `of` outcomes each) is counted,
//! the run's first being draw 1, and traced (`chance`, docs/trace.md). A run may set the
//! outcome of given draws ([`crate::Options::chance`], a scenario's `chance`): so that
//! `choreo explore` can try the other faces of a die the seed would never show, and the
//! scenario it writes replays the one it chose. The count lives with the seed, on the time
//! base a nested run shares, so that the numbers are the run's whoever draws.

use std::collections::BTreeMap;
use std::sync::Mutex;

use choreo_base::lock;

/// The outcomes set by the run, and the draws made so far.
#[derive(Default)]
pub struct Chance {
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// Draw number → outcome.
    set: BTreeMap<u64, u64>,
    /// Draws made.
    drawn: u64,
}

/// One draw: its number in the run, how many outcomes it had, the one it took.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Draw {
    /// The run's first draw is 1.
    pub number: u64,
    /// How many outcomes it had (`randint(1, 6)`: 6).
    pub of: u64,
    /// The outcome taken, in `0..of`.
    pub outcome: u64,
}

impl Chance {
    /// Sets the outcome of draws by number (replacing those set before).
    pub fn set(&self, outcomes: BTreeMap<u64, u64>) {
        lock(&self.state).set = outcomes;
    }

    /// The next draw, among `of` outcomes, whose generator gave `drew`: the outcome set for
    /// its number when there is one and it is among `of` (a draw whose outcomes changed
    /// since the scenario was written keeps the generator's), else `drew`.
    pub fn draw(&self, of: u64, drew: u64) -> Draw {
        let mut state = lock(&self.state);
        state.drawn += 1;
        let number = state.drawn;
        let outcome = match state.set.get(&number) {
            Some(&set) if set < of => set,
            _ => drew,
        };
        Draw {
            number,
            of,
            outcome,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_are_numbered_and_take_the_outcomes_set_for_them() {
        let chance = Chance::default();
        chance.set(BTreeMap::from([(2, 5), (3, 9)]));
        let draws: Vec<(u64, u64)> = [(6, 1), (6, 1), (6, 1), (6, 1)]
            .into_iter()
            .map(|(of, drew)| chance.draw(of, drew))
            .map(|d| (d.number, d.outcome))
            .collect();
        // Draw 2 takes its 5; draw 3's 9 is no face of a die: the generator's 1 stands.
        assert_eq!(draws, [(1, 1), (2, 5), (3, 1), (4, 1)]);
    }
}
