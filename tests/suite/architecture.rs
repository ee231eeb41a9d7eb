//! The architecture's rules that the compiler alone does not hold, checked on the sources:
//! `unsafe` only in the two crates that own it (every other crate forbids it), no file-level
//! import cycles inside any crate, and no egui below the UI crate.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The crates allowed to hold `unsafe` code (ARCHITECTURE.md says why).
const UNSAFE_CRATES: [&str; 2] = ["scan", "store"];

fn crates_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("crates")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn crate_names() -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(crates_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| crates_dir().join(n).join("src").is_dir())
        .collect();
    names.sort();
    names
}

/// The source without comments and without its `#[cfg(test)]` tail (tests may import freely).
fn code_of(text: &str) -> String {
    let text = text
        .find("#[cfg(test)]\nmod tests")
        .map_or(text, |at| &text[..at]);
    text.lines()
        .map(|l| l.find("//").map_or(l, |at| &l[..at]))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The module path of a file relative to its crate's `src` (`meter::raw`; the root is "").
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// Every `crate::a::b` / `super::a` / `self::a` path in `code`, as segments after the keyword.
fn paths_in(code: &str) -> Vec<(String, Vec<String>)> {
    let bytes = code.as_bytes();
    let mut out = Vec::new();
    for keyword in ["crate", "super", "self"] {
        let mut from = 0;
        while let Some(at) = code[from..].find(keyword) {
            let start = from + at;
            from = start + keyword.len();
            let before_ok = start == 0
                || !(bytes[start - 1].is_ascii_alphanumeric() || bytes[start - 1] == b'_');
            if !before_ok || !code[from..].starts_with("::") {
                continue;
            }
            let mut segments = Vec::new();
            let mut rest = &code[from..];
            while let Some(after) = rest.strip_prefix("::") {
                let len = after
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(after.len());
                if len == 0 {
                    break;
                }
                segments.push(after[..len].to_string());
                rest = &after[len..];
            }
            out.push((keyword.to_string(), segments));
        }
    }
    out
}

/// The file-level import graph of one crate: module → modules it names.
fn import_graph(krate: &str) -> BTreeMap<String, BTreeSet<String>> {
    let src = crates_dir().join(krate).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let modules: BTreeMap<String, (Vec<String>, bool, PathBuf)> = files
        .iter()
        .map(|f| {
            let m = module_of(&src, f);
            let is_dir_module = f
                .file_name()
                .is_some_and(|n| n == "mod.rs" || n == "lib.rs");
            (m.join("::"), (m, is_dir_module, f.clone()))
        })
        .collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (name, (segments, _, file)) in &modules {
        let code = code_of(&fs::read_to_string(file).unwrap());
        let edges = graph.entry(name.clone()).or_default();
        for (keyword, mut path) in paths_in(&code) {
            let mut base: Vec<String> = match keyword.as_str() {
                "crate" => Vec::new(),
                "super" => segments[..segments.len().saturating_sub(1)].to_vec(),
                _ => segments.clone(),
            };
            while path.first().is_some_and(|p| p == "super") {
                path.remove(0);
                base.pop();
            }
            let target = (1..=path.len()).rev().find_map(|k| {
                let mut candidate = base.clone();
                candidate.extend_from_slice(&path[..k]);
                let key = candidate.join("::");
                modules.contains_key(&key).then_some(key)
            });
            if let Some(target) = target.filter(|t| t != name) {
                edges.insert(target);
            }
        }
    }
    graph
}

/// The strongly connected components of more than one module (Tarjan).
fn cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct State<'a> {
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        found: Vec<Vec<String>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a str) {
        let i = s.index.len();
        s.index.insert(v, i);
        s.low.insert(v, i);
        s.stack.push(v);
        s.on_stack.insert(v);
        for w in s.graph.get(v).into_iter().flatten() {
            if !s.index.contains_key(w.as_str()) {
                visit(s, w);
                let low = s.low[v].min(s.low[w.as_str()]);
                s.low.insert(v, low);
            } else if s.on_stack.contains(w.as_str()) {
                let low = s.low[v].min(s.index[w.as_str()]);
                s.low.insert(v, low);
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                component.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                s.found.push(component);
            }
        }
    }
    let mut s = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for v in graph.keys() {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v);
        }
    }
    s.found
}

#[test]
fn no_file_level_import_cycles() {
    for krate in crate_names() {
        let found = cycles(&import_graph(&krate));
        assert!(
            found.is_empty(),
            "import cycles in crates/{krate}: {found:?}"
        );
    }
}

#[test]
fn the_cycle_finder_finds_a_cycle() {
    let mut graph = BTreeMap::new();
    graph.insert("a".to_string(), BTreeSet::from(["b".to_string()]));
    graph.insert("b".to_string(), BTreeSet::from(["a".to_string()]));
    graph.insert("c".to_string(), BTreeSet::from(["a".to_string()]));
    assert_eq!(cycles(&graph), vec![vec!["a".to_string(), "b".to_string()]]);
}

#[test]
fn unsafe_code_lives_only_in_scan_and_store() {
    for krate in crate_names() {
        let src = crates_dir().join(&krate).join("src");
        let lib = fs::read_to_string(src.join("lib.rs")).unwrap();
        if UNSAFE_CRATES.contains(&krate.as_str()) {
            continue;
        }
        assert!(
            lib.contains("#![forbid(unsafe_code)]"),
            "crates/{krate} does not forbid unsafe code"
        );
        let mut files = Vec::new();
        rust_files(&src, &mut files);
        for file in files {
            let code = code_of(&fs::read_to_string(&file).unwrap());
            let uses_unsafe = code.contains("unsafe {")
                || code.contains("unsafe fn")
                || code.contains("unsafe impl");
            assert!(!uses_unsafe, "{} uses unsafe", file.display());
        }
    }
    let root =
        fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/main.rs")).unwrap();
    assert!(
        root.contains("#![forbid(unsafe_code)]"),
        "the binary does not forbid unsafe code"
    );
}

#[test]
fn no_crate_below_the_ui_depends_on_egui() {
    for krate in crate_names().into_iter().filter(|k| k != "ui") {
        let manifest = fs::read_to_string(crates_dir().join(&krate).join("Cargo.toml")).unwrap();
        for needle in ["egui", "eframe", "surface-ui", "surface-cli"] {
            let depends = manifest
                .lines()
                .any(|l| l.trim_start().starts_with(needle) && l.contains('='));
            let allowed = needle == "surface-cli" && krate == "cli";
            assert!(!depends || allowed, "crates/{krate} depends on {needle}");
        }
    }
    let ui = fs::read_to_string(crates_dir().join("ui/Cargo.toml")).unwrap();
    assert!(
        !ui.lines()
            .any(|l| l.trim_start().starts_with("surface-cli")),
        "the UI depends on the CLI"
    );
}
