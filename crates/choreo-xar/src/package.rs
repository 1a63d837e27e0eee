//! Project files: `.pml`, `manifest.xml`, `.dlg` and `.top`.
