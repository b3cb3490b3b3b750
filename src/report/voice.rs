//! The words a consumer report uses for what the student wrote: a Python consumer returns `True`,
//! raises an exception and opens its transaction with `with con:`; a JavaScript consumer returns
//! `true`, throws and calls `db.prepare(…).run(…)`; a compiled module speaks ABI v1 (return codes,
//! `db.exec`). Every text that names a return value, an error or a statement asks its [`Voice`].

use serde::{Deserialize, Serialize};

use crate::text::Text;

/// Whose words a report speaks: the language the student wrote the consumer in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Voice {
    /// A compiled module (WAT, C, AssemblyScript, Zig, Rust): ABI v1's words.
    #[default]
    Module,
    Python,
    /// JavaScript, and TypeScript (which runs as the JavaScript it becomes).
    JavaScript,
}

impl Voice {
    /// The voice of a source file by its name in the report (`consumer.py`, `consumer.js`).
    pub(crate) fn of_file(file: &str) -> Voice {
        if file.ends_with(".py") {
            Voice::Python
        } else if file.ends_with(".js") || file.ends_with(".ts") {
            Voice::JavaScript
        } else {
            Voice::Module
        }
    }

    /// The value that means "processed", as the student writes it: `True`, `true`, `1`.
    pub(crate) fn processed(self) -> Text {
        Text::same(match self {
            Voice::Module => "1",
            Voice::Python => "`True`",
            Voice::JavaScript => "`true`",
        })
    }

    /// The value that means "duplicate, already processed": `False`, `false`, `0`.
    pub(crate) fn duplicate(self) -> Text {
        Text::same(match self {
            Voice::Module => "0",
            Voice::Python => "`False`",
            Voice::JavaScript => "`false`",
        })
    }

    /// How a delivery that ended with `value` ended: "gab `True` zurück", "ließ eine Ausnahme
    /// durch", "gab 2 zurück".
    pub(crate) fn ended(self, value: i32) -> Text {
        match (self, value) {
            (_, 1) => {
                let v = self.processed();
                Text { de: format!("gab {} zurück", v.de), en: format!("returned {}", v.en) }
            }
            (_, 0) => {
                let v = self.duplicate();
                Text { de: format!("gab {} zurück", v.de), en: format!("returned {}", v.en) }
            }
            (Voice::Python, _) => Text::new("ließ eine Ausnahme durch", "let an exception through"),
            (Voice::JavaScript, _) => Text::new("warf einen Fehler", "threw an error"),
            (Voice::Module, v) => Text { de: format!("gab {v} zurück"), en: format!("returned {v}") },
        }
    }

    /// What to do so that an error reaches the queue: "lass die Ausnahme durch".
    pub(crate) fn raise(self) -> Text {
        match self {
            Voice::Module => {
                Text::new("gib einen Wert ungleich 0 und 1 zurück", "return a value other than 0 and 1")
            }
            Voice::Python => Text::new(
                "lass die Ausnahme durch (kein `except`, das sie verschluckt)",
                "let the exception through (no `except` that swallows it)",
            ),
            Voice::JavaScript => Text::new(
                "wirf den Fehler weiter (`throw`, kein `catch`, das ihn verschluckt)",
                "let the error through (`throw`, no `catch` that swallows it)",
            ),
        }
    }

    /// How the student puts two writes into one transaction.
    pub(crate) fn transaction(self) -> Text {
        match self {
            Voice::Module => Text::new(
                "ein `BEGIN` vor dem ersten Schreibzugriff, ein `COMMIT` nach dem letzten",
                "one `BEGIN` before the first write, one `COMMIT` after the last",
            ),
            Voice::Python => Text::new(
                "beide `con.execute(…)` in einem `with con:`-Block, ohne `con.commit()` dazwischen",
                "both `con.execute(…)` in one `with con:` block, without `con.commit()` between them",
            ),
            Voice::JavaScript => Text::new(
                "`db.exec(\"BEGIN\")` vor dem ersten Schreibzugriff, `db.exec(\"COMMIT\")` nach dem letzten",
                "`db.exec(\"BEGIN\")` before the first write, `db.exec(\"COMMIT\")` after the last",
            ),
        }
    }

    /// How to end a transaction after an error was caught.
    pub(crate) fn close(self) -> Text {
        match self {
            Voice::Module => Text::new(
                "Rolle die Transaktion mit `ROLLBACK` zurück, bevor du zurückkehrst.",
                "Roll the transaction back with `ROLLBACK` before you return.",
            ),
            Voice::Python => Text::new(
                "sqlite3 öffnet vor dem ersten Schreibzugriff selbst eine Transaktion (ein implizites BEGIN); nach einem abgefangenen Fehler ist sie noch offen. Schreibe den Block in `with con:`, das bei einem Fehler selbst zurückrollt, oder rufe `con.rollback()` im `except`-Zweig auf.",
                "sqlite3 opens a transaction by itself before the first write (an implicit BEGIN); after a caught error it is still open. Write the block inside `with con:`, which rolls back by itself on an error, or call `con.rollback()` in the `except` branch.",
            ),
            Voice::JavaScript => Text::new(
                "Rolle die Transaktion im `catch`-Zweig mit `db.exec(\"ROLLBACK\")` zurück, bevor du zurückkehrst.",
                "Roll the transaction back with `db.exec(\"ROLLBACK\")` in the `catch` branch before you return.",
            ),
        }
    }

    /// A statement as the student wrote it: `con.execute("…", (7,))`, `db.prepare("…").run(7)`,
    /// or ABI v1's `db.exec …` for a module. `query` is a statement that reads a row.
    pub(crate) fn statement(self, call: &str, sql: &str, params: &[String], query: bool) -> String {
        let quoted = sql.replace('"', "\\\"");
        match self {
            Voice::Module => {
                let mut line = format!("{call} {sql}");
                if !params.is_empty() {
                    line.push_str(&format!("  [{}]", params.join(", ")));
                }
                line
            }
            Voice::Python => match params.len() {
                0 => format!("con.execute(\"{quoted}\")"),
                1 => format!("con.execute(\"{quoted}\", ({},))", params[0]),
                _ => format!("con.execute(\"{quoted}\", ({}))", params.join(", ")),
            },
            Voice::JavaScript => {
                if params.is_empty() && !query {
                    format!("db.exec(\"{quoted}\")")
                } else {
                    let method = if query { "get" } else { "run" };
                    format!("db.prepare(\"{quoted}\").{method}({})", params.join(", "))
                }
            }
        }
    }

    /// The error a failed statement raises in the student's language, before SQLite's own message:
    /// `IntegrityError`, `SqliteError`; for a module the ABI status in words.
    pub(crate) fn statement_error(self, status: i32) -> Text {
        use super::consumer::status;
        match self {
            Voice::Python => Text::same(match status {
                status::DUPLICATE | status::CONSTRAINT => "IntegrityError",
                _ => "OperationalError",
            }),
            Voice::JavaScript => Text::same("SqliteError"),
            Voice::Module => match status {
                status::DUPLICATE => Text::new("1 Duplikat", "1 duplicate"),
                status::CONSTRAINT => Text::new("2 Bedingung verletzt", "2 constraint"),
                status::NO_ROW => Text::new("4 keine Zeile", "4 no row"),
                other => Text { de: format!("{other} Fehler"), en: format!("{other} error") },
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_voice_names_returns_and_statements_in_its_own_words() {
        assert_eq!(Voice::Python.ended(1).de, "gab `True` zurück");
        assert_eq!(Voice::JavaScript.ended(0).en, "returned `false`");
        assert_eq!(Voice::Module.ended(2).de, "gab 2 zurück");
        assert_eq!(Voice::Python.ended(2).en, "let an exception through");
        let params = ["7".to_string()];
        assert_eq!(
            Voice::Python.statement("db.exec", "INSERT INTO t VALUES (?)", &params, false),
            "con.execute(\"INSERT INTO t VALUES (?)\", (7,))"
        );
        assert_eq!(
            Voice::JavaScript.statement("db.exec", "INSERT INTO t VALUES (?)", &params, false),
            "db.prepare(\"INSERT INTO t VALUES (?)\").run(7)"
        );
        assert_eq!(Voice::JavaScript.statement("db.exec", "BEGIN", &[], false), "db.exec(\"BEGIN\")");
        assert_eq!(Voice::Module.statement("db.exec", "BEGIN", &[], false), "db.exec BEGIN");
        assert_eq!(Voice::of_file("consumer.py"), Voice::Python);
        assert_eq!(Voice::of_file("consumer.js"), Voice::JavaScript);
    }
}
