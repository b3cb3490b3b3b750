//! Tests of the ABI table: it names each import once, its types are the host functions' types, and
//! `graders/consumer/ABI.md` lists exactly its imports.

use super::IMPORTS;
use crate::sandbox::ImportSpec;

const ABI_MD: &str = include_str!("../../../graders/consumer/ABI.md");

/// The imports `ABI.md` documents: every table row of its "Imports" section whose first cell is
/// a `module.name`, with the number of parameters its signature lists and whether it returns.
fn documented() -> Vec<(String, usize, bool)> {
    let start = ABI_MD.find("## Imports").expect("ABI.md has an Imports section");
    let section = &ABI_MD[start..];
    let section = &section[..section[3..].find("\n## ").map_or(section.len(), |end| end + 3)];
    let mut rows = Vec::new();
    for line in section.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let [_, function, signature, ..] = cells.as_slice() else { continue };
        let (Some(function), Some(signature)) = (
            function.strip_prefix('`').and_then(|f| f.strip_suffix('`')),
            signature.strip_prefix('`').and_then(|s| s.strip_suffix('`')),
        ) else {
            continue;
        };
        if !function.contains('.') {
            continue;
        }
        let inside = signature.split_once(')').map_or("", |(params, _)| params.trim_start_matches('('));
        let params = if inside.trim().is_empty() { 0 } else { inside.split(',').count() };
        rows.push((function.to_string(), params, signature.contains("->")));
    }
    rows
}

#[test]
fn abi_md_lists_exactly_the_tables_imports() {
    let table: Vec<(String, usize, bool)> = IMPORTS
        .iter()
        .map(|ImportSpec { module, name, params, results }| {
            (format!("{module}.{name}"), params.len(), !results.is_empty())
        })
        .collect();
    assert_eq!(documented(), table, "ABI.md's import rows (name, parameters, returns) against the table");
}

/// A module that imports every function of the table with the types the table declares; with
/// `first_result`, the first import gets that result type instead (wrong on purpose).
fn importing_all(first_result: Option<&str>) -> Vec<u8> {
    let kind = |k: &crate::sandbox::ValKind| format!("{k:?}").to_ascii_lowercase();
    let mut wat = String::from("(module");
    for (i, spec) in IMPORTS.iter().enumerate() {
        let params: Vec<String> = spec.params.iter().map(kind).collect();
        let mut results: Vec<String> = spec.results.iter().map(kind).collect();
        if let (0, Some(wrong)) = (i, first_result) {
            results = vec![wrong.to_string()];
        }
        wat.push_str(&format!(
            " (import \"{}\" \"{}\" (func (param {}) (result {})))",
            spec.module,
            spec.name,
            params.join(" "),
            results.join(" ")
        ));
    }
    wat.push(')');
    wat::parse_str(&wat).expect("valid wat")
}

/// The types the table declares (which the validator checks a module's imports against) are
/// the types of the host functions the linkers define: a module importing every function as
/// the table says links with both linkers, and one with a wrong type does not.
#[test]
fn the_tables_types_are_the_host_functions_types() {
    let engine = crate::sandbox::engine(crate::exercise::Compiler::Winch).expect("engine");
    let module = wasmtime::Module::new(engine, importing_all(None)).expect("module");
    super::linker(engine).instantiate_pre(&module).expect("links as the table says");
    super::interleaving_linker(engine).instantiate_pre(&module).expect("links when interleaved");
    let wrong = wasmtime::Module::new(engine, importing_all(Some("f64"))).expect("module");
    assert!(super::linker(engine).instantiate_pre(&wrong).is_err(), "a wrong type must not link");
}

#[test]
fn the_table_names_each_import_once() {
    for (i, a) in IMPORTS.iter().enumerate() {
        for b in &IMPORTS[i + 1..] {
            assert!((a.module, a.name) != (b.module, b.name), "{}.{} twice", a.module, a.name);
        }
    }
}
