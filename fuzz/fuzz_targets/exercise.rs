//! libFuzzer entry for the `exercise` target; the target itself is `pruefstein_fuzz::targets::exercise`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pruefstein_fuzz::targets::exercise(data));
