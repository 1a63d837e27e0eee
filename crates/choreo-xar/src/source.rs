//! Reading any source (file or folder, any format) into behaviors.
