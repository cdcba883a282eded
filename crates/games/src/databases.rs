//! Directories of endgame databases (Awari score files, chess tables) behind one trait, so that
//! every front end builds, checks, counts and opens them the same way, and finds them through a
//! game's registry entry ([`crate::registry::databases`]) instead of by the game's name.
//!
//! A game whose [`crate::DatabaseKind`] is `Directory` implements [`DatabaseDirectory`]. Its
//! methods return a [`Report`]: text for a terminal and JSON for programs (`--json`, the web
//! page, Python), both from the same value. Long work reports to a [`Progress`].

use std::fmt;
use std::path::{Path, PathBuf};

#[cfg(feature = "cluster")]
pub use gamegraph_cluster::Cluster;

/// A cluster of processes to build on: without the `cluster` feature there is none, and this type
/// has no value, so a [`BuildRequest`] always builds on this machine.
#[cfg(not(feature = "cluster"))]
#[derive(Debug, Clone)]
pub enum Cluster {}

use crate::registry::{check_options, GameEntry, GameError, GameOption, GameOptions};

/// Reports long work as it goes: each piece of work (a stone count, a table) starts with the
/// units it counts, advances, and ends with one line that says what it did. Front ends draw a
/// progress bar from it; [`Silent`] shows nothing.
pub trait Progress: Sync {
    /// A piece of work called `what` starts; it counts `units` units.
    fn started(&self, what: &str, units: u64);
    /// `units` more units are done.
    fn advanced(&self, units: u64);
    /// The piece of work that started last is done, or one was found done already: `line`
    /// says what it did.
    fn finished(&self, line: &str);

    /// Whether the user asked the work to stop (a Ctrl-C): builds stop inside the part they
    /// solve (its dense solve asks at every chunk and level) and checks before their next part,
    /// with an error that says so, leaving every file whole (a build resumes after the parts
    /// it finished).
    fn interrupted(&self) -> bool {
        false
    }
}

/// The whole of a build in several parts (tables, stone counts): which part is under way and,
/// from the pace of the parts built so far, about how long the rest will take, for the label a
/// part gives [`Progress::started`]. A bar per part says how long that part has left; a build
/// of 145 tables over hours also needs to say how long it has left in all.
pub struct Overall {
    started: std::time::Instant,
    state: std::sync::Mutex<OverallState>,
}

#[derive(Debug, Clone, Copy)]
struct OverallState {
    /// Parts in the build, parts started or skipped so far.
    parts: usize,
    seen: usize,
    /// Units of work of the parts this run builds, and of those it finished.
    units: u64,
    done: u64,
}

impl Overall {
    /// A build of `parts` parts, which together count `units` units of work.
    pub fn new(parts: usize, units: u64) -> Self {
        let state = OverallState { parts, seen: 0, units, done: 0 };
        Self { started: std::time::Instant::now(), state: std::sync::Mutex::new(state) }
    }

    /// A part of `units` units was found done already: it is not work left.
    pub fn skipped(&self, units: u64) {
        let mut state = self.state.lock().expect("not poisoned");
        state.seen += 1;
        state.units = state.units.saturating_sub(units);
    }

    /// A part called `what` starts: its label, `what (part/parts, about T left in all)`, the
    /// time left once a part has been built.
    pub fn label(&self, what: &str) -> String {
        let mut state = self.state.lock().expect("not poisoned");
        state.seen += 1;
        let (seen, parts) = (state.seen, state.parts);
        match self.left(&state) {
            Some(left) => format!("{what} ({seen}/{parts}, about {} left in all)", duration_text(left)),
            None => format!("{what} ({seen}/{parts})"),
        }
    }

    /// The part under way, of `units` units, is done.
    pub fn finished(&self, units: u64) {
        self.state.lock().expect("not poisoned").done += units;
    }

    /// Seconds left at the pace so far, if any part was built.
    fn left(&self, state: &OverallState) -> Option<f64> {
        (state.done > 0).then(|| {
            let pace = self.started.elapsed().as_secs_f64() / state.done as f64;
            pace * state.units.saturating_sub(state.done) as f64
        })
    }
}

/// `seconds` as people read a time left: `40 s`, `12 min`, `2 h 05 min`.
fn duration_text(seconds: f64) -> String {
    let seconds = seconds.round() as u64;
    match seconds {
        0..90 => format!("{seconds} s"),
        90..5400 => format!("{} min", (seconds + 30) / 60),
        _ => format!("{} h {:02} min", seconds / 3600, seconds % 3600 / 60),
    }
}

/// Shows nothing.
pub struct Silent;

impl Progress for Silent {
    fn started(&self, _: &str, _: u64) {}
    fn advanced(&self, _: u64) {}
    fn finished(&self, _: &str) {}
}

/// What a database operation found: its text for a terminal (`Display`, one line a fact) and its
/// JSON for programs.
pub trait Report: fmt::Display + Send {
    /// The same facts as JSON.
    fn to_json(&self) -> serde_json::Value;

    /// What makes the operation a failure though it ran to the end (a verification that found
    /// wrong values), if anything.
    fn failure(&self) -> Option<String> {
        None
    }
}

/// What `build` is asked to do.
#[derive(Clone, Copy)]
pub struct BuildRequest<'a> {
    /// The game's options (its rule variant) and the build's own options
    /// ([`DatabaseDirectory::build_options`]), by name.
    pub options: &'a GameOptions,
    /// Where the build runs: on the workers of a cluster (every process runs the same build
    /// into a directory they share), or on this machine's cores (`None`).
    pub cluster: Option<&'a Cluster>,
}

impl<'a> BuildRequest<'a> {
    /// A build on this machine's cores with `options`.
    pub fn here(options: &'a GameOptions) -> Self {
        Self { options, cluster: None }
    }
}

/// What `verify` is asked to do.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct VerifyRequest {
    /// Check about this many positions of each part of the database instead of all of them,
    /// where the database can (Awari checks every stone count this way; chess tables are always
    /// checked whole).
    pub sample: Option<u64>,
    /// Keep each part's result in this file as it is found, and take from it the parts an
    /// earlier check with the same file and request found (see [`crate::verify_record`]).
    pub record: Option<PathBuf>,
}

/// Why a database operation failed: a file, the options, or the cluster.
#[derive(Debug, thiserror::Error)]
pub enum DirectoryError {
    /// An Awari database.
    #[error(transparent)]
    Oware(#[from] crate::oware::database::DatabaseError),
    /// Chess tables.
    #[error(transparent)]
    Chess(#[from] crate::chess::tablebase::TablebaseError),
    /// A chess position the tables should hold.
    #[error(transparent)]
    Probe(#[from] crate::chess::tablebase::ProbeError),
    /// The options do not fit.
    #[error(transparent)]
    Options(#[from] GameError),
    /// The record of a check cannot be read or written.
    #[error(transparent)]
    Record(#[from] crate::verify_record::RecordError),
    /// The cluster failed.
    #[cfg(feature = "cluster")]
    #[error(transparent)]
    Cluster(#[from] gamegraph_cluster::ClusterError),
}

impl DirectoryError {
    /// The kind of the input/output failure behind this error, if it is one (a directory that
    /// does not exist or holds no databases, a file without permission), for front ends with
    /// error classes of their own (Python's `FileNotFoundError`). Every other error is about the
    /// databases' contents, the options or the cluster.
    pub fn io_kind(&self) -> Option<std::io::ErrorKind> {
        use crate::chess::tablebase::TablebaseError as Tables;
        use crate::oware::database::DatabaseError as Scores;
        use gamegraph::storage::StorageError;
        match self {
            DirectoryError::Oware(Scores::Io { cause, .. })
            | DirectoryError::Chess(Tables::Io { cause, .. }) => Some(cause.kind()),
            DirectoryError::Oware(Scores::Storage(StorageError::Io { cause, .. }))
            | DirectoryError::Chess(Tables::Storage(StorageError::Io { cause, .. })) => Some(cause.kind()),
            DirectoryError::Chess(Tables::NoTables { .. }) => Some(std::io::ErrorKind::NotFound),
            DirectoryError::Record(crate::verify_record::RecordError::Io { cause, .. }) => Some(cause.kind()),
            _ => None,
        }
    }
}

/// A game's directory of endgame databases: built by parts in dependency order (resuming at
/// the first part not complete), checked, counted and opened.
pub trait DatabaseDirectory: Sync {
    /// What the databases are called in messages ("Oware score files", "chess endgame tables").
    fn describe(&self) -> &'static str;

    /// The options `build` takes beside the game's own, by name.
    fn build_options(&self) -> &'static [(&'static str, GameOption)];

    /// Builds (or completes) the databases `request` asks for in `dir`. On a cluster, process 0
    /// gets the report and the other processes `None`.
    fn build(
        &self,
        dir: &Path,
        request: &BuildRequest<'_>,
        progress: &dyn Progress,
    ) -> Result<Option<Box<dyn Report>>, DirectoryError>;

    /// Checks the files against their checksums and the stored values against their moves.
    fn verify(
        &self,
        dir: &Path,
        request: &VerifyRequest,
        progress: &dyn Progress,
    ) -> Result<Box<dyn Report>, DirectoryError>;

    /// Counts of won, drawn and lost positions, part by part.
    fn stats(&self, dir: &Path) -> Result<Box<dyn Report>, DirectoryError>;

    /// Opens the directory as a reader would, so that a front end that serves it refuses a bad
    /// one at once rather than at its first question.
    fn check(&self, dir: &Path) -> Result<(), DirectoryError>;

    /// Checks the options of a build of `entry`'s databases, given together by name: the
    /// game's own (its rules, checked by the entry) and the build's (what to build). Refuses
    /// options neither takes and values of the wrong type, and says which required build option
    /// is missing (one whose default is empty must be given).
    fn check_build(&self, entry: &GameEntry, options: &GameOptions) -> Result<(), GameError> {
        let (mut own, mut build) = (GameOptions::default(), GameOptions::default());
        for (name, value) in options.iter() {
            if entry.option(name).is_some() {
                own.set(name, value);
            } else {
                build.set(name, value);
            }
        }
        entry.check(&own)?;
        let game = entry.name;
        check_options(game, self.build_options(), &build)?;
        for (name, option) in self.build_options() {
            if option.default.is_empty() && build.get(name).is_none() {
                return Err(GameError::BadOptions(format!("build {game} needs {name}: {}", option.help)));
            }
        }
        Ok(())
    }
}

/// Implements [`Report`] for a type that is [`serde::Serialize`] and `Display`.
macro_rules! report {
    ($($kind:ty),* $(,)?) => {
        $(
            impl $crate::databases::Report for $kind {
                fn to_json(&self) -> serde_json::Value {
                    serde_json::to_value(self).expect("a report serialises")
                }
            }
        )*
    };
}
pub(crate) use report;

/// Tells `progress`, once a cluster build is over, how many kernel messages this process's
/// workers sent to other workers, how many bytes of entries for the workers that compress their
/// blocks (chess), and how many bytes of questions and answers about exits: the traffic the
/// build's partition caused.
#[cfg(feature = "cluster")]
pub fn report_messages(progress: &dyn Progress, cluster: &Cluster) {
    let sent = gamegraph_cluster::kernel::messages_sent_elsewhere();
    let exits = gamegraph_cluster::exits::bytes_sent_elsewhere();
    let blocks = match gamegraph_cluster::blocks::bytes_sent_elsewhere() {
        0 => String::new(),
        bytes => {
            format!(", {:.1} MB of entries for the workers that compress their blocks,", bytes as f64 / 1e6)
        }
    };
    progress.finished(&format!(
        "process {}: {sent} kernel messages ({:.1} MB){blocks} and {:.1} MB of exits asked and answered sent to other workers",
        cluster.process,
        sent as f64 * 8.0 / 1e6,
        exits as f64 / 1e6
    ));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Parts are counted with those found done, and the time left, once one part is built, is
    /// the work left at the pace so far: here as much work is left as was done.
    #[test]
    fn overall_labels_count_parts_and_estimate_from_the_pace() {
        let overall = Overall::new(3, 300);
        overall.skipped(100);
        assert_eq!(overall.label("KQvK"), "KQvK (2/3)");
        std::thread::sleep(std::time::Duration::from_millis(20));
        overall.finished(100);
        let state = *overall.state.lock().unwrap();
        let left = overall.left(&state).unwrap();
        let elapsed = overall.started.elapsed().as_secs_f64();
        assert!((0.02..=elapsed).contains(&left), "{left} s left after {elapsed} s for as much work");
        assert_eq!(overall.label("KRvK"), "KRvK (3/3, about 0 s left in all)");
    }

    /// Times left read as people say them.
    #[test]
    fn times_left_read_as_people_say_them() {
        assert_eq!(duration_text(40.2), "40 s");
        assert_eq!(duration_text(89.4), "89 s");
        assert_eq!(duration_text(89.6), "2 min");
        assert_eq!(duration_text(12.0 * 60.0), "12 min");
        assert_eq!(duration_text(5399.0), "90 min");
        assert_eq!(duration_text(7500.0), "2 h 05 min");
    }
}
