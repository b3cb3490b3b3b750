//! The compile budget: counts a module's functions, locals, code, data and section entries with
//! `wasmparser` *before* wasmtime compiles it, and rejects a module over a limit with the limit's
//! name. Compiling costs time and memory in proportion to these counts (a 16 KB module can declare
//! millions of locals, a 2 MB module 400,000 functions), so they are bounded where reading them is
//! cheap: the parser reads section headers and the locals of each body, nothing is compiled.

use wasmparser::{Parser, Payload};

use crate::limits::Limits;
use crate::report::Rejection;
use crate::text::Text;

/// One count of a module that is over its limit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OverBudget {
    /// The limit's key in `[limits]` (e.g. `wasm_functions`).
    pub key: &'static str,
    pub name: Text,
    pub have: u64,
    pub max: u64,
}

impl OverBudget {
    pub(crate) fn rejection(&self) -> Rejection {
        Rejection {
            code: "compile-budget".into(),
            message: Text {
                de: format!(
                    "Das Modul überschreitet die Grenze „{}“ ({}): es hat {}, erlaubt sind höchstens {}. Es wird \
                     nicht übersetzt. Baue es mit Optimierung (z. B. -O2), ohne Debug-Informationen und ohne \
                     unnötig viele Funktionen oder lokale Variablen.",
                    self.name.de, self.key, self.have, self.max
                ),
                en: format!(
                    "The module exceeds the limit \"{}\" ({}): it has {}, at most {} are allowed. It is not \
                     compiled. Build it with optimisation (e.g. -O2), without debug info and without \
                     needlessly many functions or local variables.",
                    self.name.en, self.key, self.have, self.max
                ),
            },
        }
    }
}

/// A module binary the parser cannot read: the message of its first error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Malformed(pub String);

/// Checks the binary module `wasm` against the compile budget in `limits`. Stops at the first count
/// over its limit, before reading the rest.
pub fn check(wasm: &[u8], limits: &Limits) -> Result<Result<(), OverBudget>, Malformed> {
    let mut locals_total: u64 = 0;
    for payload in Parser::new(0).parse_all(wasm) {
        let payload = payload.map_err(|e| Malformed(e.to_string()))?;
        let over = match payload {
            Payload::TypeSection(s) => over("wasm_types", s.count().into(), limits.wasm_types.into()),
            Payload::ImportSection(s) => over("wasm_imports", s.count().into(), limits.wasm_imports.into()),
            Payload::FunctionSection(s) => {
                over("wasm_functions", s.count().into(), limits.wasm_functions.into())
            }
            Payload::TableSection(s) => over("wasm_tables", s.count().into(), limits.wasm_tables.into()),
            Payload::GlobalSection(s) => over("wasm_globals", s.count().into(), limits.wasm_globals.into()),
            Payload::ExportSection(s) => over("wasm_exports", s.count().into(), limits.wasm_exports.into()),
            Payload::ElementSection(s) => {
                over("wasm_element_segments", s.count().into(), limits.wasm_element_segments.into())
            }
            Payload::DataCountSection { count, .. } => {
                over("wasm_data_segments", count.into(), limits.wasm_data_segments.into())
            }
            Payload::DataSection(s) => {
                match over("wasm_data_segments", s.count().into(), limits.wasm_data_segments.into()) {
                    Some(over) => Some(over),
                    None => {
                        let mut bytes: u64 = 0;
                        for segment in s {
                            let segment = segment.map_err(|e| Malformed(e.to_string()))?;
                            bytes = bytes.saturating_add(segment.data.len() as u64);
                        }
                        over("wasm_data_bytes", bytes, limits.wasm_data_bytes.into())
                    }
                }
            }
            Payload::CodeSectionStart { count, size, .. } => {
                over("wasm_functions", count.into(), limits.wasm_functions.into())
                    .or_else(|| over("wasm_code_bytes", size.into(), limits.wasm_code_bytes.into()))
            }
            Payload::CodeSectionEntry(body) => {
                let size = body.range().len() as u64;
                let mut locals: u64 = 0;
                let mut reader = body.get_locals_reader().map_err(|e| Malformed(e.to_string()))?;
                for _ in 0..reader.get_count() {
                    let (count, _) = reader.read().map_err(|e| Malformed(e.to_string()))?;
                    locals = locals.saturating_add(count.into());
                    // A function declares its locals in runs; stop counting at the first run over.
                    if locals > limits.wasm_locals_per_function.into() {
                        break;
                    }
                }
                locals_total = locals_total.saturating_add(locals);
                over("wasm_function_body_bytes", size, limits.wasm_function_body_bytes.into())
                    .or_else(|| {
                        over("wasm_locals_per_function", locals, limits.wasm_locals_per_function.into())
                    })
                    .or_else(|| over("wasm_locals_total", locals_total, limits.wasm_locals_total))
            }
            _ => None,
        };
        if let Some(over) = over {
            return Ok(Err(over));
        }
    }
    Ok(Ok(()))
}

fn over(key: &'static str, have: u64, max: u64) -> Option<OverBudget> {
    (have > max).then(|| OverBudget { key, name: limit_name(key), have, max })
}

/// The name of a compile-budget limit, as a student reads it.
fn limit_name(key: &str) -> Text {
    let (de, en) = match key {
        "wasm_functions" => ("Funktionen pro Modul", "functions per module"),
        "wasm_locals_per_function" => ("lokale Variablen pro Funktion", "locals per function"),
        "wasm_locals_total" => ("lokale Variablen im ganzen Modul", "locals in the whole module"),
        "wasm_code_bytes" => ("Größe des Codes", "code size"),
        "wasm_function_body_bytes" => ("Größe einer Funktion", "size of one function"),
        "wasm_data_bytes" => ("Größe der Daten-Segmente", "size of the data segments"),
        "wasm_types" => ("Typen pro Modul", "types per module"),
        "wasm_imports" => ("Importe pro Modul", "imports per module"),
        "wasm_exports" => ("Exporte pro Modul", "exports per module"),
        "wasm_globals" => ("globale Variablen pro Modul", "globals per module"),
        "wasm_tables" => ("Tabellen pro Modul", "tables per module"),
        "wasm_element_segments" => ("Element-Segmente pro Modul", "element segments per module"),
        "wasm_data_segments" => ("Daten-Segmente pro Modul", "data segments per module"),
        other => (other, other),
    };
    Text { de: de.into(), en: en.into() }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wat(text: &str) -> Vec<u8> {
        wat::parse_str(text).expect("valid WAT")
    }

    #[test]
    fn a_small_module_is_within_budget() {
        let module = wat("(module (memory 1) (func (local i32 i64)) (data (i32.const 0) \"hi\"))");
        assert_eq!(check(&module, &Limits::default()), Ok(Ok(())));
    }

    #[test]
    fn each_count_is_named_when_over() {
        let limits = Limits {
            wasm_locals_per_function: 3,
            wasm_functions: 2,
            wasm_data_bytes: 4,
            wasm_globals: 1,
            ..Limits::default()
        };
        let cases = [
            ("(module (func (local i32 i32 i32 i32)))", "wasm_locals_per_function", 4),
            ("(module (func) (func) (func))", "wasm_functions", 3),
            ("(module (memory 1) (data (i32.const 0) \"0123456789\"))", "wasm_data_bytes", 10),
            ("(module (global i32 (i32.const 0)) (global i32 (i32.const 0)))", "wasm_globals", 2),
        ];
        for (text, key, have) in cases {
            let over = check(&wat(text), &limits).expect("readable").expect_err(key);
            assert_eq!((over.key, over.have), (key, have), "{text}");
            assert!(over.rejection().message.en.contains(&over.name.en), "{text}");
        }
    }

    #[test]
    fn locals_are_summed_over_the_module() {
        let limits = Limits { wasm_locals_total: 5, ..Limits::default() };
        let module = wat("(module (func (local i32 i32 i32)) (func (local i64 i64 i64)))");
        let over = check(&module, &limits).expect("readable").expect_err("over");
        assert_eq!((over.key, over.have), ("wasm_locals_total", 6));
    }

    #[test]
    fn garbage_is_malformed_not_a_panic() {
        assert!(check(b"\0asm\x01\0\0\0\x03\xff\xff\xff\xff\x0f", &Limits::default()).is_err());
    }
}
