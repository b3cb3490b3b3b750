//! The layers of the code, checked: which top-level module may use which, and where the heavy
//! external crates may appear. `cargo test --lib layers` reads the sources under `src/` and fails on
//! a use the table below does not allow, and on any circle between top-level modules, naming it.
//! `ARCHITECTURE.md` draws the same table as a picture; change both together.
//!
//! A use is any `crate::<module>` path in code (comments are skipped), including grouped imports
//! (`use crate::{a, b}`) and `super::` paths that climb to the crate root.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Each top-level module and the modules it may use. Lower layers come first; a module may use
/// only modules listed before it, so the table itself has no circle.
const LAYERS: &[(&str, &[&str])] = &[
    // The core: plain data and the interfaces, no grader, no sandbox, no service.
    ("text", &[]),
    ("limits", &[]),
    ("submission", &["limits", "text"]),
    ("sim", &["limits", "text"]),
    ("deadline", &["limits", "text"]),
    ("report", &["limits", "sim", "text"]),
    ("exercise", &["limits", "report", "submission", "text"]),
    ("grade", &["exercise", "limits", "report", "submission"]),
    // The WebAssembly sandbox: engines, validation, memory and compile budgets.
    ("sandbox", &["exercise", "limits", "report", "text"]),
    // The graders: each on the core, the simulation and the sandbox, never on each other.
    (
        "consumer",
        &["deadline", "exercise", "grade", "limits", "report", "sandbox", "sim", "submission", "text"],
    ),
    ("prediction", &["deadline", "exercise", "grade", "limits", "report", "sim", "submission", "text"]),
    // The one list of grader kinds, and what works on any exercise.
    ("graders", &["consumer", "exercise", "prediction"]),
    ("check", &["exercise", "graders"]),
    ("authoring", &["check", "exercise", "graders", "submission", "text"]),
    ("isolation", &["exercise", "grade", "graders", "limits", "report", "sandbox", "submission", "text"]),
    // The programs on top.
    (
        "service",
        &[
            "check",
            "deadline",
            "exercise",
            "grade",
            "graders",
            "isolation",
            "limits",
            "report",
            "submission",
            "text",
        ],
    ),
    (
        "cli",
        &[
            "authoring",
            "check",
            "exercise",
            "grade",
            "graders",
            "isolation",
            "limits",
            "report",
            "service",
            "submission",
            "text",
        ],
    ),
];

/// External crates that only some modules may use: the sandbox and the consumer grader run
/// WebAssembly; the service is the only HTTP and async code (and LTI's JWTs and keys); scripts are
/// the prediction grader's. libc is for the grading processes' operating-system limits, for the
/// open flags that read an exercise folder without following a link or waiting on a named pipe,
/// and for the sandbox's copy-on-write memory images (`memfd_create`, `mmap`).
const CRATES: &[(&str, &[&str])] = &[
    ("wasmtime", &["sandbox", "consumer"]),
    ("wasmparser", &["sandbox"]),
    ("rhai", &["prediction"]),
    ("actix_web", &["service"]),
    ("actix_multipart", &["service"]),
    ("tokio", &["service"]),
    ("rusqlite", &["sandbox", "consumer", "service"]),
    ("libc", &["isolation", "exercise", "sandbox"]),
    ("ureq", &["service"]),
    ("prometheus_client", &["service"]),
    ("figment", &["service"]),
    ("tracing_subscriber", &["service"]),
    ("maud", &["report", "service"]),
    ("jsonwebtoken", &["service"]),
];

/// External crates that only one module below the top level may use (its path from `src/`): the
/// PostgreSQL client, its pool and its TLS (rustls) are the store's, behind the backend-neutral
/// `Store` trait; the RSA implementation and PEM are the LTI tool key's.
const CRATES_BELOW: &[(&str, &[&str])] = &[
    ("tokio_postgres", &["service", "store"]),
    ("deadpool_postgres", &["service", "store"]),
    ("tokio_rustls", &["service", "store"]),
    ("rustls", &["service", "store"]),
    ("aws_lc_rs", &["service", "lti"]),
    ("pem", &["service", "lti"]),
];

/// Whether `code` names the crate `name` (`name::…`, not as a segment of another path).
fn uses_crate(code: &str, name: &str) -> bool {
    let pattern = format!("{name}::");
    let mut rest = code;
    while let Some(at) = rest.find(&pattern) {
        if at == 0 || !rest[..at].ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == ':') {
            return true;
        }
        rest = &rest[at + pattern.len()..];
    }
    false
}

/// The code of a line: empty for a comment line, without a trailing `//` comment outside quotes.
fn code_of(line: &str) -> &str {
    let trimmed = line.trim_start();
    if trimmed.starts_with("//") {
        return "";
    }
    let mut in_string = false;
    let bytes = line.as_bytes();
    for i in 0..bytes.len() {
        match bytes[i] {
            b'"' if i == 0 || bytes[i - 1] != b'\\' => in_string = !in_string,
            b'/' if !in_string && bytes.get(i + 1) == Some(&b'/') => return &line[..i],
            _ => {}
        }
    }
    line
}

/// The top-level modules a piece of code names through `crate::…`, and the crates it names.
fn names_in(
    code: &str,
    file_module: &[String],
    tops: &BTreeSet<String>,
) -> (BTreeSet<String>, BTreeSet<String>) {
    let mut modules = BTreeSet::new();
    let mut crates = BTreeSet::new();
    let word_at =
        |s: &str| s.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect::<String>();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        let before_ok = at == 0 || !rest[..at].ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_');
        let after = &rest[at + "crate::".len()..];
        if before_ok {
            if let Some(group) = after.strip_prefix('{') {
                let inner = group.split('}').next().unwrap_or("");
                for item in inner.split(',') {
                    modules.insert(word_at(item.trim()));
                }
            } else {
                modules.insert(word_at(after));
            }
        }
        rest = after;
    }
    // `super::` chains that reach the crate root name a top-level module next.
    let mut rest = code;
    while let Some(at) = rest.find("super::") {
        let mut after = &rest[at..];
        let mut depth = 0;
        while let Some(next) = after.strip_prefix("super::") {
            depth += 1;
            after = next;
        }
        if depth >= file_module.len() {
            modules.insert(word_at(after));
        }
        rest = after;
    }
    for (name, _) in CRATES {
        if uses_crate(code, name) {
            crates.insert(name.to_string());
        }
    }
    modules.retain(|m| tops.contains(m));
    (modules, crates)
}

/// Every `.rs` file below `dir`, with its module path relative to `src/`.
fn rust_files(src: &Path, dir: &Path, out: &mut Vec<(Vec<String>, String)>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut paths: Vec<_> = entries.filter_map(|e| e.ok()).map(|e| e.path()).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            rust_files(src, &path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let relative = path.strip_prefix(src).unwrap_or(&path).with_extension("");
            let mut module: Vec<String> =
                relative.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
            if module.last().is_some_and(|m| m == "mod") {
                module.pop();
            }
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            out.push((module, text));
        }
    }
}

struct Graph {
    modules: BTreeMap<String, BTreeSet<String>>,
    crates: BTreeMap<String, BTreeSet<String>>,
}

fn graph() -> Graph {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &src, &mut files);
    // `layers` names crates and modules in its tables and tests, not as uses.
    let tops: BTreeSet<String> = files
        .iter()
        .filter_map(|(m, _)| m.first().cloned())
        .filter(|m| m != "lib" && m != "main" && m != "layers")
        .collect();
    let mut graph = Graph { modules: BTreeMap::new(), crates: BTreeMap::new() };
    for (module, text) in &files {
        let Some(top) = module.first().filter(|t| tops.contains(*t)) else { continue };
        for line in text.lines() {
            let (modules, crates) = names_in(code_of(line), module, &tops);
            let entry = graph.modules.entry(top.clone()).or_default();
            entry.extend(modules.into_iter().filter(|m| m != top));
            graph.crates.entry(top.clone()).or_default().extend(crates);
        }
    }
    graph
}

/// A circle in `edges`, as the list of modules along it, if there is one.
fn find_circle(edges: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        match state.get(node) {
            Some(2) => return None,
            Some(1) => {
                let start = path.iter().position(|n| n == node).unwrap_or(0);
                let mut circle = path[start..].to_vec();
                circle.push(node.to_string());
                return Some(circle);
            }
            _ => {}
        }
        state.insert(node.to_string(), 1);
        path.push(node.to_string());
        for next in edges.get(node).into_iter().flatten() {
            if let Some(circle) = visit(next, edges, state, path) {
                return Some(circle);
            }
        }
        path.pop();
        state.insert(node.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for node in edges.keys() {
        if let Some(circle) = visit(node, edges, &mut state, &mut Vec::new()) {
            return Some(circle);
        }
    }
    None
}

/// The wings: top-level modules large enough to hold modules of their own, whose modules must not
/// use each other in a circle either. A wing's `mod.rs` is its table of contents and no node.
const WINGS: &[&str] = &["consumer", "service"];

/// The modules of `wing` (its second-level modules) and which of them each one uses, through
/// `crate::<wing>::<module>` or a `super::` chain that climbs to the wing.
fn wing_graph(wing: &str) -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &src.join(wing), &mut files);
    let members: BTreeSet<String> = files.iter().filter_map(|(m, _)| m.get(1).cloned()).collect();
    let word_at =
        |s: &str| s.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect::<String>();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, text) in &files {
        let Some(member) = module.get(1) else { continue };
        let entry = edges.entry(member.clone()).or_default();
        // A module's tests may reach any module of the wing: they are not part of its layer.
        if module.last().is_some_and(|m| m == "tests" || m.starts_with("tests_")) {
            continue;
        }
        let code = text.split("\n#[cfg(test)]\n").next().unwrap_or(text);
        for line in code.lines() {
            let code = code_of(line);
            let absolute = format!("crate::{wing}::");
            let mut named = Vec::new();
            let mut rest = code;
            while let Some(at) = rest.find(&absolute) {
                rest = &rest[at + absolute.len()..];
                match rest.strip_prefix('{') {
                    Some(group) => {
                        let inner = group.split('}').next().unwrap_or("");
                        named.extend(inner.split(',').map(|item| word_at(item.trim())));
                    }
                    None => named.push(word_at(rest)),
                }
            }
            let mut rest = code;
            while let Some(at) = rest.find("super::") {
                let mut after = &rest[at..];
                let mut depth = 0;
                while let Some(next) = after.strip_prefix("super::") {
                    depth += 1;
                    after = next;
                }
                if depth + 1 == module.len() {
                    match after.strip_prefix('{') {
                        Some(group) => {
                            let inner = group.split('}').next().unwrap_or("");
                            named.extend(inner.split(',').map(|item| word_at(item.trim())));
                        }
                        None => named.push(word_at(after)),
                    }
                }
                rest = after;
            }
            entry.extend(named.into_iter().filter(|n| n != member && members.contains(n)));
        }
    }
    edges
}

/// The groups of nodes of `edges` that reach each other (each a circle or several), each sorted.
fn circles_in(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<BTreeSet<String>> {
    let reach = |from: &str| {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from.to_string()];
        while let Some(node) = todo.pop() {
            for next in edges.get(&node).into_iter().flatten() {
                if seen.insert(next.clone()) {
                    todo.push(next.clone());
                }
            }
        }
        seen
    };
    let reached: BTreeMap<&String, BTreeSet<String>> = edges.keys().map(|n| (n, reach(n))).collect();
    let mut groups: Vec<BTreeSet<String>> = Vec::new();
    for (node, from_node) in &reached {
        if !from_node.contains(*node) || groups.iter().any(|g| g.contains(*node)) {
            continue;
        }
        let group: BTreeSet<String> = from_node
            .iter()
            .filter(|other| reached.get(other).is_some_and(|r| r.contains(*node)))
            .cloned()
            .collect();
        groups.push(group);
    }
    groups
}

#[test]
fn no_circle_between_the_modules_of_a_wing() {
    let mut problems = Vec::new();
    for wing in WINGS {
        let edges = wing_graph(wing);
        assert!(edges.len() >= 10, "the sources of {wing} were read: {:?}", edges.keys());
        for group in circles_in(&edges) {
            let names: Vec<&str> = group.iter().map(String::as_str).collect();
            problems.push(format!("{wing}: {} use each other in a circle", names.join(", ")));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The type an inherent `impl` block of `line` is for (`impl Name {`, `impl<'a> Name<'a> {`), not
/// a trait's (`impl Trait for Name`).
fn inherent_impl_of(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("impl")?;
    let rest = match rest.strip_prefix('<') {
        Some(generics) => &generics[generics.find('>')? + 1..],
        None => rest,
    };
    let rest = rest.strip_prefix(' ')?;
    if !line.trim_end().ends_with('{') || rest.contains(" for ") {
        return None;
    }
    let name = &rest[..rest.find(|c: char| !c.is_ascii_alphanumeric() && c != '_')?];
    (!name.is_empty()).then_some(name)
}

/// The struct and enum a line of code defines, if it defines one.
fn defined_type(line: &str) -> Option<&str> {
    let rest = line.trim_start();
    let rest = rest.strip_prefix("pub(crate) ").or_else(|| rest.strip_prefix("pub(super) ")).unwrap_or(rest);
    let rest = rest.strip_prefix("pub ").unwrap_or(rest);
    let rest = rest.strip_prefix("struct ").or_else(|| rest.strip_prefix("enum "))?;
    let end = rest.find(|c: char| !c.is_ascii_alphanumeric() && c != '_').unwrap_or(rest.len());
    (end > 0).then_some(&rest[..end])
}

/// A type's methods live in the top-level module that defines it: a module that adds an inherent
/// `impl` to another's type makes every caller of those methods depend on it without naming it.
#[test]
fn methods_live_with_their_type() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &src, &mut files);
    let mut defined: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, text) in &files {
        let Some(top) = module.first() else { continue };
        for line in text.lines() {
            if let Some(name) = defined_type(code_of(line)) {
                defined.entry(name.to_string()).or_default().insert(top.clone());
            }
        }
    }
    assert!(defined.contains_key("Exercise") && defined.contains_key("Report"), "the sources were read");
    let mut problems = Vec::new();
    for (module, text) in &files {
        let Some(top) = module.first().filter(|t| *t != "layers") else { continue };
        for line in text.lines() {
            let Some(name) = inherent_impl_of(code_of(line)) else { continue };
            let Some(homes) = defined.get(name) else { continue };
            if !homes.contains(top) {
                problems.push(format!("{} adds methods to {name}, a type of {homes:?}", module.join("::")));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_reader_finds_inherent_impls_and_type_definitions() {
    assert_eq!(inherent_impl_of("impl Exercise {"), Some("Exercise"));
    assert_eq!(inherent_impl_of("impl<'a> Harness<'a> {"), Some("Harness"));
    assert_eq!(inherent_impl_of("impl ToSql for SqlValue {"), None);
    assert_eq!(inherent_impl_of("impl<T: Clone> From<T> for X {"), None);
    assert_eq!(defined_type("pub struct Oracle {"), Some("Oracle"));
    assert_eq!(defined_type("pub enum Check {"), Some("Check"));
    assert_eq!(defined_type("let x = 1;"), None);
}

#[test]
fn no_circle_between_top_level_modules() {
    let graph = graph();
    assert!(graph.modules.len() >= 10, "the sources were read: {:?}", graph.modules.keys());
    if let Some(circle) = find_circle(&graph.modules) {
        panic!("top-level modules use each other in a circle: {}", circle.join(" -> "));
    }
}

#[test]
fn every_module_uses_only_the_layers_below_it() {
    let graph = graph();
    let allowed: BTreeMap<&str, &[&str]> = LAYERS.iter().copied().collect();
    let mut problems = Vec::new();
    for (module, uses) in &graph.modules {
        let Some(may) = allowed.get(module.as_str()) else {
            problems.push(format!("{module} is not in the layer table (src/layers.rs)"));
            continue;
        };
        for used in uses {
            if !may.contains(&used.as_str()) {
                problems.push(format!("{module} uses {used}, which its layer may not"));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn heavy_crates_stay_in_their_modules() {
    let graph = graph();
    let mut problems = Vec::new();
    for (module, crates) in &graph.crates {
        for name in crates {
            let allowed = CRATES.iter().find(|(c, _)| c == name).map_or(&[][..], |(_, m)| *m);
            if !allowed.contains(&module.as_str()) {
                problems.push(format!("{module} uses the crate {name}, which only {allowed:?} may"));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn database_clients_stay_in_the_store() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &src, &mut files);
    let mut problems = Vec::new();
    let mut seen = BTreeSet::new();
    for (module, text) in &files {
        if module.first().is_some_and(|m| m == "layers") {
            continue;
        }
        for (name, inside) in CRATES_BELOW {
            if text.lines().any(|line| uses_crate(code_of(line), name)) {
                seen.insert(*name);
                if !module.starts_with(&inside.iter().map(|s| s.to_string()).collect::<Vec<_>>()) {
                    problems.push(format!(
                        "{} uses the crate {name}, which only {} may",
                        module.join("::"),
                        inside.join("::")
                    ));
                }
            }
        }
    }
    assert_eq!(seen.len(), CRATES_BELOW.len(), "the sources were read: {seen:?}");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_layer_table_lists_only_modules_below() {
    let mut seen = BTreeSet::new();
    for (module, may) in LAYERS {
        for used in *may {
            assert!(seen.contains(used), "{module} may use {used}, which is not listed before it");
        }
        seen.insert(*module);
    }
}

#[test]
fn the_reader_finds_uses_in_every_form_and_skips_comments() {
    let tops: BTreeSet<String> = ["grade", "report", "sim", "text"].iter().map(|s| s.to_string()).collect();
    let here = vec!["report".to_string(), "size".to_string()];
    let (modules, _) = names_in(code_of("use crate::{grade::X, sim, text::Lang};"), &here, &tops);
    assert_eq!(modules, ["grade", "sim", "text"].iter().map(|s| s.to_string()).collect());
    let (modules, _) = names_in(code_of("/// see [`crate::grade`]"), &here, &tops);
    assert!(modules.is_empty(), "a doc comment is no use");
    let (modules, _) = names_in(code_of("let x = 1; // crate::grade"), &here, &tops);
    assert!(modules.is_empty(), "a trailing comment is no use");
    let (modules, _) = names_in(code_of("use super::super::sim::Network;"), &here, &tops);
    assert_eq!(modules, ["sim".to_string()].into_iter().collect());
    let (modules, _) = names_in(code_of("use super::state::State;"), &here, &tops);
    assert!(modules.is_empty(), "super:: within the module");
    let (_, crates) = names_in(code_of("let e = wasmtime::Engine::default();"), &here, &tops);
    assert!(crates.contains("wasmtime"));
    let (_, crates) = names_in(code_of("let s = \"http://example.org\"; x::wasmtime::y"), &here, &tops);
    assert!(crates.is_empty(), "a path segment named like a crate is not the crate");
    let mut circle = BTreeMap::new();
    circle.insert("a".to_string(), ["b".to_string()].into_iter().collect::<BTreeSet<_>>());
    circle.insert("b".to_string(), ["a".to_string()].into_iter().collect::<BTreeSet<_>>());
    assert_eq!(find_circle(&circle), Some(vec!["a".to_string(), "b".to_string(), "a".to_string()]));
}
