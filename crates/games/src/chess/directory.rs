//! The chess endgame tables as a [`DatabaseDirectory`]: built table by table in dependency
//! order, verified, counted and opened, each with a report.

use std::fmt;
use std::path::Path;
use std::sync::Mutex;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use super::material::{parse_tables, Material};
use super::tablebase::{
    build as build_tables, table_stats, verify_table_until, BuildObserver, LoadedTables, Mismatch,
};
use super::tablebase::{ProbeError, TableEntry, TableStats, Tablebase, TablebaseError};
use super::Dtm;
use crate::databases::{
    report, BuildRequest, DatabaseDirectory, DirectoryError, Overall, Progress, Report, VerifyRequest,
};
use crate::registry::{GameOption, OptionKind};
use crate::verify_record::VerifyRecord;

/// The endgame tables of up to five pieces, one file a material.
pub struct EndgameTables;

/// One table built.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TableBuilt {
    /// Its material (`KQvKR`).
    pub material: String,
    /// Its entries.
    pub entries: u64,
    /// Seconds it took, its file written.
    pub seconds: f64,
    /// Bytes of its file.
    pub bytes: u64,
}

/// What a build did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BuildReport {
    /// The directory.
    pub db: String,
    /// The tables built now, in order.
    pub built: Vec<TableBuilt>,
    /// Tables the directory holds now.
    pub tables: usize,
    /// Seconds in all.
    pub seconds: f64,
    /// Bytes of the directory's tables of 3, 4 and 5 pieces.
    pub bytes_by_pieces: BytesByPieces,
}

/// Bytes of table files by number of pieces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct BytesByPieces {
    /// Tables of 3 pieces.
    #[serde(rename = "3")]
    pub three: u64,
    /// Tables of 4 pieces.
    #[serde(rename = "4")]
    pub four: u64,
    /// Tables of 5 pieces.
    #[serde(rename = "5")]
    pub five: u64,
}

impl BytesByPieces {
    /// The bytes of `tables`' files.
    pub fn of(tables: &Tablebase) -> Self {
        let bytes = tables.bytes_by_pieces();
        Self { three: bytes[3], four: bytes[4], five: bytes[5] }
    }

    /// Bytes in all.
    pub fn total(&self) -> u64 {
        self.three + self.four + self.five
    }
}

impl fmt::Display for BuildReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: built {} tables in {:.1} s; the directory holds {} tables ({} bytes)",
            self.db,
            self.built.len(),
            self.seconds,
            self.tables,
            self.bytes_by_pieces.total()
        )
    }
}

/// What a verification found, table by table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VerifyReport {
    /// Each table: its material, entries, and the positions whose stored value is not what
    /// their moves give (the first few).
    pub tables: Vec<TableVerified>,
    /// How many of those results come from the record of an earlier check, unchecked now.
    pub recorded: usize,
    /// Seconds in all.
    pub seconds: f64,
}

/// The verification of one table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TableVerified {
    /// Its material.
    pub material: String,
    /// Its entries.
    pub entries: u64,
    /// Positions whose stored value differs from their moves' (the first few).
    pub inconsistent: Vec<Mismatch>,
}

/// Positions of inconsistent values shown per table.
const MISMATCHES_SHOWN: usize = 5;

impl fmt::Display for VerifyReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shown = |d: Option<Dtm>| d.map_or("no position".to_string(), |d| d.to_string());
        for t in &self.tables {
            writeln!(f, "{:>8}: {} entries, {} inconsistent", t.material, t.entries, t.inconsistent.len())?;
            for m in &t.inconsistent {
                writeln!(
                    f,
                    "    {}: stored {}, its moves give {}",
                    m.fen,
                    shown(m.stored),
                    shown(m.expected)
                )?;
            }
        }
        write!(f, "verified {} tables in {:.1} s", self.tables.len(), self.seconds)?;
        if self.recorded > 0 {
            write!(f, " ({} of them by an earlier check, from its record)", self.recorded)?;
        }
        Ok(())
    }
}

impl Report for VerifyReport {
    fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("a report serialises")
    }

    fn failure(&self) -> Option<String> {
        let wrong = self.tables.iter().any(|t| !t.inconsistent.is_empty());
        wrong.then(|| "stored values differ from what their moves give".to_string())
    }
}

/// Counts of every table, by side to move.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StatsReport {
    /// The directory.
    pub db: String,
    /// One entry a table.
    pub tables: Vec<TableStats>,
}

impl fmt::Display for StatsReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let row = |f: &mut fmt::Formatter<'_>, cells: [&str; 8]| {
            writeln!(
                f,
                "{:>8} {:>5} {:>12} {:>12} {:>12} {:>12} {:>7}  {}",
                cells[0], cells[1], cells[2], cells[3], cells[4], cells[5], cells[6], cells[7]
            )
        };
        row(f, ["table", "side", "positions", "wins", "draws", "losses", "longest", "a longest mate"])?;
        for t in &self.tables {
            for (side, s) in ["white", "black"].iter().zip(&t.sides) {
                let longest = s.longest.map_or("-".to_string(), |n| n.to_string());
                let numbers = [s.positions, s.wins, s.draws, s.losses].map(|n| n.to_string());
                row(
                    f,
                    [
                        &t.material,
                        side,
                        &numbers[0],
                        &numbers[1],
                        &numbers[2],
                        &numbers[3],
                        &longest,
                        s.longest_fen.as_deref().unwrap_or(""),
                    ],
                )?;
            }
        }
        write!(f, "(positions over all placements, no symmetry folded; longest mate in plies)")
    }
}

report!(BuildReport, StatsReport);

/// The options `build chess` takes.
const BUILD_OPTIONS: &[(&str, GameOption)] = &[(
    "tables",
    GameOption {
        help: "the tables to build, with those their captures and promotions lead to: a material \
               (KQvKR), a comma-separated list, or 3, 4 or 5 for every table of up to that many pieces",
        kind: OptionKind::Text,
        default: "",
    },
)];

impl DatabaseDirectory for EndgameTables {
    fn describe(&self) -> &'static str {
        "chess endgame tables"
    }

    fn build_options(&self) -> &'static [(&'static str, GameOption)] {
        BUILD_OPTIONS
    }

    fn build(
        &self,
        dir: &Path,
        request: &BuildRequest<'_>,
        progress: &dyn Progress,
    ) -> Result<Option<Box<dyn Report>>, DirectoryError> {
        let spec = request.options.get("tables").unwrap_or_default();
        let targets = parse_tables(spec).map_err(TablebaseError::from)?;
        Ok(match request.cluster {
            None => Some(Box::new(build(dir, &targets, progress)?)),
            Some(cluster) => {
                build_on_cluster(dir, &targets, cluster, progress)?.map(|r| Box::new(r) as Box<dyn Report>)
            }
        })
    }

    fn verify(
        &self,
        dir: &Path,
        request: &VerifyRequest,
        progress: &dyn Progress,
    ) -> Result<Box<dyn Report>, DirectoryError> {
        Ok(Box::new(verify(dir, request.record.as_deref(), progress)?))
    }

    fn stats(&self, dir: &Path) -> Result<Box<dyn Report>, DirectoryError> {
        let tables = Tablebase::open(dir)?;
        let mut all = Vec::new();
        for entry in tables.entries() {
            let material: Material = entry.material.parse().map_err(TablebaseError::from)?;
            all.push(table_stats(material, &tables.values(material)?)?);
        }
        Ok(Box::new(StatsReport { db: dir.display().to_string(), tables: all }))
    }

    fn check(&self, dir: &Path) -> Result<(), DirectoryError> {
        Ok(Tablebase::shared(dir)?.check_all()?)
    }
}

/// Builds the tables `targets` need, themselves included, into `dir`, keeping those already
/// complete there.
pub fn build(
    dir: &Path,
    targets: &[Material],
    progress: &dyn Progress,
) -> Result<BuildReport, DirectoryError> {
    let started = Instant::now();
    let closure = Material::closure(targets);
    let units = closure.iter().map(|&m| super::tablebase::build::work_units(m)).sum();
    let overall = Overall::new(closure.len(), units);
    let observer = Tables { progress, overall, built: Mutex::new(Vec::new()) };
    let manifest = build_tables(dir, targets, &observer)?;
    let seconds = started.elapsed().as_secs_f64();
    let tables = Tablebase::open(dir)?;
    Ok(BuildReport {
        db: dir.display().to_string(),
        built: observer.built.into_inner().expect("not poisoned"),
        tables: manifest.tables.len(),
        seconds,
        bytes_by_pieces: BytesByPieces::of(&tables),
    })
}

/// Builds what [`build`] builds, with the same files, on the workers of every process of
/// `cluster` (sharing `dir`): each worker solves its range of each table and writes its
/// entries, and process 0's first worker compresses the table and lists it in the manifest.
/// Process 0 gets the report, the others `None`.
#[cfg(feature = "cluster")]
pub fn build_on_cluster(
    dir: &Path,
    targets: &[Material],
    cluster: &crate::databases::Cluster,
    progress: &dyn Progress,
) -> Result<Option<BuildReport>, DirectoryError> {
    use super::tablebase::layered::LayeredTables;
    use super::tablebase::read_manifest;
    use gamegraph_cluster::dense::LayerEvent;

    let started = Instant::now();
    let order = Material::closure(targets);
    let Some(last) = order.len().checked_sub(1) else {
        return Ok(Some(BuildReport {
            db: dir.display().to_string(),
            built: Vec::new(),
            tables: 0,
            seconds: 0.0,
            bytes_by_pieces: BytesByPieces { three: 0, four: 0, five: 0 },
        }));
    };
    // Processes given other tables would write a mixed directory: they refuse each other when
    // they connect.
    let names: Vec<String> = targets.iter().map(Material::to_string).collect();
    let cluster = cluster.clone().with_job(format!("build chess --tables {}", names.join(",")));
    let (sender, received) = std::sync::mpsc::channel::<LayerEvent>();
    let (owned, targets) = (dir.to_path_buf(), targets.to_vec());
    let units = order.iter().map(|&m| super::tablebase::build::work_units(m)).sum();
    let observer =
        Tables { progress, overall: Overall::new(order.len(), units), built: Mutex::new(Vec::new()) };
    let built = std::thread::scope(|scope| {
        // Process 0's first worker tells each table as it starts, as its own share advances and
        // as it is done; the tables it skips were complete.
        let shown = scope.spawn(|| {
            let mut next = 0;
            for event in received {
                match event {
                    LayerEvent::Started { layer, .. } => {
                        order[next..layer].iter().for_each(|&m| observer.skipped(m));
                        observer.started(order[layer], super::tablebase::build::work_units(order[layer]));
                        next = layer + 1;
                    }
                    LayerEvent::Advanced { units } => observer.advanced(units),
                    LayerEvent::Done { layer, seconds, .. } => {
                        let material = order[layer];
                        let listed = read_manifest(dir)?.and_then(|m| m.entry(material).cloned());
                        let entry = listed.ok_or(TablebaseError::NoTables { dir: dir.to_path_buf() })?;
                        observer.finished(material, seconds, &entry);
                    }
                }
            }
            Ok::<usize, DirectoryError>(next)
        });
        let event = move |event| {
            let _ = sender.send(event);
        };
        let open = move |leader| LayeredTables::open(&owned, &targets, leader);
        let built = gamegraph_cluster::dense::build_layers(&cluster, dir, last, open, event);
        let next = shown.join().expect("the progress thread does not panic")?;
        Ok::<_, DirectoryError>((built?, next))
    });
    let (built, next) = built?;
    crate::databases::report_messages(progress, &cluster);
    if built.is_none() {
        return Ok(None);
    }
    order[next..].iter().for_each(|&m| observer.skipped(m));
    let tables = Tablebase::open(dir)?;
    Ok(Some(BuildReport {
        db: dir.display().to_string(),
        built: observer.built.into_inner().expect("not poisoned"),
        tables: tables.entries().len(),
        seconds: started.elapsed().as_secs_f64(),
        bytes_by_pieces: BytesByPieces::of(&tables),
    }))
}

/// Without the `cluster` feature there is no cluster to build on.
#[cfg(not(feature = "cluster"))]
pub fn build_on_cluster(
    _: &Path,
    _: &[Material],
    cluster: &crate::databases::Cluster,
    _: &dyn Progress,
) -> Result<Option<BuildReport>, DirectoryError> {
    match *cluster {}
}

/// Every entry of every table of `dir` against its children's. With a `record`, each table's
/// result is kept there as it is found, and a table the record holds (checked in the same files)
/// is not checked again, only its file's digest: a check stopped part way resumes.
pub fn verify(
    dir: &Path,
    record: Option<&Path>,
    progress: &dyn Progress,
) -> Result<VerifyReport, DirectoryError> {
    let tables = Tablebase::open(dir)?;
    let started = Instant::now();
    let mut record = VerifyRecord::<TableVerified>::open(record)?;
    let mut loaded = LoadedTables::new();
    let mut verified = Vec::new();
    for entry in tables.entries() {
        if progress.interrupted() {
            return Err(TablebaseError::Interrupted.into());
        }
        let material: Material = entry.material.parse().map_err(TablebaseError::from)?;
        let check = || {
            progress.started(&entry.material, 0);
            let entries = tables.values(material)?;
            // Only the tables this one leads to stay loaded, as in a build: a 5-piece directory
            // does not fit in memory whole.
            for (m, sides) in loaded.missing_for(material) {
                tables.load(&mut loaded, m, sides)?;
            }
            let stop = || progress.interrupted();
            let inconsistent = verify_table_until(material, &entries, &loaded, MISMATCHES_SHOWN, &stop)
                .ok_or(TablebaseError::Interrupted)?;
            progress.finished(&format!("{material:>8}: {} entries checked", entries.len()));
            let checked = entries.len() as u64;
            loaded.insert(material, entries);
            Ok::<_, DirectoryError>(TableVerified {
                material: entry.material.clone(),
                entries: checked,
                inconsistent,
            })
        };
        let (result, recorded) = record.check(&entry.material, &entry.sha256, check)?;
        if recorded {
            // The record stands for the values checked, not for the file as it is now.
            let damaged = |e: ProbeError| TablebaseError::Damaged { material, message: e.to_string() };
            tables.table(material).map_err(damaged)?;
            progress.finished(&format!("{material:>8}: checked before (the record has it)"));
        }
        verified.push(result);
    }
    let recorded = record.recorded();
    Ok(VerifyReport { tables: verified, recorded, seconds: started.elapsed().as_secs_f64() })
}

/// Reports each table to a [`Progress`], labelled with the time left in all, and keeps what
/// each took.
struct Tables<'a> {
    progress: &'a dyn Progress,
    overall: Overall,
    built: Mutex<Vec<TableBuilt>>,
}

impl BuildObserver for Tables<'_> {
    fn skipped(&self, material: Material) {
        self.overall.skipped(super::tablebase::build::work_units(material));
        self.progress.finished(&format!("{material:>8}: already built"));
    }

    fn started(&self, material: Material, units: u64) {
        self.progress.started(&self.overall.label(&material.to_string()), units);
    }

    fn advanced(&self, units: u64) {
        self.progress.advanced(units);
    }

    fn interrupted(&self) -> bool {
        self.progress.interrupted()
    }

    fn finished(&self, material: Material, seconds: f64, entry: &TableEntry) {
        self.overall.finished(super::tablebase::build::work_units(material));
        self.progress.finished(&format!(
            "{material:>8}: {:>11} entries in {seconds:>7.2} s, {:>10} bytes",
            entry.entries, entry.bytes
        ));
        let built = TableBuilt {
            material: material.to_string(),
            entries: entry.entries,
            seconds,
            bytes: entry.bytes,
        };
        self.built.lock().expect("not poisoned").push(built);
    }
}
