//! The fuzz targets as a library for the `cargo fuzz` binaries in `fuzz_targets/`. The same file
//! (`targets.rs`) is compiled into the hostile tests, which replay the corpus on stable.

pub mod targets;
