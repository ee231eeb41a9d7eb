//! The folders the server reads under: every path argument is resolved (relative paths
//! against each root in turn, symlinks followed by canonicalizing) and refused unless it lies
//! inside one of them. Only metadata is looked at before the check: nothing outside a root is
//! ever opened.

use std::path::{Path, PathBuf};

use crate::ToolError;
use crate::error::ServeError;

/// The canonical roots.
#[derive(Clone, Debug)]
pub struct Roots {
    roots: Vec<PathBuf>,
}

impl Roots {
    /// Canonicalizes `given` (the current directory when empty); each must be a folder.
    pub fn new(given: &[PathBuf]) -> Result<Self, ServeError> {
        let given = if given.is_empty() {
            vec![PathBuf::from(".")]
        } else {
            given.to_vec()
        };
        let roots = given
            .iter()
            .map(|path| {
                let root = path.canonicalize().map_err(|source| ServeError::Root {
                    path: path.clone(),
                    source,
                })?;
                if root.is_dir() {
                    Ok(root)
                } else {
                    Err(ServeError::Root {
                        path: path.clone(),
                        source: std::io::Error::other("not a folder"),
                    })
                }
            })
            .collect::<Result<_, _>>()?;
        Ok(Roots { roots })
    }

    /// The canonical path `given` names, when it lies inside a root: a relative path is taken
    /// against the first root under which it exists.
    pub fn resolve(&self, given: &str) -> Result<PathBuf, ToolError> {
        let path = Path::new(given);
        let candidate = if path.is_absolute() {
            Some(path.to_path_buf())
        } else {
            self.roots
                .iter()
                .map(|root| root.join(path))
                .find(|p| p.symlink_metadata().is_ok())
        };
        let resolved = candidate
            .and_then(|p| p.canonicalize().ok())
            .ok_or_else(|| ToolError::Missing(given.to_string()))?;
        if self.roots.iter().any(|root| resolved.starts_with(root)) {
            Ok(resolved)
        } else {
            Err(ToolError::Outside {
                given: given.to_string(),
                resolved,
                roots: self.list(),
            })
        }
    }

    /// [`Roots::resolve`], for a path that must be a file (a folder is [`ToolError::Folder`]).
    pub fn resolve_file(&self, given: &str) -> Result<PathBuf, ToolError> {
        let resolved = self.resolve(given)?;
        if resolved.is_dir() {
            return Err(ToolError::Folder(given.to_string()));
        }
        Ok(resolved)
    }

    /// The canonical roots.
    pub fn folders(&self) -> &[PathBuf] {
        &self.roots
    }

    /// The roots, comma-separated.
    pub fn list(&self) -> String {
        self.roots
            .iter()
            .map(|r| r.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_resolve_inside_a_root_only() {
        let outer = tempfile::tempdir().unwrap();
        let root = outer.path().join("root");
        std::fs::create_dir(&root).unwrap();
        std::fs::write(root.join("log.jsonl"), "x").unwrap();
        std::fs::write(outer.path().join("secret.jsonl"), "x").unwrap();
        std::os::unix::fs::symlink(outer.path().join("secret.jsonl"), root.join("link")).unwrap();
        let roots = Roots::new(std::slice::from_ref(&root)).unwrap();
        assert!(roots.resolve("log.jsonl").is_ok());
        let secret = outer.path().join("secret.jsonl");
        for bad in ["../secret.jsonl", "link", secret.to_str().unwrap()] {
            let e = roots.resolve(bad).unwrap_err();
            assert!(matches!(e, ToolError::Outside { .. }), "{bad}: {e}");
            assert!(e.to_string().starts_with(bad), "{e}");
        }
        assert!(matches!(
            roots.resolve("nothing.jsonl"),
            Err(ToolError::Missing(_))
        ));
    }
}
