//! The Awari score files as a [`DatabaseDirectory`]: built stone count by stone count on this
//! machine or over a cluster, verified, counted and opened, each with a report.

use std::fmt;
use std::path::Path;
use std::sync::Mutex;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use super::database::{build as build_here, Database, LayerStats};
use super::layer::Progress as LayerProgress;
use super::{Pits, Rules, MAX_STONES};
use crate::databases::{
    report, BuildRequest, Cluster, DatabaseDirectory, DirectoryError, Progress, Report, VerifyRequest,
};
use crate::registry::{GameError, GameOption, GameOptions, OptionKind};
use crate::verify_record::VerifyRecord;

/// The Awari score files of the published layout, one file a stone count.
pub struct ScoreFiles;

/// One stone count built.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct LayerBuilt {
    /// Stones on the board.
    pub stones: usize,
    /// Positions in its file.
    pub positions: u64,
    /// Seconds it took, its file written.
    pub seconds: f64,
}

/// What a build did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BuildReport {
    /// The rule variant.
    pub rules: &'static str,
    /// The largest stone count asked for.
    pub stones: usize,
    /// The directory.
    pub db: String,
    /// Stone counts found complete and kept.
    pub resumed: usize,
    /// Stone counts solved now.
    pub built: Vec<usize>,
    /// Seconds in all.
    pub seconds: f64,
    /// Each stone count solved now, on this machine (a cluster's leader reports the same).
    #[serde(skip)]
    pub layers: Vec<LayerBuilt>,
}

impl fmt::Display for BuildReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.resumed > 0 {
            writeln!(
                f,
                "kept the {} complete stone counts 0 to {} already in {}",
                self.resumed,
                self.resumed - 1,
                self.db
            )?;
        }
        write!(
            f,
            "{} rules, 0 to {} stones in {}: built {} stone counts in {:.1} s",
            self.rules,
            self.stones,
            self.db,
            self.built.len(),
            self.seconds
        )
    }
}

/// What a verification found.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VerifyReport {
    /// Score files whose SHA-256 matches the manifest (all of them, or the verification failed
    /// before values were looked at).
    pub files: usize,
    /// Each stone count's positions checked and inconsistent, with the first few of those.
    pub layers: Vec<LayerVerified>,
    /// How many of those results come from the record of an earlier check, unchecked now.
    pub recorded: usize,
    /// Seconds in all.
    pub seconds: f64,
}

/// The verification of one stone count.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LayerVerified {
    /// Stones on the board.
    pub stones: usize,
    /// Positions checked.
    pub checked: u64,
    /// Positions whose stored value is not their best move's.
    pub inconsistent: u64,
    /// The first few of those: the pits, the stored value and the best move's.
    pub examples: Vec<(Pits, i8, i8)>,
}

impl fmt::Display for VerifyReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "checksums: {} files match the manifest", self.files)?;
        for layer in &self.layers {
            writeln!(
                f,
                "{:>2} stones: {} positions checked, {} inconsistent",
                layer.stones, layer.checked, layer.inconsistent
            )?;
            for (pits, stored, computed) in &layer.examples {
                let pits: Vec<String> = pits.iter().map(u8::to_string).collect();
                writeln!(f, "    {}: stored {stored}, best move {computed}", pits.join(","))?;
            }
        }
        write!(f, "verified in {:.1} s", self.seconds)?;
        if self.recorded > 0 {
            write!(f, " ({} stone counts by an earlier check, from its record)", self.recorded)?;
        }
        Ok(())
    }
}

impl Report for VerifyReport {
    fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("a report serialises")
    }

    fn failure(&self) -> Option<String> {
        let wrong: u64 = self.layers.iter().map(|l| l.inconsistent).sum();
        (wrong > 0).then(|| format!("{wrong} stored values differ from their best move's value"))
    }
}

/// Counts of every stone count.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StatsReport {
    /// The rule variant.
    pub rules: &'static str,
    /// One line a stone count.
    pub stones: Vec<LayerStats>,
}

impl fmt::Display for StatsReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:>6} {:>12} {:>12} {:>12} {:>12} {:>12}",
            "stones", "positions", "wins", "draws", "losses", "sum"
        )?;
        for s in &self.stones {
            write!(
                f,
                "\n{:>6} {:>12} {:>12} {:>12} {:>12} {:>12}",
                s.stones, s.positions, s.wins, s.draws, s.losses, s.sum
            )?;
        }
        Ok(())
    }
}

report!(BuildReport, StatsReport);

/// The options `build oware` takes beside the rules.
const BUILD_OPTIONS: &[(&str, GameOption)] = &[(
    "stones",
    GameOption {
        help: "build every stone count from 0 to this one (0 to 48), resuming a killed build",
        kind: OptionKind::Integer { min: 0, max: MAX_STONES as u32 },
        default: "",
    },
)];

/// The rules that `options` asks for (the default if none).
fn rules_of(options: &GameOptions) -> Result<Rules, GameError> {
    options.get("rules").map_or(Ok(Rules::default()), |r| r.parse().map_err(GameError::BadOptions))
}

impl DatabaseDirectory for ScoreFiles {
    fn describe(&self) -> &'static str {
        "Oware score files"
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
        let rules = rules_of(request.options)?;
        let stones: usize = request.options.get("stones").and_then(|s| s.parse().ok()).unwrap_or(0);
        Ok(build(dir, rules, stones, request.cluster, progress)?.map(|r| Box::new(r) as Box<dyn Report>))
    }

    fn verify(
        &self,
        dir: &Path,
        request: &VerifyRequest,
        progress: &dyn Progress,
    ) -> Result<Box<dyn Report>, DirectoryError> {
        let started = Instant::now();
        let db = Database::open(dir)?;
        progress.started("checksums", 0);
        db.verify_checksums()?;
        progress.finished(&format!("checksums: {} files match the manifest", db.stones() + 1));
        let mut record = VerifyRecord::<LayerVerified>::open(request.record.as_deref())?;
        let mut layers = Vec::new();
        let checked_of = request.sample.map_or("every position".to_string(), |s| format!("sample {s}"));
        for (n, entry) in db.manifest().layers.iter().enumerate() {
            if progress.interrupted() {
                return Err(super::database::DatabaseError::Interrupted.into());
            }
            // A sample's result does not stand for a check of every position, nor the reverse.
            let part = format!("{n} stones, {checked_of}");
            let check = || {
                progress.started(&format!("{n} stones"), 0);
                let (checked, inconsistent, examples) = db.verify_values(n, request.sample);
                progress.finished(&format!("{n:>2} stones: {checked} positions checked"));
                let examples = examples.into_iter().map(|e| (e.pits, e.stored, e.computed)).collect();
                Ok::<_, DirectoryError>(LayerVerified { stones: n, checked, inconsistent, examples })
            };
            let (layer, recorded) = record.check(&part, &entry.sha256, check)?;
            if recorded {
                progress.finished(&format!("{n:>2} stones: checked before (the record has it)"));
            }
            layers.push(layer);
        }
        let recorded = record.recorded();
        let seconds = started.elapsed().as_secs_f64();
        Ok(Box::new(VerifyReport { files: db.stones() + 1, layers, recorded, seconds }))
    }

    fn stats(&self, dir: &Path) -> Result<Box<dyn Report>, DirectoryError> {
        let db = Database::open(dir)?;
        Ok(Box::new(StatsReport { rules: db.rules().name(), stones: db.stats() }))
    }

    fn check(&self, dir: &Path) -> Result<(), DirectoryError> {
        Database::shared(dir)?;
        Ok(())
    }
}

/// Builds (or completes) the database of `rules` in `dir` up to `stones` stones, on this
/// machine or on the workers of `cluster`. On a cluster, process 0 gets the report and the
/// others `None`.
pub fn build(
    dir: &Path,
    rules: Rules,
    stones: usize,
    cluster: Option<&Cluster>,
    progress: &dyn Progress,
) -> Result<Option<BuildReport>, DirectoryError> {
    if stones > MAX_STONES {
        return Err(super::database::DatabaseError::TooManyStones { stones }.into());
    }
    let started = Instant::now();
    let bars = Layers { progress, current: Mutex::new(None), built: Mutex::new(Vec::new()) };
    let (resumed, built) = match cluster {
        None => {
            let report = build_here(dir, rules, stones, &bars)?;
            (report.resumed, report.built)
        }
        Some(cluster) => match build_on_cluster(dir, rules, stones, cluster, &bars)? {
            Some(built) => built,
            None => return Ok(None),
        },
    };
    Ok(Some(BuildReport {
        rules: rules.name(),
        stones,
        db: dir.display().to_string(),
        resumed,
        built,
        seconds: started.elapsed().as_secs_f64(),
        layers: bars.built.into_inner().expect("not poisoned"),
    }))
}

/// Every stone count solved by the workers of every process of `cluster`, each writing its
/// range of the score file (in the directory they share); process 0's first worker completes
/// each file and the manifest. Process 0 gets the stone counts resumed and those built, the
/// others `None`.
#[cfg(feature = "cluster")]
fn build_on_cluster(
    dir: &Path,
    rules: Rules,
    stones: usize,
    cluster: &Cluster,
    layers: &Layers<'_>,
) -> Result<Option<(usize, Vec<usize>)>, DirectoryError> {
    use gamegraph_cluster::dense::LayerEvent;

    let owned = dir.to_path_buf();
    // Processes given other rules or stone counts would write a mixed database: they refuse
    // each other when they connect.
    let cluster = cluster.clone().with_job(format!("build oware --rules {rules} --stones {stones}"));
    let (sender, received) = std::sync::mpsc::channel::<LayerEvent>();
    let built = std::thread::scope(|scope| {
        // Process 0's first worker tells each stone count as it starts, as its own share
        // advances and as it is done: a bar for each, as on one machine.
        scope.spawn(|| {
            for event in received {
                match event {
                    LayerEvent::Started { layer, positions } => layers.start(layer, positions),
                    LayerEvent::Advanced { units } => layers.advance(units),
                    LayerEvent::Done { layer, positions, seconds } => {
                        layers.current.lock().expect("not poisoned").take();
                        layers.record(LayerBuilt { stones: layer, positions, seconds });
                    }
                }
            }
        });
        let event = move |event| {
            let _ = sender.send(event);
        };
        let open = move |leader| super::database::Builder::open(&owned, rules, stones, leader);
        gamegraph_cluster::dense::build_layers(&cluster, dir, stones, open, event)
    })?;
    crate::databases::report_messages(layers.progress, &cluster);
    Ok(built.map(|b| (b.resumed, b.built)))
}

/// Without the `cluster` feature there is no cluster to build on.
#[cfg(not(feature = "cluster"))]
fn build_on_cluster(
    _: &Path,
    _: Rules,
    _: usize,
    cluster: &Cluster,
    _: &Layers<'_>,
) -> Result<Option<(usize, Vec<usize>)>, DirectoryError> {
    match *cluster {}
}

/// Reports each stone count to a [`Progress`] and keeps what each took.
struct Layers<'a> {
    progress: &'a dyn Progress,
    /// The stone count being solved: when it started, and its positions.
    current: Mutex<Option<(Instant, u64)>>,
    built: Mutex<Vec<LayerBuilt>>,
}

impl Layers<'_> {
    fn record(&self, layer: LayerBuilt) {
        let LayerBuilt { stones, positions, seconds } = layer;
        self.progress.finished(&format!(
            "{stones:>2} stones: {positions:>11} positions in {seconds:>7.2} s ({:.2} M positions/s)",
            positions as f64 / seconds.max(1e-9) / 1e6
        ));
        self.built.lock().expect("not poisoned").push(layer);
    }
}

impl LayerProgress for Layers<'_> {
    fn start(&self, stones: usize, positions: u64) {
        self.progress.started(&format!("{stones} stones"), 2 * positions);
        *self.current.lock().expect("not poisoned") = Some((Instant::now(), positions));
    }

    fn advance(&self, units: u64) {
        self.progress.advanced(units);
    }

    fn interrupted(&self) -> bool {
        self.progress.interrupted()
    }

    fn finish(&self, stones: usize) {
        if let Some((started, positions)) = self.current.lock().expect("not poisoned").take() {
            self.record(LayerBuilt { stones, positions, seconds: started.elapsed().as_secs_f64() });
        }
    }
}
