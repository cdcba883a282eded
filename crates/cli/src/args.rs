//! Argument groups that several commands share: the game and its options, the engine's settings,
//! the `--json` flag and who plays in `play`.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, ValueEnum};
use gamegraph::engine::{Engine, EngineSettings};
use gamegraph::Searchable;
use gamegraph_games::{GameOption, GameOptions, OptionKind, GAMES};

/// Output format shared by the commands.
#[derive(Args, Debug, Clone, Copy)]
pub struct JsonFlag {
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Where a retrograde analysis runs when it runs on timely dataflow: several worker threads of
/// this process, or several processes listed in a host file.
#[derive(Args, Debug, Clone)]
pub struct ClusterArgs {
    /// Run on the processes of this file, one host:port a line: every process runs the same
    /// command but for --process. Process 0 prints the result.
    #[arg(long, value_name = "FILE", requires = "process")]
    pub hostfile: Option<std::path::PathBuf>,
    /// This process's line in --hostfile, counted from 0.
    #[arg(long, value_name = "I", requires = "hostfile")]
    pub process: Option<usize>,
    /// Timely dataflow worker threads per process (1 to 256; with --hostfile, default 1; every
    /// process needs the same).
    #[arg(long, value_name = "W")]
    pub workers: Option<usize>,
    /// Seconds to wait for every process of --hostfile to connect.
    #[arg(long, value_name = "SECONDS", default_value_t = 60.0, requires = "hostfile")]
    pub connect_timeout: f64,
    /// Seconds another process of --hostfile may stay silent (frozen, or cut off from this one)
    /// before every process stops the run with an error. The heartbeats are UDP datagrams to
    /// each line's port; 0 turns them off (for networks that drop UDP).
    #[arg(long, value_name = "SECONDS", default_value_t = 60.0, requires = "hostfile")]
    pub hang_timeout: f64,
}

impl ClusterArgs {
    /// The cluster asked for, if any (`None`: the one-machine kernel, as without these options).
    pub fn cluster(&self) -> anyhow::Result<Option<gamegraph_cluster::Cluster>> {
        let workers = self.workers.unwrap_or(1);
        Ok(match (&self.hostfile, self.process) {
            (Some(file), Some(process)) => {
                let seconds = |value: f64, name: &str, zero: bool| {
                    if (value > 0.0 || zero && value == 0.0) && value <= 86_400.0 {
                        Ok(Duration::from_secs_f64(value))
                    } else {
                        let low = if zero { "from 0" } else { "above 0" };
                        Err(anyhow::anyhow!("--{name} must be {low} and at most 86400 seconds"))
                    }
                };
                let mut cluster = gamegraph_cluster::Cluster::from_hostfile(file, process, workers)?;
                cluster.connect_timeout = seconds(self.connect_timeout, "connect-timeout", false)?;
                cluster.hang_timeout = seconds(self.hang_timeout, "hang-timeout", true)?;
                let shortest = gamegraph_cluster::heartbeat::MIN_HANG_TIMEOUT;
                if !cluster.hang_timeout.is_zero() && cluster.hang_timeout < shortest {
                    anyhow::bail!(
                        "--hang-timeout {}: heartbeats are {} s apart, so give 0 (no heartbeats) or at least {} s",
                        self.hang_timeout,
                        gamegraph_cluster::heartbeat::BEAT_EVERY.as_secs_f64(),
                        shortest.as_secs_f64()
                    );
                }
                Some(cluster)
            }
            _ if self.workers.is_some() => Some(gamegraph_cluster::Cluster::new(Vec::new(), 0, workers)?),
            _ => None,
        })
    }
}

/// The game, its options and the exploration limit shared by solve, build, play and search.
/// The options are those of the games' registry entries ('gamegraph games'), one flag each.
#[derive(Args, Debug, Clone)]
pub struct GameArgs {
    /// The game: see 'gamegraph games'.
    pub game: String,
    #[command(flatten)]
    pub options: EntryOptions<GameOptionList>,
    /// A database to read values from: the file written by 'build --out' (games solved whole)
    /// or the directory written by 'build GAME --db DIR' (Oware score files, chess endgame
    /// tables).
    #[arg(long, value_name = "PATH")]
    pub db: Option<PathBuf>,
    /// Stop with an error when more positions than this are reachable (retrograde games).
    #[arg(long, default_value_t = 20_000_000, value_name = "POSITIONS")]
    pub limit: usize,
}

impl GameArgs {
    /// Runs `visitor` with the game named, set up with its options.
    pub fn visit<V: gamegraph_games::GameVisitor<Output = anyhow::Result<()>>>(
        &self,
        visitor: V,
    ) -> anyhow::Result<()> {
        gamegraph_games::visit(&self.game, &self.options(), visitor)?
    }

    /// The options given, by the names of the registry.
    pub fn options(&self) -> GameOptions {
        let mut options = self.options.given();
        options.database = self.db.clone();
        options
    }
}

/// One option as a flag: its name, what it is, and the games that take it with its default
/// there.
pub type FlagOption = (&'static str, &'static GameOption, Vec<(&'static str, &'static str)>);

/// Where a list of options comes from: every game's, or every database build's.
pub trait OptionList: Clone + std::fmt::Debug + Send + Sync + 'static {
    /// Each option: its name, what it is, and the games that take it with its default there.
    fn options() -> Vec<FlagOption>;
}

/// The options of the games' registry entries.
#[derive(Debug, Clone)]
pub struct GameOptionList;

impl OptionList for GameOptionList {
    fn options() -> Vec<FlagOption> {
        gather(GAMES.iter().map(|g| (g.name, g.options)))
    }
}

/// The options of the games' database builds ('build GAME --db DIR').
#[derive(Debug, Clone)]
pub struct BuildOptionList;

impl OptionList for BuildOptionList {
    fn options() -> Vec<FlagOption> {
        gather(GAMES.iter().filter_map(|g| Some((g.name, gamegraph_games::databases(g)?.build_options()))))
    }
}

/// The options of `owners` by name, each with the owners that take it and their defaults.
fn gather(
    owners: impl Iterator<Item = (&'static str, &'static [(&'static str, GameOption)])>,
) -> Vec<FlagOption> {
    let mut all: Vec<FlagOption> = Vec::new();
    for (owner, options) in owners {
        for (name, option) in options {
            match all.iter_mut().find(|(n, ..)| n == name) {
                Some((.., owners)) => owners.push((owner, option.default)),
                None => all.push((name, option, vec![(owner, option.default)])),
            }
        }
    }
    all
}

/// One command-line flag for each option of a list (`--width 7`), its help made from the
/// registry: a new game's option needs no change here. The values are checked by the
/// library against the game's entry (the same checks and words as the web page's query
/// parameters).
#[derive(Debug, Clone, Default)]
pub struct EntryOptions<L> {
    values: Vec<(&'static str, String)>,
    list: std::marker::PhantomData<L>,
}

impl<L> EntryOptions<L> {
    /// The options given, by name.
    pub fn given(&self) -> GameOptions {
        let mut options = GameOptions::default();
        for (name, value) in &self.values {
            options.set(name, value);
        }
        options
    }

    /// The value given for `name`.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.values.iter().find(|(n, _)| *n == name).map(|(_, v)| v.as_str())
    }
}

impl<L: OptionList> clap::FromArgMatches for EntryOptions<L> {
    fn from_arg_matches(matches: &clap::ArgMatches) -> Result<Self, clap::Error> {
        let mut values = Vec::new();
        for (name, ..) in L::options() {
            if let Some(value) = matches.get_one::<String>(name) {
                values.push((name, value.clone()));
            }
        }
        Ok(Self { values, list: std::marker::PhantomData })
    }

    fn update_from_arg_matches(&mut self, matches: &clap::ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(matches)?;
        Ok(())
    }
}

impl<L: OptionList> Args for EntryOptions<L> {
    fn augment_args(mut command: clap::Command) -> clap::Command {
        for (name, option, owners) in L::options() {
            let owners: Vec<String> = owners
                .iter()
                .map(|(game, default)| match *default {
                    "" => game.to_string(),
                    default => format!("{game}: {default}"),
                })
                .collect();
            let value_name = match option.kind {
                OptionKind::Integer { .. } => "N",
                OptionKind::Choice { .. } => "CHOICE",
                OptionKind::Text => "SPEC",
            };
            let help =
                format!("{}{} ({})", option.help[..1].to_uppercase(), &option.help[1..], owners.join("; "));
            command = command.arg(clap::Arg::new(name).long(name).value_name(value_name).help(help));
        }
        command
    }

    fn augment_args_for_update(command: clap::Command) -> clap::Command {
        Self::augment_args(command)
    }
}

/// Settings of the alpha-beta engine.
#[derive(Args, Debug, Clone)]
pub struct EngineArgs {
    /// Search threads: exact solves split subtrees over them, depth-limited searches run Lazy SMP;
    /// default: every core.
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=256))]
    pub threads: Option<u16>,
    /// Transposition table size in MiB (at most three quarters of the memory). A bigger table
    /// searches fewer nodes, but each costs more once its probes miss the processor's cache.
    #[arg(long, default_value_t = EngineSettings::default().tt_mib as u32, value_name = "MIB", value_parser = clap::value_parser!(u32).range(1..))]
    pub hash: u32,
    /// Turn on optional engine techniques, off by default because they did not pay on the games
    /// measured (comma-separated: killers, history, mtdf for MTD(f) instead of aspiration windows
    /// in iterative deepening).
    #[arg(long, value_delimiter = ',', value_name = "TECHNIQUES")]
    pub with: Vec<Technique>,
    /// Turn off engine techniques, to measure what each brings (comma-separated: pvs,
    /// aspiration, etc for enhanced transposition cutoffs near the root, null-move for null-move
    /// pruning and lmr for late move reductions in depth-limited chess searches, probcut for the
    /// selective pass with probable bounds before an Othello exact solve).
    #[arg(long, value_delimiter = ',', value_name = "TECHNIQUES")]
    pub without: Vec<Technique>,
}

/// Engine techniques that can be switched on or off.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Technique {
    Pvs,
    Aspiration,
    Killers,
    History,
    Etc,
    Mtdf,
    NullMove,
    Lmr,
    Probcut,
}

impl EngineArgs {
    /// The engine for `game`, with a clear error when the table does not fit in memory.
    pub fn engine<'g, G: Searchable + Sync>(&self, game: &'g G) -> anyhow::Result<Engine<'g, G>> {
        let settings = self.settings()?;
        Engine::try_new(game, settings)
            .map_err(|e| anyhow::anyhow!("cannot allocate a {} MiB table: {e}", self.hash))
    }

    /// The settings, refused when the table would take more than three quarters of the memory.
    pub fn settings(&self) -> anyhow::Result<EngineSettings> {
        let threads = self
            .threads
            .map(usize::from)
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
        let defaults = EngineSettings::default();
        let pick =
            |t: Technique, default: bool| (default || self.with.contains(&t)) && !self.without.contains(&t);
        let settings = EngineSettings {
            tt_mib: self.hash as usize,
            threads: threads.max(1),
            pvs: pick(Technique::Pvs, defaults.pvs),
            aspiration: pick(Technique::Aspiration, defaults.aspiration),
            killers: pick(Technique::Killers, defaults.killers),
            history: pick(Technique::History, defaults.history),
            etc: pick(Technique::Etc, defaults.etc),
            mtdf: pick(Technique::Mtdf, defaults.mtdf),
            null_move: pick(Technique::NullMove, defaults.null_move),
            late_move_reductions: pick(Technique::Lmr, defaults.late_move_reductions),
            probable_bounds: pick(Technique::Probcut, defaults.probable_bounds),
        };
        let total = crate::terminal::memory_bytes();
        if let Some(total) = total.filter(|&t| (settings.tt_mib as u64) << 20 > t / 4 * 3) {
            anyhow::bail!(
                "--hash {} MiB is more than three quarters of this machine's {} MiB of memory",
                settings.tt_mib,
                total >> 20
            );
        }
        Ok(settings)
    }
}

/// Who makes the moves in `play`.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seat {
    /// You move first (from the given position); the engine answers.
    First,
    /// The engine moves first.
    Second,
    /// You make every move (the engine only shows the values).
    Both,
    /// The engine plays both sides.
    None,
}

impl Seat {
    /// Whether you make the move at `ply` (0 for the first move played).
    pub fn moves_at(self, ply: usize) -> bool {
        match self {
            Seat::First => ply.is_multiple_of(2),
            Seat::Second => ply % 2 == 1,
            Seat::Both => true,
            Seat::None => false,
        }
    }
}

/// The longest time an option accepts: a year.
pub const MAX_SECONDS: f64 = 365.0 * 24.0 * 3600.0;

/// Reads a time option: a positive number of seconds, at most [`MAX_SECONDS`]. Used as clap's
/// value parser, so that every `--time` refuses the same values with the same words (exit 2).
pub fn seconds(text: &str) -> Result<Duration, String> {
    match text.trim().parse::<f64>() {
        Ok(t) if t > 0.0 && t <= MAX_SECONDS => Ok(Duration::from_secs_f64(t)),
        _ => Err(format!("'{text}' is not a number of seconds above 0 and at most {MAX_SECONDS}")),
    }
}
