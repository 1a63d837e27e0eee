//! NAOqi's core modules: ALMemory, ALSystem, ALLogger, ALServiceManager, PackageManager,
//! ALPreferenceManager, ALBehaviorManager, ALTabletService, ALWorldRepresentation,
//! ALPythonBridge, and ALConnectionManager (documented on a page of its own in NAOqi).

pub(crate) mod behaviors;
pub(crate) mod connection;
pub(crate) mod criterion;
pub(crate) mod logger;
pub(crate) mod memory;
pub(crate) mod package_manager;
pub(crate) mod preferences;
pub(crate) mod python_bridge;
pub(crate) mod service_manager;
pub(crate) mod system;
pub(crate) mod tablet;
pub(crate) mod video_player;
pub(crate) mod world;
