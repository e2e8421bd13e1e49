//! `src/selfplay/` drawn from its own `use` lines: its parts import downward only — the YAML
//! (`config/`, and each recipe's `settings.rs` beside its recipe, with its `settings/`), then
//! `telemetry/`, then the run (`run/`: the one session), then `distributed/`, then the recipes
//! (`recipes/`) — and no two files import each other, however far round
//! (docs/architecture.md).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The rank of a file of `src/selfplay/` (path relative to it, `/`-separated; `""` is
/// `src/selfplay.rs`): a file imports from its own rank or below.
fn rank(file: &str) -> usize {
    let first = file.split(['/', '.']).next().unwrap_or("");
    let recipe_settings = file.starts_with("recipes/")
        && (file.ends_with("/settings.rs") || file.contains("/settings/"));
    match first {
        _ if recipe_settings => 0,
        "config" => 0,
        "telemetry" => 1,
        "run" => 2,
        "distributed" => 3,
        "recipes" => 4,
        _ => 5,
    }
}

/// Every `.rs` file under `dir`, as paths relative to `base` with `/`.
fn files_under(dir: &Path, base: &Path, out: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files_under(&path, base, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let relative = path.strip_prefix(base).unwrap().to_string_lossy();
            out.push(relative.replace('\\', "/"));
        }
    }
}

/// The code of a file without its comments and its `#[cfg(test)]` module.
fn code_of(text: &str) -> String {
    let code: String = text
        .lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .map(|line| format!("{line}\n"))
        .collect();
    match code.find("#[cfg(test)]") {
        Some(at) => code[..at].to_string(),
        None => code,
    }
}

/// The module paths (`run::session::Session`) `code` names after `prefix`, braces opened:
/// `prefix{a::X, b}` names `a::X` and `b`.
fn paths_after(code: &str, prefix: &str) -> Vec<String> {
    let is_path = |c: char| c.is_alphanumeric() || c == '_' || c == ':';
    let mut paths = Vec::new();
    for (at, _) in code.match_indices(prefix) {
        if code[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let rest = &code[at + prefix.len()..];
        let head: String = rest.chars().take_while(|&c| is_path(c)).collect();
        let after = &rest[head.len()..];
        match after.strip_prefix('{') {
            Some(group) => {
                let group = &group[..group.find('}').unwrap_or(group.len())];
                for item in group.split(',') {
                    let item: String = item.trim().chars().take_while(|&c| is_path(c)).collect();
                    paths.push(format!("{head}{item}"));
                }
            }
            None => paths.push(head.trim_end_matches(':').to_string()),
        }
    }
    paths
}

/// The file of `src/selfplay/` a module path names (the longest prefix that is a file).
fn file_of(module: &str, files: &BTreeSet<String>) -> Option<String> {
    let parts: Vec<&str> = module.split("::").filter(|p| !p.is_empty()).collect();
    (1..=parts.len())
        .rev()
        .map(|n| format!("{}.rs", parts[..n].join("/")))
        .find(|candidate| files.contains(candidate))
}

/// Each file's imports of other files of `src/selfplay/` (`crate::selfplay::`, `super::`,
/// `self::` paths).
fn imports(base: &Path, files: &BTreeSet<String>) -> BTreeMap<String, BTreeSet<String>> {
    let mut graph = BTreeMap::new();
    for file in files {
        let path = match file.as_str() {
            "selfplay.rs" => base.parent().unwrap().join("selfplay.rs"),
            _ => base.join(file),
        };
        let code = code_of(&std::fs::read_to_string(path).unwrap());
        let module: Vec<&str> = match file.as_str() {
            "selfplay.rs" => Vec::new(),
            _ => file.trim_end_matches(".rs").split('/').collect(),
        };
        let parent = module[..module.len().saturating_sub(1)].join("::");
        let mut named: Vec<String> = paths_after(&code, "crate::selfplay::");
        named.extend(
            paths_after(&code, "super::")
                .into_iter()
                .map(|p| format!("{parent}::{p}")),
        );
        named.extend(
            paths_after(&code, "self::")
                .into_iter()
                .map(|p| format!("{}::{p}", module.join("::"))),
        );
        let targets = named
            .iter()
            .filter_map(|m| file_of(m, files))
            .filter(|target| target != file)
            .collect();
        graph.insert(file.clone(), targets);
    }
    graph
}

/// A circle of imports through `from`, if any (depth-first).
fn circle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|p| p == node) {
            return Some(path[at..].to_vec());
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(found) = visit(next, graph, path, done) {
                return Some(found);
            }
        }
        path.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|start| visit(start, graph, &mut Vec::new(), &mut done))
}

#[test]
fn the_parsing_finds_paths_in_braces_and_circles_however_long() {
    assert_eq!(
        paths_after(
            "use crate::selfplay::run::{session::Session, dir_lock};",
            "crate::selfplay::"
        ),
        ["run::session::Session", "run::dir_lock"]
    );
    let files: BTreeSet<String> = ["run/session.rs", "run.rs"].map(String::from).into();
    assert_eq!(
        file_of("run::session::Session", &files).as_deref(),
        Some("run/session.rs")
    );
    let graph: BTreeMap<String, BTreeSet<String>> = [
        ("a", vec!["b"]),
        ("b", vec!["c"]),
        ("c", vec!["a"]),
        ("d", vec!["a"]),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.into_iter().map(String::from).collect()))
    .collect();
    assert_eq!(
        circle(&graph),
        Some(vec!["a".into(), "b".into(), "c".into()])
    );
    let mut acyclic = graph.clone();
    acyclic.get_mut("c").unwrap().clear();
    assert_eq!(circle(&acyclic), None);
    assert!(rank("recipes/exit/settings.rs") < rank("run/session.rs"));
    assert!(rank("recipes/athenan/settings/replay.rs") < rank("run/session.rs"));
    assert!(rank("run/session.rs") < rank("recipes/athenan/self_play.rs"));
    assert!(rank("run/session.rs") < rank("recipes/athenan.rs"));
}

/// The house drawn true: no import upward between `selfplay/`'s parts, no circle of imports.
#[test]
fn selfplay_imports_downward_only_and_in_no_circle() {
    let base = Path::new(ROOT).join("src/selfplay");
    let mut listed = vec!["selfplay.rs".to_string()];
    files_under(&base, &base, &mut listed);
    let files: BTreeSet<String> = listed.into_iter().collect();
    let graph = imports(&base, &files);
    assert!(
        graph["recipes/athenan/local.rs"].contains("recipes/athenan.rs")
            && graph["recipes/athenan/local.rs"].contains("recipes/athenan/game_pool.rs"),
        "the imports are read: {:?}",
        graph["recipes/athenan/local.rs"]
    );
    let upward: Vec<String> = graph
        .iter()
        .flat_map(|(file, targets)| {
            targets
                .iter()
                .filter(|target| rank(target) > rank(file))
                .map(move |target| format!("{file} imports {target}"))
        })
        .collect();
    assert!(upward.is_empty(), "upward imports:\n{}", upward.join("\n"));
    if let Some(found) = circle(&graph) {
        panic!("a circle of imports: {}", found.join(" → "));
    }
}
