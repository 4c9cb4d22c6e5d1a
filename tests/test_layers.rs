//! The house reads one way: within each crate, no source file uses another that uses it back,
//! and no source file is longer than the limit.
//!
//! The check reads each crate's module tree from its root file, follows every `mod` that is not
//! `#[cfg(test)]`, and draws an edge from a file to the file that defines what it names through
//! `crate::`, `super::`, `self::` or a child module: in its `use` lines and in the paths of its
//! code. A name re-exported by a `use` is followed to the file that defines it. A module's
//! public `use` of its own descendants is its facade, not a dependency, and draws no edge.
//! Test code (`#[cfg(test)]` items) is left out of both checks.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use syn::visit::Visit;

/// Longest a source file may be, test modules not counted.
const MAX_LINES: usize = 600;

/// Every crate root of the workspace and of the fuzz package.
const ROOTS: &[(&str, &str)] = &[
    ("submit-result", "src/lib.rs"),
    ("submit-meta", "submit-meta/src/lib.rs"),
    ("submit-core", "submit-core/src/lib.rs"),
    ("submit-derive", "submit-derive/src/lib.rs"),
    ("submit-agent", "submit-agent/src/lib.rs"),
    ("submit-cli", "submit-cli/src/lib.rs"),
    ("submit-cli (binary)", "submit-cli/src/main.rs"),
    ("submit-fuzz", "fuzz/src/lib.rs"),
];

#[test]
fn no_crate_has_a_cycle_between_its_files() {
    let mut report = String::new();
    for (name, root) in ROOTS {
        let tree = Tree::read(&workspace().join(root));
        for (component, cycle) in tree.cycles() {
            let files: Vec<String> = component.iter().map(|file| tree.relative(file)).collect();
            let _ = writeln!(
                report,
                "{name}: {} files reach each other ({}); one cycle:{}",
                files.len(),
                files.join(", "),
                tree.describe(&cycle)
            );
        }
    }
    assert!(
        report.is_empty(),
        "files that use each other (break each cycle by moving what both need below both):\n{report}"
    );
}

#[test]
fn no_source_file_is_longer_than_the_limit() {
    let mut report = String::new();
    for (_, root) in ROOTS {
        let tree = Tree::read(&workspace().join(root));
        for (file, lines) in tree.lengths() {
            if lines > MAX_LINES {
                let _ = writeln!(report, "{}: {lines} lines", tree.relative(&file));
            }
        }
    }
    assert!(
        report.is_empty(),
        "source files over {MAX_LINES} lines, test modules not counted (split them by concern):\n{report}"
    );
}

/// The check itself, on a crate written for it: a cycle is found and printed, a facade is not a
/// cycle, and test code draws no edge.
#[test]
fn the_check_finds_a_cycle_and_passes_a_facade() {
    let dir = scratch_crate(&[
        (
            "lib.rs",
            "mod a;\nmod b;\nmod facade;\npub use facade::Thing;\n\
             #[cfg(test)]\nmod tests { use crate::b::B; }\n",
        ),
        ("a.rs", "use crate::b::B;\npub struct A;\n"),
        (
            "b.rs",
            "pub struct B;\npub fn make() -> crate::a::A { crate::a::A }\n",
        ),
        ("facade/mod.rs", "mod thing;\npub use thing::Thing;\n"),
        (
            "facade/thing.rs",
            "pub struct Thing;\npub fn other() -> super::Thing { Thing }\n",
        ),
    ]);
    let tree = Tree::read(&dir.join("lib.rs"));
    let cycles = tree.cycles();
    assert_eq!(cycles.len(), 1, "{:?}", cycles);
    let described = tree.describe(&cycles[0].1);
    assert!(
        described.contains("a.rs") && described.contains("b.rs"),
        "{described}"
    );
    assert!(described.contains("crate::b::B"), "{described}");
    assert!(!described.contains("facade"), "{described}");
}

#[test]
fn the_check_counts_lines_without_the_test_module() {
    let body: String = (0..700).map(|i| format!("    // line {i}\n")).collect();
    let dir = scratch_crate(&[(
        "lib.rs",
        &format!("pub fn one() {{}}\n#[cfg(test)]\nmod tests {{\n{body}}}\n"),
    )]);
    let lengths = Tree::read(&dir.join("lib.rs")).lengths();
    assert_eq!(lengths.values().copied().collect::<Vec<_>>(), vec![1]);
}

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn scratch_crate(files: &[(&str, &str)]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "submit-layers-{}-{}",
        std::process::id(),
        files.len()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    for (path, text) in files {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

/// One module: its path from the crate root, the file it is written in, and its items (test
/// items left out).
struct Module {
    path: Vec<String>,
    file: PathBuf,
    items: Vec<syn::Item>,
    children: BTreeMap<String, usize>,
}

/// A use of one file by another: what was named, and on which line.
#[derive(Debug, Clone)]
struct Edge {
    line: usize,
    named: String,
}

struct Tree {
    modules: Vec<Module>,
    /// file → file → the first place the first uses the second.
    edges: BTreeMap<PathBuf, BTreeMap<PathBuf, Edge>>,
    /// file → the lines of test items in it.
    test_lines: BTreeMap<PathBuf, usize>,
    total_lines: BTreeMap<PathBuf, usize>,
}

impl Tree {
    fn read(root: &Path) -> Tree {
        let mut tree = Tree {
            modules: Vec::new(),
            edges: BTreeMap::new(),
            test_lines: BTreeMap::new(),
            total_lines: BTreeMap::new(),
        };
        let items = tree.read_file(root);
        let dir = root.parent().unwrap().to_path_buf();
        tree.add_module(Vec::new(), root.to_path_buf(), dir, items);
        for index in 0..tree.modules.len() {
            tree.draw_edges(index);
        }
        tree
    }

    /// Reads a file, counts its lines and its test lines, and returns its items but the tests.
    fn read_file(&mut self, file: &Path) -> Vec<syn::Item> {
        let text = std::fs::read_to_string(file)
            .unwrap_or_else(|error| panic!("{}: {error}", file.display()));
        let parsed =
            syn::parse_file(&text).unwrap_or_else(|error| panic!("{}: {error}", file.display()));
        self.total_lines
            .insert(file.to_path_buf(), text.lines().count());
        let mut kept = Vec::new();
        for item in parsed.items {
            if is_test(attributes(&item)) {
                *self.test_lines.entry(file.to_path_buf()).or_default() += item_lines(&item);
            } else {
                kept.push(item);
            }
        }
        kept
    }

    /// Adds a module and, depth first, the modules declared in it.
    fn add_module(
        &mut self,
        path: Vec<String>,
        file: PathBuf,
        dir: PathBuf,
        items: Vec<syn::Item>,
    ) -> usize {
        let index = self.modules.len();
        self.modules.push(Module {
            path: path.clone(),
            file: file.clone(),
            items: Vec::new(),
            children: BTreeMap::new(),
        });
        let mut kept = Vec::new();
        for item in items {
            if let syn::Item::Mod(module) = &item {
                let name = module.ident.to_string();
                let mut child_path = path.clone();
                child_path.push(name.clone());
                let child = match &module.content {
                    Some((_, inner)) => {
                        let inner: Vec<syn::Item> = inner
                            .iter()
                            .filter(|item| {
                                let test = is_test(attributes(item));
                                if test {
                                    *self.test_lines.entry(file.clone()).or_default() +=
                                        item_lines(item);
                                }
                                !test
                            })
                            .cloned()
                            .collect();
                        self.add_module(child_path, file.clone(), dir.join(&name), inner)
                    }
                    None => {
                        let child_file = [
                            dir.join(format!("{name}.rs")),
                            dir.join(&name).join("mod.rs"),
                        ]
                        .into_iter()
                        .find(|candidate| candidate.exists())
                        .unwrap_or_else(|| panic!("{}: no file for `mod {name}`", file.display()));
                        let child_items = self.read_file(&child_file);
                        self.add_module(child_path, child_file, dir.join(&name), child_items)
                    }
                };
                self.modules[index].children.insert(name, child);
            }
            kept.push(item);
        }
        self.modules[index].items = kept;
        index
    }

    fn draw_edges(&mut self, index: usize) {
        let mut named = Vec::new();
        let module = &self.modules[index];
        for item in &module.items {
            match item {
                syn::Item::Use(item_use) => {
                    let facade = !matches!(item_use.vis, syn::Visibility::Inherited);
                    let mut paths = Vec::new();
                    flatten(&item_use.tree, &mut Vec::new(), &mut paths);
                    for path in paths {
                        named.push((path, line_of(item_use), facade));
                    }
                }
                syn::Item::Mod(_) => {}
                other => {
                    let mut collector = PathCollector::default();
                    collector.visit_item(other);
                    for (path, line) in collector.paths {
                        named.push((path, line, false));
                    }
                }
            }
        }
        let from = module.file.clone();
        for (path, line, facade) in named {
            let Some((target, start)) = self.resolve(index, &path, 0) else {
                continue;
            };
            if target == from {
                continue;
            }
            if facade
                && self.modules[start]
                    .path
                    .starts_with(&self.modules[index].path)
            {
                continue;
            }
            self.edges
                .entry(from.clone())
                .or_default()
                .entry(target)
                .or_insert(Edge {
                    line,
                    named: path.join("::"),
                });
        }
    }

    /// The file that defines what `path` names from module `index`, and the module the path
    /// first lands in; `None` for what lies outside the crate.
    fn resolve(&self, index: usize, path: &[String], depth: usize) -> Option<(PathBuf, usize)> {
        if depth > 16 || path.is_empty() {
            return None;
        }
        let mut current = index;
        let mut rest = path;
        match rest[0].as_str() {
            "crate" => {
                current = 0;
                rest = &rest[1..];
            }
            "self" => rest = &rest[1..],
            "super" => {
                while rest.first().map(String::as_str) == Some("super") {
                    current = self.parent(current)?;
                    rest = &rest[1..];
                }
            }
            first => {
                if !self.modules[current].children.contains_key(first) || rest.len() < 2 {
                    return None;
                }
            }
        }
        let start = current;
        for (position, segment) in rest.iter().enumerate() {
            if let Some(&child) = self.modules[current].children.get(segment) {
                current = child;
                continue;
            }
            if segment == "*" {
                break;
            }
            let module = &self.modules[current];
            if defines(module, segment) {
                return Some((module.file.clone(), start));
            }
            if let Some(target) = self.imported(current, segment, depth) {
                return Some((target, start));
            }
            let _ = position;
            return Some((module.file.clone(), start));
        }
        Some((self.modules[current].file.clone(), start))
    }

    /// Where a name a module imports is defined.
    fn imported(&self, index: usize, name: &str, depth: usize) -> Option<PathBuf> {
        let module = &self.modules[index];
        let mut globs = Vec::new();
        for item in &module.items {
            let syn::Item::Use(item_use) = item else {
                continue;
            };
            let mut paths = Vec::new();
            flatten_named(&item_use.tree, &mut Vec::new(), &mut paths);
            for (path, alias) in paths {
                if alias == name {
                    return self.resolve(index, &path, depth + 1).map(|(file, _)| file);
                }
                if alias == "*" {
                    globs.push(path);
                }
            }
        }
        for mut glob in globs {
            glob.push(name.to_string());
            if let Some((file, _)) = self.resolve(index, &glob, depth + 1) {
                return Some(file);
            }
        }
        None
    }

    fn parent(&self, index: usize) -> Option<usize> {
        let path = &self.modules[index].path;
        let parent = path.get(..path.len().checked_sub(1)?)?;
        self.modules.iter().position(|module| module.path == parent)
    }

    /// Each set of files that reach each other, as one cycle through them.
    fn cycles(&self) -> Vec<(BTreeSet<PathBuf>, Vec<PathBuf>)> {
        let files: BTreeSet<&PathBuf> = self.modules.iter().map(|module| &module.file).collect();
        let mut found = Vec::new();
        let mut seen: BTreeSet<PathBuf> = BTreeSet::new();
        for &file in &files {
            if seen.contains(file) {
                continue;
            }
            let component: BTreeSet<PathBuf> = self
                .reachable(file)
                .into_iter()
                .filter(|other| self.reachable(other).contains(file))
                .collect();
            if component.len() > 1 {
                seen.extend(component.iter().cloned());
                let cycle = self.cycle_through(file, &component);
                found.push((component, cycle));
            }
        }
        found
    }

    fn reachable(&self, from: &Path) -> BTreeSet<PathBuf> {
        let mut reached = BTreeSet::new();
        let mut stack = vec![from.to_path_buf()];
        while let Some(file) = stack.pop() {
            if reached.insert(file.clone()) {
                if let Some(targets) = self.edges.get(&file) {
                    stack.extend(targets.keys().cloned());
                }
            }
        }
        reached
    }

    /// The shortest path from `file` back to itself inside its component.
    fn cycle_through(&self, file: &Path, component: &BTreeSet<PathBuf>) -> Vec<PathBuf> {
        let mut previous: BTreeMap<PathBuf, PathBuf> = BTreeMap::new();
        let mut queue = std::collections::VecDeque::from([file.to_path_buf()]);
        while let Some(current) = queue.pop_front() {
            for target in self
                .edges
                .get(&current)
                .into_iter()
                .flat_map(BTreeMap::keys)
            {
                if !component.contains(target) {
                    continue;
                }
                if target == file {
                    let mut cycle = vec![current.clone()];
                    while let Some(before) = previous.get(cycle.last().unwrap()) {
                        cycle.push(before.clone());
                    }
                    cycle.reverse();
                    return cycle;
                }
                if !previous.contains_key(target) && target != file {
                    previous.insert(target.clone(), current.clone());
                    queue.push_back(target.clone());
                }
            }
        }
        vec![file.to_path_buf()]
    }

    fn describe(&self, cycle: &[PathBuf]) -> String {
        let mut text = String::new();
        for (position, from) in cycle.iter().enumerate() {
            let to = &cycle[(position + 1) % cycle.len()];
            let edge = &self.edges[from][to];
            let _ = write!(
                text,
                "\n    {}:{} uses {} ({})",
                self.relative(from),
                edge.line,
                self.relative(to),
                edge.named
            );
        }
        text
    }

    /// Each file's length, test items not counted.
    fn lengths(&self) -> BTreeMap<PathBuf, usize> {
        self.total_lines
            .iter()
            .map(|(file, total)| {
                let tests = self.test_lines.get(file).copied().unwrap_or(0);
                (file.clone(), total.saturating_sub(tests))
            })
            .collect()
    }

    fn relative(&self, file: &Path) -> String {
        let root = workspace();
        file.strip_prefix(&root)
            .unwrap_or(file)
            .display()
            .to_string()
    }
}

/// Whether a module defines an item of that name itself.
fn defines(module: &Module, name: &str) -> bool {
    module.items.iter().any(|item| {
        let ident = match item {
            syn::Item::Const(item) => &item.ident,
            syn::Item::Enum(item) => &item.ident,
            syn::Item::Fn(item) => &item.sig.ident,
            syn::Item::Static(item) => &item.ident,
            syn::Item::Struct(item) => &item.ident,
            syn::Item::Trait(item) => &item.ident,
            syn::Item::Type(item) => &item.ident,
            syn::Item::Union(item) => &item.ident,
            syn::Item::Macro(item) => match &item.ident {
                Some(ident) => ident,
                None => return false,
            },
            _ => return false,
        };
        ident == name
    })
}

fn attributes(item: &syn::Item) -> &[syn::Attribute] {
    match item {
        syn::Item::Const(item) => &item.attrs,
        syn::Item::Enum(item) => &item.attrs,
        syn::Item::ExternCrate(item) => &item.attrs,
        syn::Item::Fn(item) => &item.attrs,
        syn::Item::ForeignMod(item) => &item.attrs,
        syn::Item::Impl(item) => &item.attrs,
        syn::Item::Macro(item) => &item.attrs,
        syn::Item::Mod(item) => &item.attrs,
        syn::Item::Static(item) => &item.attrs,
        syn::Item::Struct(item) => &item.attrs,
        syn::Item::Trait(item) => &item.attrs,
        syn::Item::TraitAlias(item) => &item.attrs,
        syn::Item::Type(item) => &item.attrs,
        syn::Item::Union(item) => &item.attrs,
        syn::Item::Use(item) => &item.attrs,
        _ => &[],
    }
}

/// `#[cfg(test)]`, alone or first in an `all(…)`.
fn is_test(attributes: &[syn::Attribute]) -> bool {
    attributes.iter().any(|attribute| {
        if !attribute.path().is_ident("cfg") {
            return false;
        }
        let Ok(list) = attribute.meta.require_list() else {
            return false;
        };
        let tokens = list.tokens.to_string().replace(' ', "");
        tokens == "test" || tokens.starts_with("all(test,")
    })
}

fn item_lines(item: &syn::Item) -> usize {
    let span = syn::spanned::Spanned::span(item);
    let first = attributes(item)
        .first()
        .map(|attribute| syn::spanned::Spanned::span(attribute).start().line)
        .unwrap_or(span.start().line);
    span.end().line + 1 - first
}

fn line_of(item: &syn::ItemUse) -> usize {
    syn::spanned::Spanned::span(item).start().line
}

/// Every path a use tree names, `*` standing for a glob.
fn flatten(tree: &syn::UseTree, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    let mut named = Vec::new();
    flatten_named(tree, prefix, &mut named);
    out.extend(named.into_iter().map(|(path, _)| path));
}

/// Every path a use tree names, with the name it brings in.
fn flatten_named(
    tree: &syn::UseTree,
    prefix: &mut Vec<String>,
    out: &mut Vec<(Vec<String>, String)>,
) {
    match tree {
        syn::UseTree::Path(path) => {
            prefix.push(path.ident.to_string());
            flatten_named(&path.tree, prefix, out);
            prefix.pop();
        }
        syn::UseTree::Name(name) => {
            let ident = name.ident.to_string();
            let mut path = prefix.clone();
            let alias = if ident == "self" {
                prefix.last().cloned().unwrap_or_default()
            } else {
                path.push(ident.clone());
                ident
            };
            out.push((path, alias));
        }
        syn::UseTree::Rename(rename) => {
            let mut path = prefix.clone();
            if rename.ident != "self" {
                path.push(rename.ident.to_string());
            }
            out.push((path, rename.rename.to_string()));
        }
        syn::UseTree::Glob(_) => {
            let mut path = prefix.clone();
            path.push("*".to_string());
            out.push((path, "*".to_string()));
        }
        syn::UseTree::Group(group) => {
            for tree in &group.items {
                flatten_named(tree, prefix, out);
            }
        }
    }
}

/// The paths in an item's code, with their lines; test items inside it left out.
#[derive(Default)]
struct PathCollector {
    paths: Vec<(Vec<String>, usize)>,
}

impl<'ast> Visit<'ast> for PathCollector {
    fn visit_path(&mut self, path: &'ast syn::Path) {
        let segments: Vec<String> = path
            .segments
            .iter()
            .map(|segment| segment.ident.to_string())
            .collect();
        let line = syn::spanned::Spanned::span(path).start().line;
        self.paths.push((segments, line));
        syn::visit::visit_path(self, path);
    }

    fn visit_item(&mut self, item: &'ast syn::Item) {
        if !is_test(attributes(item)) {
            syn::visit::visit_item(self, item);
        }
    }

    fn visit_impl_item_fn(&mut self, function: &'ast syn::ImplItemFn) {
        if !is_test(&function.attrs) {
            syn::visit::visit_impl_item_fn(self, function);
        }
    }
}
