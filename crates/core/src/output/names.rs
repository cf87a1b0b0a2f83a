//! Short names for paths people compare: the fewest trailing components that tell a path
//! apart from every other one shown (`work/cli` and `other/cli`, where the folder names alone
//! would merge them).

use std::collections::HashMap;

/// For each path, its shortest suffix of whole components that no other distinct path in
/// `paths` ends with. The same path gets the same name; a path that is a suffix of another
/// is shown whole.
pub fn unique_suffixes(paths: &[&str]) -> Vec<String> {
    let parts: Vec<Vec<&str>> = paths
        .iter()
        .map(|p| p.split(['/', '\\']).filter(|c| !c.is_empty()).collect())
        .collect();
    let suffix = |i: usize, k: usize| -> String {
        let c = &parts[i];
        c[c.len().saturating_sub(k)..].join("/")
    };
    let full = |i: usize| parts[i].join("/");
    let mut names: Vec<Option<String>> = vec![None; paths.len()];
    let mut open: Vec<usize> = (0..paths.len()).collect();
    let mut k = 1;
    while !open.is_empty() {
        // Which distinct paths end with each suffix of length k (paths still open and done
        // alike: a done path's own name must not be reused by a longer one).
        let mut owners: HashMap<String, Vec<String>> = HashMap::new();
        for i in 0..paths.len() {
            let owner = owners.entry(suffix(i, k)).or_default();
            let whole = full(i);
            if !owner.contains(&whole) {
                owner.push(whole);
            }
        }
        open.retain(|&i| {
            let s = suffix(i, k);
            if owners[&s].len() == 1 || k >= parts[i].len() {
                names[i] = Some(if s.is_empty() { paths[i].to_string() } else { s });
                false
            } else {
                true
            }
        });
        k += 1;
    }
    names.into_iter().map(Option::unwrap_or_default).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fewest_components_that_tell_paths_apart() {
        let got = unique_suffixes(&[
            "/home/me/work/cli",
            "/home/me/other/cli",
            "/home/me/work/cli",
            "/home/me/app",
            "/srv/a/b/tool",
            "/srv/c/b/tool",
        ]);
        assert_eq!(
            got,
            ["work/cli", "other/cli", "work/cli", "app", "a/b/tool", "c/b/tool"]
        );
    }

    #[test]
    fn a_path_that_ends_another_is_shown_whole() {
        assert_eq!(unique_suffixes(&["/x/cli", "/cli"]), ["x/cli", "cli"]);
        assert_eq!(unique_suffixes(&["/", "-"]), ["/", "-"]);
        assert!(unique_suffixes(&[]).is_empty());
    }
}
