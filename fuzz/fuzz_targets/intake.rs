//! libFuzzer entry for the `intake` target; the target itself is `pruefstein_fuzz::targets::intake`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pruefstein_fuzz::targets::intake(data));
