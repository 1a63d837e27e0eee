//! What the stack brings (behavior-stack.md §10): the dispatchers and `Wait`, the built-in
//! conditions, and the leaves that act through the robot (robot calls, `PlayChoregraphe`).

pub mod conditions;
pub mod dispatch;
pub mod robot;
