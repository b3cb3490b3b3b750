//! A module's fingerprint for similarity hints to teachers: each function body reduced to the
//! sequence of its operators' names (immediates dropped: constants, local and global indices,
//! called functions, memory offsets, branch depths), hashed, and the set of those hashes. Renaming
//! functions or locals and changing constants leave it unchanged; reordering functions too, since
//! it is a set. It is read with `wasmparser` and never compiled; a module that cannot be read has
//! none.
//!
//! Submitted source has a token fingerprint instead ([`source_fingerprint`]): identifiers, numbers
//! and strings become their kind, and the hashes of every run of [`SOURCE_SHINGLE_TOKENS`] tokens
//! form the set, so renaming variables and changing constants leave it unchanged as well.

use std::collections::BTreeSet;

use sha2::{Digest, Sha256};
use wasmparser::{Parser, Payload};

use crate::limits::{
    FINGERPRINT_FUNCTIONS_MAX, FINGERPRINT_OPERATORS_PER_FUNCTION_MAX, FINGERPRINT_SOURCE_TOKENS_MAX,
};

/// Tokens in one shingle of a source fingerprint.
pub(crate) const SOURCE_SHINGLE_TOKENS: usize = 5;

/// Python's keywords (and the constants a program spells as words): kept as they are, since they
/// carry the program's shape, while every other name becomes `ID`.
const KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "break", "class", "continue", "def", "del", "elif",
    "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal",
    "not", "or", "pass", "raise", "return", "try", "while", "with", "yield",
];

/// The token fingerprint of source text: the sorted set of the hashes of every run of
/// [`SOURCE_SHINGLE_TOKENS`] tokens, names, numbers and strings replaced by their kind, comments
/// dropped. Empty for a text with fewer tokens than a shingle.
pub(crate) fn source_fingerprint(text: &str) -> Vec<u64> {
    let mut tokens: Vec<String> = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(&c) = chars.peek() {
        if tokens.len() >= FINGERPRINT_SOURCE_TOKENS_MAX {
            break;
        }
        if c.is_whitespace() {
            chars.next();
        } else if c == '#' {
            while chars.next_if(|&c| c != '\n').is_some() {}
        } else if c.is_alphabetic() || c == '_' {
            let mut word = String::new();
            while let Some(c) = chars.next_if(|&c| c.is_alphanumeric() || c == '_') {
                word.push(c);
            }
            tokens.push(if KEYWORDS.contains(&word.as_str()) { word } else { "ID".into() });
        } else if c.is_ascii_digit() {
            while chars.next_if(|&c| c.is_alphanumeric() || c == '.' || c == '_').is_some() {}
            tokens.push("NUM".into());
        } else if c == '"' || c == '\'' {
            chars.next();
            let mut escaped = false;
            for d in chars.by_ref() {
                if escaped {
                    escaped = false;
                } else if d == '\\' {
                    escaped = true;
                } else if d == c || d == '\n' {
                    break;
                }
            }
            tokens.push("STR".into());
        } else {
            chars.next();
            tokens.push(c.to_string());
        }
    }
    let mut hashes = BTreeSet::new();
    for shingle in tokens.windows(SOURCE_SHINGLE_TOKENS) {
        let mut hash = Sha256::new();
        for token in shingle {
            hash.update(token.as_bytes());
            hash.update([0]);
        }
        let digest = hash.finalize();
        let mut first = [0u8; 8];
        first.copy_from_slice(&digest[..8]);
        hashes.insert(u64::from_le_bytes(first));
    }
    hashes.into_iter().collect()
}

/// The sorted set of function-body hashes of `bytes` (binary wasm or WebAssembly text), or none
/// if it is not a module that can be read.
pub(crate) fn fingerprint(bytes: &[u8]) -> Option<Vec<u64>> {
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

    const SOURCE: &str = "import sqlite3\n\ndef verarbeite(con, msg):\n    # dedup first\n    try:\n        with con:\n            con.execute('INSERT INTO gesehen VALUES (?)', (msg['id'],))\n            con.execute('UPDATE punkte SET stand = stand + ? WHERE kunde = ?', (msg['body']['punkte'], 1))\n        return True\n    except sqlite3.IntegrityError:\n        return False\n";

    #[test]
    fn a_source_keeps_its_fingerprint_when_renamed_or_reworded_and_changes_with_its_shape() {
        let base = source_fingerprint(SOURCE);
        assert!(base.len() > 20, "{}", base.len());
        let renamed = SOURCE
            .replace("con", "db")
            .replace("msg", "nachricht")
            .replace("'id'", "\"ident\"")
            .replace(", 1)", ", 42)")
            .replace("# dedup first", "# anders kommentiert");
        assert_eq!(source_fingerprint(&renamed), base);
        // The same lines without the transaction: a different program.
        let other = SOURCE
            .replace("        with con:\n", "")
            .replace("            con.execute", "        con.execute");
        let changed = source_fingerprint(&other);
        let shared = base.iter().filter(|h| changed.contains(h)).count();
        assert!(shared < base.len() && shared > 0, "{shared} of {}", base.len());
        assert!(source_fingerprint("x").is_empty());
    }

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
