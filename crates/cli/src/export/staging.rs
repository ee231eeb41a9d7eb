//! Where the export is written before it is OUT: a temporary folder beside OUT
//! (`.NAME.export-PID`), renamed into place only once every file is complete, so a failure
//! leaves nothing half-written in OUT (the temporary folder is removed). OUT that already
//! exists is refused; with `--force` only the table folders written are replaced, and only when
//! they hold nothing but part files an export wrote — nothing else in OUT is touched. This is
//! the folder form of the store's rule for every file written ([`surface_store::WriteTarget`]):
//! an OUT that is a file is never replaced, and a session log is named as one. The part files
//! are created new (`create_new`) inside the temporary folder, which no one else writes.

use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};
use surface_store::WriteTarget;

/// A part file's name: `part-NNNNN.parquet`.
pub fn part_name(number: usize) -> String {
    format!("part-{number:05}.parquet")
}

/// True for a name [`part_name`] gives.
fn is_part_name(name: &str) -> bool {
    name.strip_prefix("part-")
        .and_then(|rest| rest.strip_suffix(".parquet"))
        .is_some_and(|n| n.len() >= 5 && n.bytes().all(|b| b.is_ascii_digit()))
}

/// The export being written.
pub struct Staging {
    out: PathBuf,
    tmp: PathBuf,
    tables: Vec<&'static str>,
    committed: bool,
}

impl Staging {
    /// Checks that OUT may be written (refused when it exists, unless `force`), then creates
    /// the temporary folder with a folder per table.
    pub fn begin(out: &Path, tables: &[&'static str], force: bool) -> anyhow::Result<Staging> {
        let shown = out.display();
        if let Ok(meta) = std::fs::symlink_metadata(out) {
            if !meta.is_dir() {
                // A session log is refused by the store's rule, with its reason.
                WriteTarget::new(out, None).replacing(true).check()?;
                bail!("{shown} exists and is not a folder: refusing to replace it");
            }
            if !force {
                bail!(
                    "{shown} already exists; --force replaces its table folders ({}) and nothing else",
                    tables.join(", ")
                );
            }
            for table in tables {
                refuse_foreign(&out.join(table))?;
            }
        }
        let name = out
            .file_name()
            .with_context(|| format!("{shown}: not a folder name to write to"))?;
        let parent = match out.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        std::fs::create_dir_all(&parent)
            .with_context(|| format!("cannot create {}", parent.display()))?;
        let tmp = parent.join(format!(
            ".{}.export-{}",
            name.to_string_lossy(),
            std::process::id()
        ));
        std::fs::create_dir(&tmp)
            .with_context(|| format!("cannot create the temporary folder {}", tmp.display()))?;
        let staging = Staging {
            out: out.to_path_buf(),
            tmp,
            tables: tables.to_vec(),
            committed: false,
        };
        for table in tables {
            let folder = staging.folder(table);
            std::fs::create_dir(&folder)
                .with_context(|| format!("cannot create {}", folder.display()))?;
        }
        Ok(staging)
    }

    /// The folder the table's part files are written to.
    pub fn folder(&self, table: &str) -> PathBuf {
        self.tmp.join(table)
    }

    /// Moves the written tables into OUT: the whole folder when OUT did not exist, else each
    /// table folder in place of the old one (which is then removed).
    pub fn commit(mut self) -> anyhow::Result<()> {
        let out = self.out.clone();
        if std::fs::symlink_metadata(&out).is_err() {
            std::fs::rename(&self.tmp, &out).with_context(|| {
                format!("cannot move {} to {}", self.tmp.display(), out.display())
            })?;
            self.committed = true;
            return Ok(());
        }
        for table in self.tables.clone() {
            let target = out.join(table);
            if std::fs::symlink_metadata(&target).is_ok() {
                refuse_foreign(&target)?;
                let old = self.tmp.join(format!(".old-{table}"));
                std::fs::rename(&target, &old)
                    .with_context(|| format!("cannot move {} aside", target.display()))?;
            }
            std::fs::rename(self.folder(table), &target)
                .with_context(|| format!("cannot move the new {table} into {}", out.display()))?;
        }
        // What is left is ours: the replaced table folders.
        std::fs::remove_dir_all(&self.tmp)
            .with_context(|| format!("cannot remove {}", self.tmp.display()))?;
        self.committed = true;
        Ok(())
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        if !self.committed {
            // Only the temporary folder this export created, whatever it holds so far.
            let _ = std::fs::remove_dir_all(&self.tmp);
        }
    }
}

/// `Err` unless `folder` is absent, or a folder holding only part files.
fn refuse_foreign(folder: &Path) -> anyhow::Result<()> {
    let Ok(meta) = std::fs::symlink_metadata(folder) else {
        return Ok(());
    };
    let refuse = |what: String| {
        anyhow::anyhow!(
            "{} {what}: --force replaces only table folders an export wrote, never anything else",
            folder.display()
        )
    };
    if !meta.is_dir() {
        return Err(refuse("is not a folder".to_string()));
    }
    let entries =
        std::fs::read_dir(folder).with_context(|| format!("cannot read {}", folder.display()))?;
    for entry in entries {
        let entry = entry.with_context(|| format!("cannot read {}", folder.display()))?;
        let name = entry.file_name();
        let is_file = entry.file_type().is_ok_and(|t| t.is_file());
        if !is_file || !is_part_name(&name.to_string_lossy()) {
            return Err(refuse(format!(
                "holds {}, which is not a part file of an export",
                name.to_string_lossy()
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn part_names_are_recognised() {
        assert_eq!(part_name(3), "part-00003.parquet");
        assert!(is_part_name(&part_name(123_456)));
        for other in [
            "part-1.parquet",
            "notes.txt",
            "part-0000a.parquet",
            "x-00001.parquet",
        ] {
            assert!(!is_part_name(other), "{other}");
        }
    }

    #[test]
    fn a_failed_export_leaves_nothing_and_a_forced_one_keeps_foreign_files() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        let staging = Staging::begin(&out, &["events"], false).unwrap();
        std::fs::write(staging.folder("events").join(part_name(0)), b"x").unwrap();
        drop(staging);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);

        let staging = Staging::begin(&out, &["events"], false).unwrap();
        std::fs::write(staging.folder("events").join(part_name(0)), b"1").unwrap();
        staging.commit().unwrap();
        std::fs::write(out.join("mine.txt"), b"keep").unwrap();
        assert!(Staging::begin(&out, &["events"], false).is_err());
        let staging = Staging::begin(&out, &["events"], true).unwrap();
        std::fs::write(staging.folder("events").join(part_name(0)), b"2").unwrap();
        staging.commit().unwrap();
        assert_eq!(
            std::fs::read(out.join("events").join(part_name(0))).unwrap(),
            b"2"
        );
        assert_eq!(std::fs::read(out.join("mine.txt")).unwrap(), b"keep");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);

        std::fs::write(out.join("events").join("notes.txt"), b"mine").unwrap();
        let refused = Staging::begin(&out, &["events"], true).err().unwrap();
        assert!(refused.to_string().contains("notes.txt"), "{refused}");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
