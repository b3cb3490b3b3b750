//! A module's fingerprint for similarity hints to teachers: each function body reduced to the
//! sequence of its operators' names (immediates dropped: constants, local and global indices,
//! called functions, memory offsets, branch depths), hashed, and the set of those hashes. Renaming
//! functions or locals and changing constants leave it unchanged; reordering functions too, since
//! it is a set. It is read with `wasmparser` and never compiled; a module that cannot be read has
//! none.

use std::collections::BTreeSet;

use sha2::{Digest, Sha256};
use wasmparser::{Parser, Payload};

/// Operators read per function body; the rest of a longer body does not change its fingerprint.
pub const FINGERPRINT_OPERATORS_PER_FUNCTION_MAX: usize = 100_000;
/// Function bodies fingerprinted per module.
pub const FINGERPRINT_FUNCTIONS_MAX: usize = 10_000;

/// The sorted set of function-body hashes of `bytes` (binary wasm or WebAssembly text), or none
/// if it is not a module that can be read.
pub fn fingerprint(bytes: &[u8]) -> Option<Vec<u64>> {
    if bytes.len() > crate::limits::MODULE_BYTES_MAX {
        return None;
    }
    let binary = wat::parse_bytes(bytes).ok()?;
    let mut hashes = BTreeSet::new();
    let mut functions = 0usize;
    for payload in Parser::new(0).parse_all(&binary) {
        let Payload::CodeSectionEntry(body) = payload.ok()? else { continue };
        functions += 1;
        if functions > FINGERPRINT_FUNCTIONS_MAX {
            break;
        }
        let mut hash = Sha256::new();
        let mut reader = body.get_operators_reader().ok()?;
        let mut operators = 0usize;
        while !reader.eof() && operators < FINGERPRINT_OPERATORS_PER_FUNCTION_MAX {
            let operator = reader.read().ok()?;
            // The Debug form is `Name { immediates }` or `Name`: the name alone.
            let debug = format!("{operator:?}");
            let name = debug.split([' ', '{', '(']).next().unwrap_or_default();
            hash.update(name.as_bytes());
            hash.update([0]);
            operators += 1;
        }
        let digest = hash.finalize();
        let mut first = [0u8; 8];
        first.copy_from_slice(&digest[..8]);
        hashes.insert(u64::from_le_bytes(first));
    }
    Some(hashes.into_iter().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    const MODULE: &str = r#"(module
        (func $inc (param $x i32) (result i32) (i32.add (local.get $x) (i32.const 1)))
        (func $twice (param $y i32) (result i32) (i32.mul (local.get $y) (i32.const 2)))
        (func (export "run") (result i32) (call $inc (i32.const 5))))"#;

    #[test]
    fn renaming_and_constants_do_not_change_it_other_code_does() {
        let base = fingerprint(MODULE.as_bytes()).unwrap();
        let renamed =
            MODULE.replace("$inc", "$plus_one").replace("$x", "$n").replace("i32.const 5", "i32.const 77");
        assert_eq!(fingerprint(renamed.as_bytes()).unwrap(), base);
        let other = MODULE.replace("i32.mul", "i32.sub");
        let changed = fingerprint(other.as_bytes()).unwrap();
        assert_ne!(changed, base);
        // Two of the three functions are the same.
        assert_eq!((base.len(), changed.len()), (3, 3));
        assert_eq!(base.iter().filter(|h| changed.contains(h)).count(), 2);
        assert_eq!(fingerprint(b"not a module"), None);
    }
}
