//! A check's results kept part by part in a file that the user names, so that the check of a
//! whole directory resumes after the parts it finished. Checking the 145 chess tables of up to
//! five pieces takes hours: stopped by a Ctrl-C, a killed process or a reboot, it goes on from
//! the first table it had not finished instead of from the start.
//!
//! The file holds one JSON line a part: its name, a digest of the files it was checked in, and
//! its result. A part is checked against the parts before it (a chess table against the tables
//! its captures lead to, a stone count against the smaller ones), so its digest is a chain over
//! its file's and every earlier file's SHA-256 ([`chained`]): a part is taken from the record
//! only if none of those files changed since. Each line is written whole and synced before
//! the next part starts; a line cut short by a kill is dropped when the record is opened again.

use std::collections::HashMap;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use gamegraph::storage::{self, StorageError};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// The digest a part is recorded under: `sha256`, its file's, chained after `previous`, the
/// previous part's digest (empty for the first part).
pub fn chained(previous: &str, sha256: &str) -> String {
    storage::sha256_hex(format!("{previous}{sha256}").as_bytes())
}

/// Why a record cannot be read or written.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// The file cannot be read, created or written.
    #[error("record {}: {cause}", path.display())]
    Io {
        /// The record.
        path: PathBuf,
        /// What failed.
        cause: io::Error,
    },
    /// A line cut short cannot be dropped.
    #[error(transparent)]
    Storage(#[from] StorageError),
    /// A complete line is not a part's result.
    #[error("record {} line {line} column {column}: {message}", path.display())]
    Line {
        /// The record.
        path: PathBuf,
        /// The line, from 1.
        line: usize,
        /// The column, from 1.
        column: usize,
        /// What is wrong there.
        message: String,
    },
}

/// One line of a record.
#[derive(Serialize, Deserialize)]
struct Line<T> {
    part: String,
    sha256: String,
    result: T,
}

/// The results of a check kept so far, and the file they are kept in (none: nothing is kept).
#[derive(Debug)]
pub struct VerifyRecord<T> {
    path: Option<PathBuf>,
    kept: HashMap<String, (String, T)>,
    /// The digest of the files of the parts [`VerifyRecord::check`] was given so far.
    chain: String,
    /// How many of their results came from the record.
    recorded: usize,
}

impl<T: Serialize + DeserializeOwned + Clone> VerifyRecord<T> {
    /// The record in `path`: read if the file exists (a missing file is an empty record), and
    /// kept in as the check goes. `None`: a check that keeps nothing.
    pub fn open(path: Option<&Path>) -> Result<Self, RecordError> {
        let mut record = VerifyRecord {
            path: path.map(Path::to_path_buf),
            kept: HashMap::new(),
            chain: String::new(),
            recorded: 0,
        };
        let Some(path) = path else { return Ok(record) };
        let io_error = |cause| RecordError::Io { path: path.to_path_buf(), cause };
        let text = match fs::read_to_string(path) {
            Ok(text) => text,
            Err(cause) if cause.kind() == io::ErrorKind::NotFound => return Ok(record),
            Err(cause) => return Err(io_error(cause)),
        };
        // A last line without its end was being written when the check was killed.
        let complete = text.rfind('\n').map_or("", |end| &text[..=end]);
        if complete.len() != text.len() {
            storage::write_atomically(path, |out| out.write_all(complete.as_bytes()))?;
        }
        for (number, line) in complete.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
            let line: Line<T> = serde_json::from_str(line).map_err(|cause| RecordError::Line {
                path: path.to_path_buf(),
                line: number + 1,
                column: cause.column(),
                message: cause.to_string(),
            })?;
            record.kept.insert(line.part, (line.sha256, line.result));
        }
        Ok(record)
    }

    /// The result of the next part of a check, `part`, whose file's SHA-256 is `sha256`: the one
    /// the record holds if it was checked in the same files as now (this part's and every part's
    /// before it, as this record was given them), else the one `check` finds, kept. Whether it
    /// came from the record, too. The parts are given in the order they are checked.
    pub fn check<E: From<RecordError>>(
        &mut self,
        part: &str,
        sha256: &str,
        check: impl FnOnce() -> Result<T, E>,
    ) -> Result<(T, bool), E> {
        self.chain = chained(&self.chain, sha256);
        let chain = self.chain.clone();
        if let Some(result) = self.result(part, &chain) {
            self.recorded += 1;
            return Ok((result, true));
        }
        let result = check()?;
        self.keep(part, &chain, &result)?;
        Ok((result, false))
    }

    /// How many results [`VerifyRecord::check`] took from the record.
    pub fn recorded(&self) -> usize {
        self.recorded
    }

    /// The result kept for `part` if it was checked in files of digest `sha256` (see [`chained`]).
    pub fn result(&self, part: &str, sha256: &str) -> Option<T> {
        self.kept.get(part).filter(|(digest, _)| digest == sha256).map(|(_, result)| result.clone())
    }

    /// Keeps the result of `part`, checked in files of digest `sha256`: one line appended and
    /// synced to the file, if there is one.
    pub fn keep(&mut self, part: &str, sha256: &str, result: &T) -> Result<(), RecordError> {
        if let Some(path) = &self.path {
            let io_error = |cause| RecordError::Io { path: path.clone(), cause };
            let line = Line { part: part.to_string(), sha256: sha256.to_string(), result };
            let mut text = serde_json::to_string(&line).expect("a result serializes");
            text.push('\n');
            let mut file: File = OpenOptions::new().create(true).append(true).open(path).map_err(io_error)?;
            file.write_all(text.as_bytes()).and_then(|()| file.sync_data()).map_err(io_error)?;
        }
        self.kept.insert(part.to_string(), (sha256.to_string(), result.clone()));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(path: &Path) -> VerifyRecord<Vec<u32>> {
        VerifyRecord::open(Some(path)).unwrap()
    }

    #[test]
    fn a_record_gives_back_what_it_kept_for_the_same_file_only() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("record");
        let mut kept = record(&path);
        assert_eq!(kept.result("KRvK", "aa"), None);
        kept.keep("KRvK", "aa", &vec![1, 2]).unwrap();
        kept.keep("KQvK", "bb", &vec![]).unwrap();
        let again = record(&path);
        assert_eq!(again.result("KRvK", "aa"), Some(vec![1, 2]));
        assert_eq!(again.result("KQvK", "bb"), Some(vec![]));
        assert_eq!(again.result("KRvK", "ab"), None, "a file rebuilt since is checked again");
    }

    #[test]
    fn a_line_cut_by_a_kill_is_dropped_and_the_record_goes_on() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("record");
        record(&path).keep("KRvK", "aa", &vec![1]).unwrap();
        let mut file = OpenOptions::new().append(true).open(&path).unwrap();
        file.write_all(br#"{"part":"KQvK","sha256":"bb","res"#).unwrap();
        let mut again = record(&path);
        assert_eq!(again.result("KQvK", "bb"), None);
        again.keep("KQvK", "bb", &vec![2]).unwrap();
        let last = record(&path);
        assert_eq!((last.result("KRvK", "aa"), last.result("KQvK", "bb")), (Some(vec![1]), Some(vec![2])));
    }

    #[test]
    fn a_damaged_line_is_refused_with_its_line_and_column() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("record");
        let good = r#"{"part":"KRvK","sha256":"aa","result":[1]}"#;
        fs::write(&path, format!("{good}\n{{\"part\":\"KQvK\",\"sha256\":7}}\n")).unwrap();
        let error = VerifyRecord::<Vec<u32>>::open(Some(&path)).unwrap_err().to_string();
        assert!(error.contains("line 2 column"), "{error}");
        assert!(error.contains("record"), "{error}");
    }

    /// A check run again on its record checks nothing; once an earlier part's file changes, that
    /// part and every one after it are checked again.
    #[test]
    fn a_check_takes_from_the_record_the_parts_checked_in_the_same_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("record");
        let run = |shas: [&str; 3]| {
            let mut kept = record(&path);
            let mut checked = Vec::new();
            for (part, sha) in ["KRvK", "KQvK", "KRvKR"].into_iter().zip(shas) {
                let (result, recorded) = kept
                    .check(part, sha, || {
                        checked.push(part);
                        Ok::<_, RecordError>(vec![part.len() as u32])
                    })
                    .unwrap();
                assert_eq!(result, vec![part.len() as u32]);
                assert_eq!(recorded, !checked.contains(&part));
            }
            assert_eq!(kept.recorded(), 3 - checked.len());
            checked
        };
        assert_eq!(run(["aa", "bb", "cc"]), ["KRvK", "KQvK", "KRvKR"]);
        assert!(run(["aa", "bb", "cc"]).is_empty());
        assert_eq!(run(["aa", "bx", "cc"]), ["KQvK", "KRvKR"], "what comes after a rebuilt file");
    }

    #[test]
    fn a_chain_changes_with_any_file_in_it() {
        let first = chained("", "aa");
        assert_ne!(chained(&first, "bb"), chained(&chained("", "ab"), "bb"));
        assert_ne!(chained(&first, "bb"), chained(&first, "bc"));
        assert_eq!(chained(&first, "bb"), chained(&chained("", "aa"), "bb"));
    }

    #[test]
    fn without_a_file_nothing_is_kept_on_disk() {
        let mut kept = VerifyRecord::<u8>::open(None).unwrap();
        kept.keep("part", "aa", &1).unwrap();
        assert_eq!(kept.result("part", "aa"), Some(1));
    }
}
