//! The readable split format: one folder per box, TOML metadata, `.py` scripts, text links.
