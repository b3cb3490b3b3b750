//! Consumers in Python: the MicroPython guest (`graders/consumer/interpreters/python/python.wasm`,
//! built reproducibly by the `build.sh` beside it) runs a student's `consumer.py`, whose
//! `verarbeite(con, msg)` gets a `sqlite3` connection as CPython 3.11's (see the guest's
//! `glue/sqlite3.py`). How the guest is started and loaded is [`super::interpreter`]'s.

use super::Interpreter;
use crate::limits::{PYTHON_FUEL_TO_INIT, PYTHON_FUEL_TO_LOAD};
use crate::report::Rejection;
use crate::submission::Language;
use crate::text;

/// The interpreter guest, as built by `graders/consumer/interpreters/python/build.sh`.
pub(crate) const PYTHON_WASM: &[u8] =
    include_bytes!("../../../graders/consumer/interpreters/python/python.wasm");

/// The modules a student's file may import (what the guest has built in; any other import fails
/// at load and is refused naming it).
pub(crate) const IMPORTS_ALLOWED: &[&str] = &["sqlite3", "json", "math", "collections", "io"];

pub(crate) static INTERPRETER: Interpreter = Interpreter {
    language: Language::Python,
    name: "Python",
    file: "consumer.py",
    wasm: PYTHON_WASM,
    fuel_to_load: PYTHON_FUEL_TO_LOAD,
    fuel_to_init: PYTHON_FUEL_TO_INIT,
    load_rejection,
};

/// The rejection for a file that raised while loading: an import outside
/// [`IMPORTS_ALLOWED`] is named; anything else shows the interpreter's traceback.
pub(crate) fn load_rejection(traceback: &str) -> Rejection {
    let last = traceback.lines().last().unwrap_or("").trim();
    if let Some(rest) = last.strip_prefix("ImportError: no module named ") {
        let module = rest.trim_matches('\'');
        let allowed = IMPORTS_ALLOWED.join(", ");
        return Rejection {
            code: "import-not-allowed".into(),
            message: text!(
                "Der Import „{module}“ ist nicht erlaubt: ein Konsument braucht nur {allowed}.",
                "The import \"{module}\" is not allowed: a consumer needs only {allowed}."
            ),
        };
    }
    if last.starts_with("SyntaxError") || last.starts_with("IndentationError") {
        return Rejection {
            code: "python-syntax-error".into(),
            message: text!(
                "Die Datei ist kein gültiges Python: {traceback}",
                "The file is not valid Python: {traceback}"
            ),
        };
    }
    Rejection {
        code: "python-load-error".into(),
        message: text!(
            "Beim Laden der Datei trat ein Fehler auf: {traceback}",
            "Loading the file raised an error: {traceback}"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refused_import_is_named_and_other_errors_keep_their_traceback() {
        let rejection =
            load_rejection("Traceback (most recent call last):\nImportError: no module named 'os'");
        assert_eq!(rejection.code, "import-not-allowed");
        assert!(rejection.message.en.contains("\"os\""));
        let rejection = load_rejection("  File \"consumer.py\", line 1\nSyntaxError: invalid syntax");
        assert_eq!(rejection.code, "python-syntax-error");
        assert!(rejection.message.en.contains("line 1"));
    }
}
