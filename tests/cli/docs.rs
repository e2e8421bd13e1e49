//! The documentation checked against the code: every configuration parses and validates, every
//! experiment plans, the key blocks of `configs/README.md` are the real defaults and it lists
//! every file; the README fits on a few screens and lists every game and command as the code
//! has them; docs/games.md holds every game's parameters with the code's defaults; docs/cli.md
//! documents every command and flag; every relative link of the README and docs/ resolves;
//! every file a doc, script or comment cites exists, and no private note is cited by number.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use descent::experiment::ExperimentConfig;
use descent::selfplay::TrainConfig;

const CONFIGS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/configs");

/// The YAML blocks of configs/README.md, in order.
fn readme_yaml_blocks() -> Vec<String> {
    let text = std::fs::read_to_string(Path::new(CONFIGS).join("README.md")).unwrap();
    text.split("```yaml\n")
        .skip(1)
        .map(|block| block.split("```").next().unwrap().to_string())
        .collect()
}

#[test]
fn every_configuration_parses_and_validates() {
    let mut files = 0;
    for entry in std::fs::read_dir(CONFIGS).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "yaml") {
            continue;
        }
        files += 1;
        let text = std::fs::read_to_string(&path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.starts_with("experiment-") {
            let config =
                ExperimentConfig::from_yaml(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
            let plan = config
                .plan("x", 2, &|base| {
                    Ok(std::fs::read_to_string(Path::new(CONFIGS).join(base))?)
                })
                .unwrap_or_else(|e| panic!("{name}: {e:#}"));
            assert!(plan.variants.len() >= 2, "{name}");
        } else {
            let config = TrainConfig::from_yaml(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
            let settings = config.validate().unwrap_or_else(|e| panic!("{name}: {e}"));
            // The paper's configurations run as the paper did: one game at a time (Remark 19).
            if name.starts_with("paper-") {
                assert_eq!(settings.run.threads, 1, "{name}");
            }
        }
    }
    assert!(files >= 6);
}

#[test]
fn the_documented_training_keys_are_the_defaults() {
    let blocks = readme_yaml_blocks();
    let documented =
        TrainConfig::from_yaml(&blocks[0]).expect("the README's training block parses");
    let defaults = TrainConfig::from_yaml("game: awale").unwrap();
    assert_eq!(documented, defaults);
}

#[test]
fn the_documented_experiment_keys_are_the_defaults() {
    let blocks = readme_yaml_blocks();
    let documented =
        ExperimentConfig::from_yaml(&blocks[1]).expect("the README's experiment block parses");
    let minimal = ExperimentConfig::from_yaml(
        "train_time: 48h\nstage_every: 1h\nvariants:\n  - name: descent-tree\n",
    )
    .unwrap();
    assert_eq!(documented, minimal);
}

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn read(relative: &str) -> String {
    std::fs::read_to_string(Path::new(ROOT).join(relative))
        .unwrap_or_else(|e| panic!("{relative}: {e}"))
}

/// The lines of the `## title` section of a Markdown text (up to the next `## `).
fn section<'a>(text: &'a str, title: &str) -> Vec<&'a str> {
    let heading = format!("## {title}");
    let mut lines = text.lines().skip_while(|l| *l != heading);
    assert!(lines.next().is_some(), "no section {heading:?}");
    lines.take_while(|l| !l.starts_with("## ")).collect()
}

#[test]
fn configs_readme_lists_every_config_file() {
    let readme = read("configs/README.md");
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(CONFIGS).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if name.ends_with(".yaml") && !readme.contains(&format!("`{name}`")) {
            missing.push(name);
        }
    }
    assert!(
        missing.is_empty(),
        "configs/README.md does not list {missing:?}"
    );
}

/// The README is the front door: at most 150 lines, and no commit ids or dates, which belong
/// with their figures in docs/benchmarks.md and the cards.
#[test]
fn the_readme_fits_on_a_few_screens_without_a_lab_notebook() {
    let readme = read("README.md");
    let lines = readme.lines().count();
    assert!(
        lines <= 150,
        "README.md has {lines} lines: details go to docs/"
    );
    let notebook: Vec<&str> = readme
        .split(|c: char| !c.is_ascii_alphanumeric() && c != '-')
        .filter(|w| {
            let commit = w.len() == 7
                && w.bytes()
                    .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
                && w.bytes().any(|b| b.is_ascii_digit())
                && w.bytes().any(|b| b.is_ascii_alphabetic());
            let date = w.len() >= 7
                && w.starts_with("20")
                && w.as_bytes().get(4) == Some(&b'-')
                && w[..4].bytes().all(|b| b.is_ascii_digit());
            commit || date
        })
        .collect();
    assert!(notebook.is_empty(), "README.md names {notebook:?}");
}

#[test]
fn the_readme_lists_every_game_as_the_registry_describes_it() {
    let readme = read("README.md");
    let listed: Vec<&str> = section(&readme, "Games")
        .into_iter()
        .filter(|l| l.starts_with("- `"))
        .collect();
    let registered: Vec<String> = descent::games::REGISTERED_GAMES
        .iter()
        .map(|g| format!("- `{}` — {}", g.name, g.description))
        .collect();
    assert_eq!(
        listed, registered,
        "the README's games list and the registry differ"
    );
}

#[test]
fn docs_games_has_every_game_and_its_parameters_with_the_codes_defaults() {
    let games = read("docs/games.md");
    let at_a_glance = section(&games, "At a glance");
    let listed: Vec<&str> = section(&games, "Parameters")
        .into_iter()
        .filter(|l| l.starts_with("- `") || l.starts_with("  - `"))
        .collect();
    let mut expected = Vec::new();
    for game in descent::games::REGISTERED_GAMES {
        let row = format!("| `{}` |", game.name);
        assert!(
            at_a_glance.iter().any(|l| l.starts_with(&row)),
            "docs/games.md's table has no row for {}",
            game.name
        );
        let none = if game.keys().is_empty() {
            "; no parameters"
        } else {
            ""
        };
        expected.push(format!("- `{}` — {}{none}", game.name, game.description));
        for (key_default, meaning) in game.params() {
            expected.push(format!("  - `{key_default}`: {meaning}"));
        }
    }
    let expected: Vec<&str> = expected.iter().map(String::as_str).collect();
    assert_eq!(
        listed, expected,
        "docs/games.md's parameters and the registry differ"
    );
}

/// Every subcommand path (`["bench", "nn"]`) with its long flags, from clap.
fn commands_and_flags() -> Vec<(Vec<String>, BTreeSet<String>)> {
    fn walk(
        command: &clap::Command,
        path: Vec<String>,
        out: &mut Vec<(Vec<String>, BTreeSet<String>)>,
    ) {
        let flags = command
            .get_arguments()
            .filter_map(|a| a.get_long())
            .filter(|l| *l != "help" && *l != "version")
            .map(|l| format!("--{l}"))
            .collect();
        if command.has_subcommands() {
            for sub in command.get_subcommands().filter(|s| s.get_name() != "help") {
                let mut sub_path = path.clone();
                sub_path.push(sub.get_name().to_string());
                walk(sub, sub_path, out);
            }
        } else {
            out.push((path, flags));
        }
    }
    let mut out = Vec::new();
    walk(&descent::cli::command(), Vec::new(), &mut out);
    out
}

#[test]
fn docs_cli_documents_every_command_and_flag() {
    let cli = read("docs/cli.md");
    let commands = commands_and_flags();
    assert!(commands.len() >= 16, "{commands:?}");
    let mut problems: Vec<String> = Vec::new();
    for (path, flags) in commands {
        let name = format!("descent {}", path.join(" "));
        // The command's sections: those whose heading names it, up to the next heading.
        let mut text = String::new();
        let mut inside = false;
        for line in cli.lines() {
            if line.starts_with("## ") {
                inside = line.contains(&format!("`{name} ")) || line.contains(&format!("`{name}`"));
                inside |= line.contains(&name) && line.contains('`');
            }
            if inside {
                text.push_str(line);
                text.push('\n');
            }
        }
        if text.is_empty() {
            problems.push(format!("no section for `{name}`"));
        }
        let missing: Vec<&String> = flags
            .iter()
            .filter(|f| !text.contains(f.as_str()))
            .collect();
        if !missing.is_empty() {
            problems.push(format!("`{name}` omits {missing:?}"));
        }
    }
    assert!(problems.is_empty(), "docs/cli.md: {}", problems.join("; "));
}

#[test]
fn the_readme_lists_every_command() {
    let readme = read("README.md");
    let table = section(&readme, "Commands").join("\n");
    for (path, _) in commands_and_flags() {
        let top = format!("`descent {}", path[0]);
        assert!(
            table.contains(&top),
            "the README's commands table omits {top}`"
        );
    }
}

#[test]
fn the_games_excerpt_of_docs_cli_is_what_descent_games_prints() {
    let cli = read("docs/cli.md");
    let excerpt: Vec<&str> = cli
        .lines()
        .skip_while(|l| *l != "$ descent games | head -3")
        .skip(1)
        .take_while(|l| !l.starts_with("```"))
        .collect();
    assert_eq!(
        excerpt.len(),
        2,
        "the excerpt after `$ descent games | head -3`"
    );
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_descent"))
        .arg("games")
        .output()
        .unwrap();
    let printed = String::from_utf8(output.stdout).unwrap();
    let first: Vec<&str> = printed.lines().take(2).collect();
    assert_eq!(excerpt, first);
}

/// GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens.
fn anchor_of(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The lines of a Markdown text outside its fenced code blocks.
fn prose_lines(text: &str) -> Vec<&str> {
    let mut fenced = false;
    text.lines()
        .filter(|line| {
            fenced ^= line.starts_with("```");
            !fenced && !line.starts_with("```")
        })
        .collect()
}

/// The anchors of a Markdown file's headings (outside code blocks).
fn anchors(text: &str) -> BTreeSet<String> {
    prose_lines(text)
        .into_iter()
        .filter(|line| line.starts_with('#'))
        .map(|line| anchor_of(line.trim_start_matches('#')))
        .collect()
}

/// The targets of a Markdown text's inline links and images, outside code.
fn link_targets(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in prose_lines(text) {
        let mut rest = line;
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(end) = after.find(')') else { break };
            out.push(after[..end].to_string());
            rest = &after[end..];
        }
    }
    out
}

/// The files of `dir` (relative to the repository) with one of `extensions`, as relative paths.
fn files_in(dir: &str, extensions: &[&str]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(Path::new(ROOT).join(dir)).unwrap() {
        let path = entry.unwrap().path();
        if path
            .extension()
            .is_some_and(|e| extensions.iter().any(|x| e == *x))
        {
            out.push(path.strip_prefix(ROOT).unwrap().to_path_buf());
        }
    }
    out
}

#[test]
fn every_relative_link_in_the_readme_and_docs_resolves() {
    let mut files: Vec<PathBuf> = vec!["README.md".into(), "configs/README.md".into()];
    files.extend(files_in("docs", &["md"]));
    let mut broken = Vec::new();
    let mut checked = 0;
    for file in &files {
        let text = read(file.to_str().unwrap());
        for target in link_targets(&text) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            checked += 1;
            let (path, anchor) = target.split_once('#').unwrap_or((&target, ""));
            let resolved = if path.is_empty() {
                file.clone()
            } else {
                file.parent().unwrap().join(path)
            };
            let full = Path::new(ROOT).join(&resolved);
            if !full.exists() {
                broken.push(format!("{}: {target} (no such file)", file.display()));
            } else if !anchor.is_empty()
                && !anchors(&read(resolved.to_str().unwrap())).contains(anchor)
            {
                broken.push(format!("{}: {target} (no such heading)", file.display()));
            }
        }
    }
    assert!(checked >= 20, "only {checked} links found");
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

/// The repository paths a text names (`src/…`, `tests/…`, `docs/…`…), wherever they appear; a
/// path cut by a wildcard or a placeholder (`requirements-*.txt`, `<game>.rs`, `GAME.yaml`,
/// `board-${name}`) and hidden files the scripts create are left out.
fn repository_paths(text: &str) -> Vec<String> {
    const ROOTS: [&str; 8] = [
        "src/",
        "tests/",
        "docs/",
        "configs/",
        "scripts/",
        "benches/",
        "data/",
        "networks/",
    ];
    let is_path_char = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '/' | '-');
    let mut out = Vec::new();
    for (at, _) in text.char_indices() {
        let before = text[..at].chars().next_back();
        // Inside a longer path, a URL or a shell variable (`$src/Solver.cpp`).
        if before.is_some_and(|c| is_path_char(c) || c == ':' || c == '$') {
            continue;
        }
        let rest = &text[at..];
        if !ROOTS.iter().any(|root| rest.starts_with(root)) {
            continue;
        }
        let end = rest.find(|c: char| !is_path_char(c)).unwrap_or(rest.len());
        // A wildcard, a placeholder, or a file the scripts create (`scripts/.venv`).
        let placeholder =
            rest[end..].starts_with(['*', '<', '{', '$']) || rest[..end].contains("GAME");
        if placeholder || rest[..end].contains("/.") {
            continue;
        }
        out.push(rest[..end].trim_end_matches(['.', ',', '-']).to_string());
    }
    out
}

/// Every file or folder the README, docs/ (but the verbatim history of old benchmark rounds),
/// configs/, the shipped networks' cards, the scripts and the code's comments name exists: a
/// file moved or renamed is renamed where it is cited too.
#[test]
fn every_path_the_docs_name_exists() {
    let mut files: Vec<PathBuf> = citing_files()
        .into_iter()
        .map(|f| f.strip_prefix(ROOT).unwrap().to_path_buf())
        .collect();
    files.retain(|f| !f.ends_with("benchmarks-history.md") && !f.ends_with("docs.rs"));
    let mut missing = Vec::new();
    let mut checked = 0;
    for file in &files {
        for path in repository_paths(&read(file.to_str().unwrap())) {
            checked += 1;
            if !Path::new(ROOT).join(&path).exists() {
                missing.push(format!("{}: {path}", file.display()));
            }
        }
    }
    assert!(checked >= 50, "only {checked} paths found");
    assert!(
        missing.is_empty(),
        "paths that do not exist:\n{}",
        missing.join("\n")
    );
}

/// The Rust files under `dir`, recursively.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out
}

/// What docs/architecture.md says a new game touches in the code, checked on every game: its
/// module is named (`<game>::`, outside comments) only in its own file, in `src/games.rs` (the
/// module and its re-export) and on one line of `src/games/registry.rs`.
#[test]
fn a_game_is_named_only_by_its_file_the_games_module_and_one_registry_line() {
    let files: Vec<PathBuf> = ["src", "benches"]
        .iter()
        .flat_map(|dir| rust_files(&Path::new(ROOT).join(dir)))
        .collect();
    let texts: Vec<(String, String)> = files
        .iter()
        .map(|p| {
            let relative = p.strip_prefix(ROOT).unwrap().to_str().unwrap().to_string();
            (relative, std::fs::read_to_string(p).unwrap())
        })
        .collect();
    let mut elsewhere = Vec::new();
    for game in descent::games::REGISTERED_GAMES {
        let own_file = format!("src/games/{}.rs", game.name);
        assert!(Path::new(ROOT).join(&own_file).exists(), "{own_file}");
        let path_of_module = format!("{}::", game.name);
        let mut registry_lines = 0;
        for (file, text) in &texts {
            let naming = text
                .lines()
                .filter(|line| !line.trim_start().starts_with("//"))
                .filter(|line| {
                    line.match_indices(&path_of_module).any(|(at, _)| {
                        !line[..at]
                            .chars()
                            .next_back()
                            .is_some_and(|c| c.is_alphanumeric() || c == '_')
                    })
                })
                .count();
            match file.as_str() {
                _ if naming == 0 => {}
                f if f == own_file || f == "src/games.rs" => {}
                "src/games/registry.rs" => registry_lines += naming,
                _ => elsewhere.push(format!("{file} names {path_of_module}")),
            }
        }
        assert_eq!(registry_lines, 1, "{}'s lines in the registry", game.name);
    }
    assert!(elsewhere.is_empty(), "{}", elsewhere.join("\n"));
}

/// Comments stay within rustfmt's 100 columns (characters, not bytes), which rustfmt does not
/// check; a Markdown table row in a doc comment may be longer.
#[test]
fn comments_stay_within_100_columns() {
    let mut long = Vec::new();
    for dir in ["src", "tests", "benches"] {
        for path in rust_files(&Path::new(ROOT).join(dir)) {
            let text = std::fs::read_to_string(&path).unwrap();
            for (number, line) in text.lines().enumerate() {
                let comment = line.trim_start();
                let table_row = comment.trim_start_matches('/').trim_start_matches('!');
                if comment.starts_with("//")
                    && !table_row.trim_start().starts_with('|')
                    && line.chars().count() > 100
                {
                    long.push(format!("{}:{}", path.display(), number + 1));
                }
            }
        }
    }
    assert!(
        long.is_empty(),
        "comments over 100 columns:\n{}",
        long.join("\n")
    );
}

/// The layers of `src/lib.rs`, lowest first; `settings` sits below them all.
const LAYERS: [&str; 9] = [
    "games",
    "search",
    "value",
    "arena",
    "learn",
    "selfplay",
    "experiment",
    "web",
    "cli",
];

/// The layers `code` (comments removed) names through `crate::` that sit above `layer`.
fn imports_from_above(layer: &str, code: &str) -> BTreeSet<String> {
    let rank = |name: &str| LAYERS.iter().position(|l| *l == name);
    let own = rank(layer).expect("a layer");
    let mut named = BTreeSet::new();
    for (k, _) in code.match_indices("crate::") {
        let rest = &code[k + "crate::".len()..];
        // `crate::{a::x, b}` names every first segment in its braces.
        let heads: Vec<&str> = match rest.strip_prefix('{') {
            Some(group) => group[..group.find('}').unwrap_or(group.len())]
                .split(',')
                .map(|item| item.trim().split("::").next().unwrap_or(""))
                .collect(),
            None => vec![
                rest.split(|c: char| !c.is_alphanumeric() && c != '_')
                    .next()
                    .unwrap(),
            ],
        };
        named.extend(
            heads
                .into_iter()
                .filter(|head| rank(head).is_some_and(|r| r > own))
                .map(str::to_string),
        );
    }
    named
}

/// `src/lib.rs`'s layer order, checked: no module imports from a layer above its own.
#[test]
fn no_layer_imports_from_a_layer_above_it() {
    // The check finds what it looks for.
    assert_eq!(
        imports_from_above(
            "search",
            "use crate::{games::Game, value::Net};\ncrate::cli::run()"
        ),
        BTreeSet::from(["cli".to_string(), "value".to_string()])
    );
    let mut upward = Vec::new();
    for layer in LAYERS {
        let src = Path::new(ROOT).join("src");
        let mut files = vec![src.join(format!("{layer}.rs"))];
        if src.join(layer).is_dir() {
            files.extend(rust_files(&src.join(layer)));
        }
        for path in files.iter().filter(|p| p.exists()) {
            let text = std::fs::read_to_string(path).unwrap();
            let code: String = text
                .lines()
                .filter(|line| !line.trim_start().starts_with("//"))
                .map(|line| format!("{line}\n"))
                .collect();
            for above in imports_from_above(layer, &code) {
                upward.push(format!("{} ({layer}) uses {above}", path.display()));
            }
        }
    }
    assert!(upward.is_empty(), "{}", upward.join("\n"));
}

/// The text files a citation may sit in: the README, docs/, configs/, networks/ and every
/// source, test, bench and script (but the recorded reference games and installed tools).
fn citing_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy();
            if name.starts_with('.') || name == "reference" || name == "__pycache__" {
                continue;
            }
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| {
                ["rs", "md", "yaml", "py", "sh", "toml", "txt"].contains(&e.to_str().unwrap())
            }) {
                out.push(path);
            }
        }
    }
    let root = Path::new(ROOT);
    let mut out = vec![root.join("README.md"), root.join(".ci/run")];
    for dir in [
        "src", "tests", "benches", "scripts", "docs", "configs", "networks",
    ] {
        walk(&root.join(dir), &mut out);
    }
    out
}

/// The Markdown file names a text cites (`docs/games.md`, `../configs/README.md`,
/// `algorithms.md`), but placeholders (`GAME.md`) and URLs.
fn cited_markdown(text: &str) -> Vec<String> {
    let is_name_char = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '/' | '-');
    let mut out = Vec::new();
    for (at, _) in text.match_indices(".md") {
        if text[at + 3..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_') {
            continue;
        }
        let start = text[..at]
            .rfind(|c: char| !is_name_char(c))
            .map_or(0, |k| k + 1);
        let name = &text[start..at + 3];
        let url = text[..start].ends_with("://") || text[..start].ends_with(':');
        let placeholder = name.contains("GAME.md") || name.starts_with("ROOT/");
        if url || placeholder || name == ".md" || name.ends_with("/.md") {
            continue;
        }
        out.push(name.to_string());
    }
    out
}

/// The lines (1-based) of `text` citing a numbered note: `seed` or `seeds/` followed by a
/// number with a leading zero.
fn notes_cited_by_number(text: &str) -> Vec<usize> {
    let lower = text.to_lowercase();
    let mut lines = Vec::new();
    for needle in ["seed 0", "seeds/0"] {
        for (at, _) in lower.match_indices(needle) {
            if lower[at + needle.len()..].starts_with(|c: char| c.is_ascii_digit()) {
                lines.push(lower[..at].matches('\n').count() + 1);
            }
        }
    }
    lines.sort_unstable();
    lines
}

/// Every Markdown file a comment, doc, script or config cites is in the repository (beside
/// the citing file, from its root, or in docs/), and no text cites the authors' private
/// notes by number: a reader can follow every citation. The examples below are assembled at
/// run time, so that this file passes its own check.
#[test]
fn every_file_a_comment_or_doc_cites_exists() {
    let absent = ["NO_SUCH", ".md"].concat();
    assert_eq!(
        cited_markdown(&format!(
            "see docs/games.md, `../configs/README.md` and {absent}; networks/GAME.md"
        )),
        ["docs/games.md", "../configs/README.md", absent.as_str()]
    );
    let (numbered, in_folder) = (["seed 0", "04"].concat(), ["seeds/0", "01"].concat());
    assert_eq!(
        notes_cited_by_number(&format!(
            "a\nas {numbered} says\n{in_folder}_x.txt\nseed 42"
        )),
        [2, 3]
    );
    let root = Path::new(ROOT);
    let mut missing = Vec::new();
    let mut checked = 0;
    for file in citing_files() {
        let text = std::fs::read_to_string(&file).unwrap();
        let shown = file.strip_prefix(root).unwrap().display().to_string();
        for name in cited_markdown(&text) {
            checked += 1;
            let found = [file.parent().unwrap(), root, &root.join("docs")]
                .iter()
                .any(|dir| dir.join(&name).exists());
            if !found {
                missing.push(format!("{shown}: {name}"));
            }
        }
        for line in notes_cited_by_number(&text) {
            missing.push(format!("{shown}:{line}: a private note cited by number"));
        }
    }
    assert!(checked >= 100, "only {checked} citations found");
    assert!(
        missing.is_empty(),
        "citations a reader cannot follow:\n{}",
        missing.join("\n")
    );
}

/// Every registered game's parameters type is `<Game>Params` and `descent::games` exports it
/// beside the game, so that a game's settings are found under one name whatever the game.
#[test]
fn every_games_parameters_are_named_and_exported_alike() {
    let registry = read("src/games/registry.rs");
    let games = read("src/games.rs");
    let block = registry
        .split("register_games! {")
        .nth(1)
        .and_then(|rest| rest.split('}').next())
        .expect("the registration block");
    let mut checked = 0;
    for line in block.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let (variant, path) = line.trim_end_matches([',', ')']).split_once('(').unwrap();
        let (module, params) = path.trim_start_matches("super::").split_once("::").unwrap();
        assert_eq!(params, format!("{variant}Params"), "{line}");
        let export = games
            .lines()
            .find(|l| l.starts_with(&format!("pub use {module}::")))
            .unwrap_or_else(|| panic!("src/games.rs exports nothing of {module}"));
        assert!(export.contains(params), "{export} leaves out {params}");
        checked += 1;
    }
    assert_eq!(checked, 21, "{block}");
}
