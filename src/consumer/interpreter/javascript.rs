//! Consumers in JavaScript: the QuickJS-ng guest
//! (`graders/consumer/interpreters/javascript/javascript.wasm`, built reproducibly by the
//! `build.sh` beside it) runs a student's `consumer.js`, an ES module whose
//! `export function verarbeite(db, msg)` gets a database as Node's `node:sqlite` `DatabaseSync`
//! (see the guest's `glue/sqlite.js`). How the guest is started and loaded is
//! [`super::interpreter`]'s.

use super::Interpreter;
use crate::limits::{JAVASCRIPT_FUEL_TO_INIT, JAVASCRIPT_FUEL_TO_LOAD};
use crate::report::Rejection;
use crate::submission::Language;
use crate::text;

/// The interpreter guest, as built by `graders/consumer/interpreters/javascript/build.sh`.
pub(crate) const JAVASCRIPT_WASM: &[u8] =
    include_bytes!("../../../graders/consumer/interpreters/javascript/javascript.wasm");

/// The modules a student's file may import (anything else is refused at load, naming it).
pub(crate) const IMPORTS_ALLOWED: &[&str] = &["node:sqlite"];

pub(crate) static INTERPRETER: Interpreter = Interpreter {
    language: Language::JavaScript,
    name: "JavaScript",
    file: "consumer.js",
    wasm: JAVASCRIPT_WASM,
    fuel_to_load: JAVASCRIPT_FUEL_TO_LOAD,
    fuel_to_init: JAVASCRIPT_FUEL_TO_INIT,
    load_rejection,
};

/// The rejection for a file that threw while loading: an import outside [`IMPORTS_ALLOWED`] is
/// named; anything else shows the interpreter's error with its stack.
pub(crate) fn load_rejection(error: &str) -> Rejection {
    let first = error.lines().next().unwrap_or("").trim();
    if let Some(rest) = first.split_once("import not allowed: '").map(|(_, rest)| rest) {
        let module = rest.split('\'').next().unwrap_or(rest);
        let allowed = IMPORTS_ALLOWED.join(", ");
        return Rejection {
            code: "import-not-allowed".into(),
            message: text!(
                "Der Import „{module}“ ist nicht erlaubt: ein Konsument braucht nur {allowed}.",
                "The import \"{module}\" is not allowed: a consumer needs only {allowed}."
            ),
        };
    }
    if first.starts_with("SyntaxError") {
        return Rejection {
            code: "javascript-syntax-error".into(),
            message: text!(
                "Die Datei ist kein gültiges JavaScript: {error}",
                "The file is not valid JavaScript: {error}"
            ),
        };
    }
    Rejection {
        code: "javascript-load-error".into(),
        message: text!(
            "Beim Laden der Datei trat ein Fehler auf: {error}",
            "Loading the file raised an error: {error}"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refused_import_is_named_and_other_errors_keep_their_stack() {
        let rejection = load_rejection(
            "ReferenceError: import not allowed: 'fs' (a consumer may import only node:sqlite)",
        );
        assert_eq!(rejection.code, "import-not-allowed");
        assert!(rejection.message.en.contains("\"fs\""), "{}", rejection.message.en);
        let rejection =
            load_rejection("SyntaxError: unexpected token in expression: ')'\n    at consumer.js:3:9");
        assert_eq!(rejection.code, "javascript-syntax-error");
        assert!(rejection.message.en.contains("consumer.js:3"));
    }
}
