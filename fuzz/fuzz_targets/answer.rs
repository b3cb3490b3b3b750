//! libFuzzer entry for the `answer` target; the target itself is `pruefstein_fuzz::targets::answer`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pruefstein_fuzz::targets::answer(data));
