//! libFuzzer entry for the `guest` target; the target itself is `pruefstein_fuzz::targets::guest`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pruefstein_fuzz::targets::guest(data));
