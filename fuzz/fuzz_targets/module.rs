//! libFuzzer entry for the `module` target; the target itself is `pruefstein_fuzz::targets::module`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pruefstein_fuzz::targets::module(data));
