//! The architecture's rules that the compiler alone does not hold, checked on the sources:
//! `unsafe` only in the two crates that own it (every other crate forbids it), no file-level
//! import cycles inside any crate (brace-grouped imports included), no egui below the UI
//! crate, and the UI crate's rooms: at most 25 files at its root, `ViewerApp` in at most 12
//! fields, no function over 120 lines, no zstd among its dependencies.

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

/// Every `crate::a::b` / `super::a` / `self::a` path in `code`, as segments after the
/// keyword; a brace group names one path per leaf (`use super::{a, b::{c, self}}`: `a`, `b::c`
/// and `b`).
fn paths_in(code: &str) -> Vec<(String, Vec<String>)> {
    let bytes = code.as_bytes();
    let mut out = Vec::new();
    for keyword in ["crate", "super", "self"] {
        let mut from = 0;
        while let Some(at) = code[from..].find(keyword) {
            let start = from + at;
            from = start + keyword.len();
            let before_ok = start == 0
                || !(bytes[start - 1].is_ascii_alphanumeric()
                    || bytes[start - 1] == b'_'
                    || bytes[start - 1] == b':');
            let Some(rest) = code[from..].strip_prefix("::") else {
                continue;
            };
            if !before_ok {
                continue;
            }
            let mut paths = Vec::new();
            use_tree(&[], rest, &mut paths);
            out.extend(paths.into_iter().map(|p| (keyword.to_string(), p)));
        }
    }
    out
}

/// Reads the path or use-tree at the start of `text` (just after a `::`) below `prefix`:
/// `a::b`, `{a, b::{c, self}}`, `*`, `x as y`; pushes the path of every leaf to `out` and
/// returns how many bytes it read.
fn use_tree(prefix: &[String], text: &str, out: &mut Vec<Vec<String>>) -> usize {
    let skip = |s: &str| s.len() - s.trim_start().len();
    let mut at = skip(text);
    if let Some(group) = text[at..].strip_prefix('{') {
        at += 1;
        let mut rest = group;
        loop {
            let ws = skip(rest);
            rest = &rest[ws..];
            at += ws;
            if rest.starts_with('}') {
                return at + 1;
            }
            if rest.is_empty() {
                return at;
            }
            let read = use_tree(prefix, rest, out).max(1);
            rest = &rest[read..];
            at += read;
            let ws = skip(rest);
            rest = &rest[ws..];
            at += ws;
            if let Some(after) = rest.strip_prefix(',') {
                rest = after;
                at += 1;
            }
        }
    }
    if text[at..].starts_with('*') {
        out.push(prefix.to_vec());
        return at + 1;
    }
    let ident = text[at..]
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(text.len() - at);
    if ident == 0 {
        if !prefix.is_empty() {
            out.push(prefix.to_vec());
        }
        return at;
    }
    let name = &text[at..at + ident];
    at += ident;
    let mut path = prefix.to_vec();
    if name != "self" {
        path.push(name.to_string());
    }
    match text[at..].strip_prefix("::") {
        Some(rest) => at + 2 + use_tree(&path, rest, out),
        None => {
            out.push(path);
            // `x as y`: the alias names nothing new.
            let after = &text[at..];
            let ws = skip(after);
            match after[ws..].strip_prefix("as ") {
                Some(alias) => {
                    let ws2 = skip(alias);
                    let len = alias[ws2..]
                        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                        .unwrap_or(alias.len() - ws2);
                    at + ws + 3 + ws2 + len
                }
                None => at,
            }
        }
    }
}

/// The file-level import graph of one crate: module → modules it names.
fn import_graph(krate: &str) -> BTreeMap<String, BTreeSet<String>> {
    let src = crates_dir().join(krate).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let sources: Vec<(Vec<String>, String)> = files
        .iter()
        .map(|f| {
            let code = code_of(&fs::read_to_string(f).unwrap());
            (module_of(&src, f), code)
        })
        .collect();
    graph_of(&sources)
}

/// The import graph of modules given as `(module path, code without comments)`.
fn graph_of(sources: &[(Vec<String>, String)]) -> BTreeMap<String, BTreeSet<String>> {
    let modules: BTreeSet<String> = sources.iter().map(|(m, _)| m.join("::")).collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (segments, code) in sources {
        let name = segments.join("::");
        let edges = graph.entry(name.clone()).or_default();
        for (keyword, mut path) in paths_in(code) {
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
                modules.contains(&key).then_some(key)
            });
            if let Some(target) = target.filter(|t| *t != name) {
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
fn the_import_reader_reads_brace_groups() {
    let code = "use super::{a, b as c};\nuse crate::x::{y, z::{w, self}, q::*};\nuse self::m::{\n    n,\n    o::P,\n};\nfn f() { crate::g::h(1); super::super::k::L::<u8>::new(); }";
    let mut found: Vec<String> = paths_in(code)
        .into_iter()
        .map(|(k, p)| format!("{k}::{}", p.join("::")))
        .collect();
    found.sort();
    assert_eq!(
        found,
        [
            "crate::g::h",
            "crate::x::q",
            "crate::x::y",
            "crate::x::z",
            "crate::x::z::w",
            "self::m::n",
            "self::m::o::P",
            "super::a",
            "super::b",
            "super::super::k::L",
        ]
    );
}

#[test]
fn a_cycle_through_brace_groups_is_found() {
    let module = |path: &str, code: &str| {
        let segments = path.split("::").map(str::to_string).collect::<Vec<_>>();
        (segments, code.to_string())
    };
    let sources = vec![
        module("room::a", "use super::{b, c};"),
        module("room::b", "use crate::room::{a::Thing, c};"),
        module("room::c", "pub struct C;"),
    ];
    let graph = graph_of(&sources);
    assert_eq!(
        cycles(&graph),
        vec![vec!["room::a".to_string(), "room::b".to_string()]]
    );
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

/// `text` with the contents of comments, strings and character literals blanked (newlines
/// kept), so that braces in them do not count.
fn blank_literals(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let blank = |s: &str, out: &mut String| {
        out.extend(s.chars().map(|c| if c == '\n' { '\n' } else { ' ' }));
    };
    let mut i = 0;
    while i < bytes.len() {
        let rest = &text[i..];
        let ident_before = i > 0 && (bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_');
        let end = if rest.starts_with("//") {
            rest.find('\n').unwrap_or(rest.len())
        } else if rest.starts_with("/*") {
            rest.find("*/").map_or(rest.len(), |e| e + 2)
        } else if !ident_before && (rest.starts_with("r\"") || rest.starts_with("r#")) {
            let hashes = rest[1..].bytes().take_while(|&b| b == b'#').count();
            if rest[1 + hashes..].starts_with('"') {
                let close = format!("\"{}", "#".repeat(hashes));
                rest[2 + hashes..]
                    .find(&close)
                    .map_or(rest.len(), |e| 2 + hashes + e + close.len())
            } else {
                0
            }
        } else if rest.starts_with('"') {
            let mut j = 1;
            while j < rest.len() && rest.as_bytes()[j] != b'"' {
                j += if rest.as_bytes()[j] == b'\\' { 2 } else { 1 };
            }
            (j + 1).min(rest.len())
        } else if let Some(body) = rest.strip_prefix('\'') {
            // A character literal (`'{'`, `'\''`, `'\u{7b}'`), not a lifetime (`'a`).
            let len = if body.starts_with('\\') {
                body.find('\'').filter(|&e| e > 1).map(|e| e + 2)
            } else {
                body.chars()
                    .next()
                    .filter(|c| body[c.len_utf8()..].starts_with('\''))
                    .map(|c| c.len_utf8() + 2)
            };
            len.unwrap_or(0)
        } else {
            0
        };
        if end > 0 {
            blank(&rest[..end], &mut out);
            i += end;
        } else {
            let c = rest.chars().next().unwrap();
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// Every function with a body in `text`: its name and how many lines it spans, from the
/// line of `fn` to the line of its closing brace.
fn function_lengths(text: &str) -> Vec<(String, usize)> {
    let code = blank_literals(text);
    let bytes = code.as_bytes();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = code[from..].find("fn ") {
        let start = from + at;
        from = start + 3;
        if start > 0 && (bytes[start - 1].is_ascii_alphanumeric() || bytes[start - 1] == b'_') {
            continue;
        }
        let name_len = code[from..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(0);
        if name_len == 0 {
            continue;
        }
        let name = code[from..from + name_len].to_string();
        // The body's `{`, unless a `;` ends a declaration first.
        let Some(open) = code[from..].find(['{', ';']).map(|k| from + k) else {
            break;
        };
        if bytes[open] == b';' {
            continue;
        }
        let mut depth = 0usize;
        let mut close = code.len();
        for (k, &b) in bytes[open..].iter().enumerate() {
            match b {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        close = open + k;
                        break;
                    }
                }
                _ => {}
            }
        }
        let first = code[..start].matches('\n').count();
        let last = code[..close].matches('\n').count();
        out.push((name, last - first + 1));
    }
    out
}

/// The fields of `pub struct NAME { … }` in `text`.
fn struct_fields(text: &str, name: &str) -> Vec<String> {
    let code = blank_literals(text);
    let head = format!("pub struct {name} {{");
    let Some(at) = code.find(&head) else {
        return Vec::new();
    };
    let body = &code[at + head.len()..];
    let mut fields = Vec::new();
    let mut depth = 0i32;
    for line in body.lines() {
        let trimmed = line.trim_start();
        if depth == 0 {
            let unvisibled = trimmed
                .strip_prefix("pub")
                .map_or(trimmed, |r| match r.trim_start().strip_prefix('(') {
                    Some(scoped) => scoped.split_once(')').map_or(r, |(_, after)| after),
                    None => r,
                })
                .trim_start();
            let ident = unvisibled
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(0);
            let after = &unvisibled[ident..];
            if ident > 0 && after.starts_with(':') && !after.starts_with("::") {
                fields.push(unvisibled[..ident].to_string());
            }
        }
        let mut previous = ' ';
        for c in line.chars() {
            match c {
                '{' | '(' | '<' | '[' => depth += 1,
                // `->` in a function pointer's type closes nothing.
                '>' if previous == '-' => {}
                '}' | ')' | '>' | ']' => depth -= 1,
                _ => {}
            }
            previous = c;
        }
        if depth < 0 {
            break;
        }
    }
    fields
}

fn ui_src() -> PathBuf {
    crates_dir().join("ui").join("src")
}

/// The most `.rs` files at the UI crate's root: concepts live in folders.
const UI_ROOT_FILES: usize = 25;
/// The most fields of `ViewerApp`: a few owned parts.
const VIEWER_APP_FIELDS: usize = 12;
/// The longest function allowed in the UI crate, in lines.
const UI_FUNCTION_LINES: usize = 120;

#[test]
fn the_ui_crate_keeps_its_rooms() {
    let root: Vec<String> = fs::read_dir(ui_src())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "rs"))
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert!(
        root.len() <= UI_ROOT_FILES,
        "{} files at crates/ui/src (at most {UI_ROOT_FILES}; put concepts in folders): {root:?}",
        root.len()
    );
    let app = fs::read_to_string(ui_src().join("app.rs")).unwrap();
    let fields = struct_fields(&app, "ViewerApp");
    assert!(
        (1..=VIEWER_APP_FIELDS).contains(&fields.len()),
        "ViewerApp has {} fields (1 to {VIEWER_APP_FIELDS}; group them in owned parts): {fields:?}",
        fields.len()
    );
    let mut files = Vec::new();
    rust_files(&ui_src(), &mut files);
    let mut long = Vec::new();
    for file in files {
        let text = fs::read_to_string(&file).unwrap();
        for (name, lines) in function_lengths(&text) {
            if lines > UI_FUNCTION_LINES {
                long.push(format!("{}: {name} ({lines} lines)", file.display()));
            }
        }
    }
    assert!(
        long.is_empty(),
        "UI functions over {UI_FUNCTION_LINES} lines: {long:?}"
    );
    let manifest = fs::read_to_string(crates_dir().join("ui/Cargo.toml")).unwrap();
    assert!(
        !manifest.lines().any(|l| l.trim_start().starts_with("zstd")),
        "crates/ui/Cargo.toml names zstd: saving a log is the store's work"
    );
}

#[test]
fn the_room_checks_measure_what_they_say() {
    // A function of 121 lines whose strings and characters hold braces, and a short one.
    let body = "    let s = \"}}}\";\n".repeat(119);
    let text = format!(
        "fn long() {{\n{body}}}\nfn short(c: char) -> bool {{ c == '}}' || c == '{{' }}\nfn decl();\n// fn commented() {{}}\nconst F: fn() = || {{}};\n"
    );
    let lengths = function_lengths(&text);
    assert_eq!(
        lengths,
        vec![("long".to_string(), 121), ("short".to_string(), 1)]
    );
    // Thirteen fields, some with generics, a function pointer, a type over several lines.
    let fields: String = (0..11)
        .map(|k| format!("    pub(crate) f{k}: Option<Vec<u8>>,\n"))
        .collect();
    let text = format!(
        "pub struct ViewerApp {{\n{fields}    /// doc: not a field\n    h: fn() -> u8,\n    g: std::collections::HashMap<\n        String,\n        u8,\n    >,\n}}\nstruct Other {{ a: u8 }}\n"
    );
    let found = struct_fields(&text, "ViewerApp");
    assert_eq!(found.len(), 13, "{found:?}");
    assert_eq!(found.last().map(String::as_str), Some("g"));
}
