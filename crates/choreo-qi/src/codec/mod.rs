//! What goes on the wire: bytes to messages and values and back.
//!
//! - [`header`]: the 28-byte header, message types and flags; [`message`]: framing and ids;
//!   `reader`: messages read from a stream.
//! - [`signature`]: type signatures; [`value`]: the binary codec between signatures and
//!   [`choreo_base::Value`]; [`metaobject`]: MetaObjects and object references;
//!   [`directory`]: the ServiceDirectory's API and `ServiceInfo`.

pub mod directory;
pub mod header;
pub mod message;
pub mod metaobject;
pub(crate) mod reader;
pub mod signature;
pub mod value;
