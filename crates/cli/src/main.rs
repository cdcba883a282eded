//! The `gamegraph` command: solve game trees, game graphs and built-in games from the terminal.
//!
//! Every command only parses its arguments, calls the `gamegraph` library and prints; the
//! algorithms live in the library so the web front end and other programs get the same answers.

mod bench;
mod game_commands;
mod graph_command;
mod io;
mod oware_commands;
mod search_commands;
mod tree_command;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Solve two-player, perfect-information games: game trees with minimax and alpha-beta, game
/// graphs by retrograde analysis (win / lose / draw, stakes, minimax values, cycles included),
/// and built-in games (tic-tac-toe, Nim, Connect 4, Othello, Awari / Oware with endgame databases).
#[derive(Parser, Debug)]
#[command(name = "gamegraph", version, max_term_width = 100)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Minimax or alpha-beta on a game tree such as 'A(B(4 9 6) C(3 7 5) D(8 2 10))' (root MAX).
    Tree(TreeArgs),
    /// Solve a game graph file by retrograde analysis and print every position's value.
    Graph(GraphArgs),
    /// Value of one position of a built-in game, with the value of every move.
    Solve(SolveArgs),
    /// Strongly solve a built-in game (every reachable position) and optionally save the database;
    /// for Oware, build the endgame databases by stone count.
    Build(BuildArgs),
    /// Check an Oware database: checksums, and every stored value against its children's.
    Verify(VerifyArgs),
    /// Win / draw / loss counts of an Oware database, by stone count.
    Stats(StatsArgs),
    /// Play a built-in game in the terminal against the engine: perfect play where the game is
    /// solved (whole, by a database, or by an exact search in time), a limited search elsewhere.
    Play(PlayArgs),
    /// Depth-limited alpha-beta search of a position (iterative deepening, table, all cores).
    Search(SearchArgs),
    /// Count the leaves of the game tree to a depth (perft): the check of a move generator.
    Perft(PerftArgs),
    /// Measure the engines.
    Bench(BenchArgs),
    /// List the built-in games with their position and move notations.
    Games(GamesArgs),
    /// Serve the web page: play every game with each move's value, watch minimax and alpha-beta
    /// on trees, draw solved graphs (JSON API under /api).
    Serve(ServeArgs),
}

#[derive(Args, Debug)]
struct ServeArgs {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    host: std::net::IpAddr,
    /// Port to listen on (0: any free port).
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// A directory of Oware score files (from 'build oware --db DIR') for exact Oware values.
    #[arg(long, value_name = "DIR")]
    db: Option<PathBuf>,
}

/// Output format shared by the commands.
#[derive(Args, Debug, Clone, Copy)]
struct JsonFlag {
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(Args, Debug)]
struct TreeArgs {
    /// The tree: leaves are integers (MAX's point of view), inner nodes an optional label and
    /// children in parentheses. '-' reads it from standard input.
    tree: String,
    /// Search algorithm.
    #[arg(long, value_enum, default_value_t = AlgoArg::Alphabeta)]
    algo: AlgoArg,
    /// Order in which children are searched.
    #[arg(long, value_enum, default_value_t = OrderArg::Natural)]
    order: OrderArg,
    /// Print Graphviz (values on nodes, pruned edges dashed) instead of a report.
    #[arg(long, conflicts_with = "json")]
    dot: bool,
    /// With --json, include every step of the search (window on entry, value on exit, prunes).
    #[arg(long)]
    trace: bool,
    #[command(flatten)]
    output: JsonFlag,
}

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
enum AlgoArg {
    Minimax,
    Alphabeta,
}

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
enum OrderArg {
    Natural,
    Best,
    Worst,
}

#[derive(Args, Debug)]
struct GraphArgs {
    /// The graph file; '-' reads standard input.
    file: PathBuf,
    /// Value model: outcome (win/lose/draw), stakes (the seed's p) or minimax (zero-sum payoff).
    #[arg(long, value_enum, default_value_t = ModelArg::Stakes)]
    model: ModelArg,
    /// File format: 'text' (a -> b c / b = 3 / a) or 'edges' (u v / u = p, numeric ids).
    #[arg(long, value_enum, default_value_t = FormatArg::Text)]
    format: FormatArg,
    /// Print CSV: name,outcome,value,remoteness,best.
    #[arg(long, conflicts_with_all = ["json", "dot"])]
    csv: bool,
    /// Print Graphviz with positions coloured by outcome.
    #[arg(long, conflicts_with = "json")]
    dot: bool,
    #[command(flatten)]
    output: JsonFlag,
}

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
enum ModelArg {
    Outcome,
    Stakes,
    Minimax,
}

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
enum FormatArg {
    Text,
    Edges,
}

/// The game and the exploration limit shared by solve, build and play.
#[derive(Args, Debug, Clone)]
struct GameArgs {
    /// The game: see 'gamegraph games'.
    game: String,
    /// Board width, for games that have one (Connect 4: 7).
    #[arg(long)]
    width: Option<u32>,
    /// Board height, for games that have one (Connect 4: 6).
    #[arg(long)]
    height: Option<u32>,
    /// Rule variant, for games that have several (Oware: vu, the default, or abapa).
    #[arg(long)]
    rules: Option<String>,
    /// A database to read values from: the file written by 'build --out' (games solved whole)
    /// or the directory of score files written by 'build oware --db DIR'.
    #[arg(long, value_name = "PATH")]
    db: Option<PathBuf>,
    /// Stop with an error when more positions than this are reachable (retrograde games).
    #[arg(long, default_value_t = 20_000_000, value_name = "POSITIONS")]
    limit: usize,
}

impl GameArgs {
    fn options(&self) -> gamegraph_games::GameOptions {
        gamegraph_games::GameOptions {
            width: self.width,
            height: self.height,
            rules: self.rules.clone(),
            database: self.db.clone(),
        }
    }
}

/// Settings of the alpha-beta engine.
#[derive(Args, Debug, Clone)]
struct EngineArgs {
    /// Search threads: exact solves split subtrees over them, depth-limited searches run Lazy SMP;
    /// default: every core.
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=256))]
    threads: Option<u16>,
    /// Transposition table size in MiB (at most three quarters of the memory).
    #[arg(long, default_value_t = 256, value_name = "MIB", value_parser = clap::value_parser!(u32).range(1..))]
    hash: u32,
    /// Turn on optional engine techniques, off by default because they did not pay on the games
    /// measured (comma-separated: killers, history, mtdf for MTD(f) instead of aspiration windows
    /// in iterative deepening).
    #[arg(long, value_delimiter = ',', value_name = "TECHNIQUES")]
    with: Vec<Technique>,
    /// Turn off engine techniques, to measure what each brings (comma-separated: pvs,
    /// aspiration, etc for enhanced transposition cutoffs near the root).
    #[arg(long, value_delimiter = ',', value_name = "TECHNIQUES")]
    without: Vec<Technique>,
}

/// Engine techniques that can be switched on or off.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
enum Technique {
    Pvs,
    Aspiration,
    Killers,
    History,
    Etc,
    Mtdf,
}

impl EngineArgs {
    /// The engine for `game`, with a clear error when the table does not fit in memory.
    fn engine<'g, G: gamegraph::Evaluate + gamegraph::PositionKey + Sync>(
        &self,
        game: &'g G,
    ) -> anyhow::Result<gamegraph::engine::Engine<'g, G>> {
        let settings = self.settings();
        let total = io::memory_bytes();
        if let Some(total) = total.filter(|&t| (settings.tt_mib as u64) << 20 > t / 4 * 3) {
            anyhow::bail!(
                "--hash {} MiB is more than three quarters of this machine's {} MiB of memory",
                settings.tt_mib,
                total >> 20
            );
        }
        gamegraph::engine::Engine::try_new(game, settings)
            .map_err(|e| anyhow::anyhow!("cannot allocate a {} MiB table: {e}", self.hash))
    }

    fn settings(&self) -> gamegraph::engine::EngineSettings {
        let threads = self
            .threads
            .map(usize::from)
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
        let defaults = gamegraph::engine::EngineSettings::default();
        let pick =
            |t: Technique, default: bool| (default || self.with.contains(&t)) && !self.without.contains(&t);
        gamegraph::engine::EngineSettings {
            tt_mib: self.hash as usize,
            threads: threads.max(1),
            pvs: pick(Technique::Pvs, defaults.pvs),
            aspiration: pick(Technique::Aspiration, defaults.aspiration),
            killers: pick(Technique::Killers, defaults.killers),
            history: pick(Technique::History, defaults.history),
            etc: pick(Technique::Etc, defaults.etc),
            mtdf: pick(Technique::Mtdf, defaults.mtdf),
        }
    }
}

#[derive(Args, Debug)]
struct SolveArgs {
    #[command(flatten)]
    game: GameArgs,
    /// The position in the game's notation (the start if omitted).
    #[arg(allow_hyphen_values = true)]
    position: Option<String>,
    /// Search games: print the exact score of every move (a full column is marked 'full').
    #[arg(long)]
    analyze: bool,
    /// Search games: only win (1), draw (0) or loss (-1), which is faster.
    #[arg(long)]
    weak: bool,
    /// Search games: print nodes and time for each position.
    #[arg(long)]
    stats: bool,
    /// Database games, beyond the database: search this many plies (default: --time).
    #[arg(long)]
    depth: Option<u32>,
    /// Database games, beyond the database: seconds of search in all, shared by the moves.
    #[arg(long, value_name = "SECONDS", default_value_t = 5.0)]
    time: f64,
    #[command(flatten)]
    engine: EngineArgs,
    #[command(flatten)]
    output: JsonFlag,
}

#[derive(Args, Debug)]
struct BuildArgs {
    #[command(flatten)]
    game: GameArgs,
    /// Solve everything reachable from this position instead of the start.
    #[arg(long, value_name = "POSITION")]
    from: Option<String>,
    /// Write the database here (atomically: a complete file or none).
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Oware: build every stone count from 0 to this one (into --db DIR, resuming a killed build).
    #[arg(long, value_name = "N")]
    stones: Option<usize>,
    #[command(flatten)]
    output: JsonFlag,
}

#[derive(Args, Debug)]
struct VerifyArgs {
    /// The game (oware).
    game: String,
    /// The database directory.
    #[arg(long, value_name = "DIR")]
    db: PathBuf,
    /// Check every position instead of a sample.
    #[arg(long)]
    full: bool,
    /// Positions checked per stone count without --full.
    #[arg(long, default_value_t = 100_000, value_name = "N")]
    sample: u64,
}

#[derive(Args, Debug)]
struct StatsArgs {
    /// The game (oware).
    game: String,
    /// The database directory.
    #[arg(long, value_name = "DIR")]
    db: PathBuf,
    #[command(flatten)]
    output: JsonFlag,
}

#[derive(Args, Debug)]
struct PlayArgs {
    #[command(flatten)]
    game: GameArgs,
    /// The position to play from (the start if omitted).
    #[arg(allow_hyphen_values = true)]
    position: Option<String>,
    /// Which moves you make; the engine makes the others.
    #[arg(long, value_enum, default_value_t = Seat::First)]
    you: Seat,
    /// Search games: seconds the engine may think per position (move values shown as bounds
    /// when it runs out).
    #[arg(long, default_value_t = 5.0, value_name = "SECONDS")]
    time: f64,
    #[command(flatten)]
    engine: EngineArgs,
    /// One JSON object per line for each position (its value, every move's value, the move
    /// played), for programs that play through a pipe.
    #[arg(long)]
    json: bool,
}

impl Seat {
    /// Whether you make the move at `ply` (0 for the first move played).
    fn moves_at(self, ply: usize) -> bool {
        match self {
            Seat::First => ply % 2 == 0,
            Seat::Second => ply % 2 == 1,
            Seat::Both => true,
            Seat::None => false,
        }
    }
}

/// Who makes the moves in `play`.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
enum Seat {
    /// You move first (from the given position); the engine answers.
    First,
    /// The engine moves first.
    Second,
    /// You make every move (the engine only shows the values).
    Both,
    /// The engine plays both sides.
    None,
}

#[derive(Args, Debug)]
struct SearchArgs {
    #[command(flatten)]
    game: GameArgs,
    /// The position (the start if omitted).
    #[arg(allow_hyphen_values = true)]
    position: Option<String>,
    /// Deepest iteration in plies (default: until the end of the game or another limit).
    #[arg(long)]
    depth: Option<u32>,
    /// Stop after this many seconds (the last completed iteration is reported).
    #[arg(long, value_name = "SECONDS")]
    time: Option<f64>,
    /// Stop after this many nodes.
    #[arg(long)]
    nodes: Option<u64>,
    #[command(flatten)]
    engine: EngineArgs,
    #[command(flatten)]
    output: JsonFlag,
}

#[derive(Args, Debug)]
struct PerftArgs {
    /// The game: see 'gamegraph games'.
    game: String,
    /// Plies (a pass counts as one; a finished game is one leaf at every deeper depth).
    depth: u32,
    /// The position (the start if omitted).
    #[arg(allow_hyphen_values = true)]
    position: Option<String>,
}

#[derive(Args, Debug)]
struct BenchArgs {
    #[command(subcommand)]
    what: BenchCommand,
}

#[derive(Subcommand, Debug)]
enum BenchCommand {
    /// Build a reproducible random graph with cycles and solve it in every model.
    Graph(BenchGraphArgs),
    /// Solve Connect 4 test files ('moves score' per line), checking every score.
    Connect4(BenchConnect4Args),
    /// Leaves evaluated by minimax and alpha-beta under each move ordering, on random trees.
    Ordering(BenchOrderingArgs),
    /// Build the Oware databases from scratch in a temporary directory: time and positions per
    /// second of each stone count, peak memory.
    Oware(BenchOwareArgs),
    /// Solve Othello endgames of .obf files exactly, checking each score and best move.
    Othello(BenchOthelloArgs),
}

#[derive(Args, Debug)]
struct BenchOthelloArgs {
    /// .obf files: one position per line, then '; MOVE:SCORE' entries, best first.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    #[command(flatten)]
    engine: EngineArgs,
    #[command(flatten)]
    output: JsonFlag,
}

#[derive(Args, Debug)]
struct BenchOwareArgs {
    /// Build every stone count up to this one.
    #[arg(long, default_value_t = 16)]
    stones: usize,
    /// Rule variant: vu or abapa.
    #[arg(long, default_value = "vu")]
    rules: String,
    #[command(flatten)]
    output: JsonFlag,
}

#[derive(Args, Debug)]
struct BenchConnect4Args {
    /// Test files: one position per line, its columns then its expected score.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Only the first N positions of each file.
    #[arg(long, value_name = "N")]
    first: Option<usize>,
    #[command(flatten)]
    engine: EngineArgs,
    #[command(flatten)]
    output: JsonFlag,
}

#[derive(Args, Debug)]
struct BenchOrderingArgs {
    /// Children per inner node.
    #[arg(long, default_value_t = 4)]
    branching: u32,
    /// Depth of the leaves.
    #[arg(long, default_value_t = 8)]
    depth: u32,
    /// Random trees averaged over.
    #[arg(long, default_value_t = 20)]
    trees: u32,
    /// Seed of the first tree.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[command(flatten)]
    output: JsonFlag,
}

#[derive(Args, Debug)]
struct BenchGraphArgs {
    /// Number of positions.
    #[arg(long, default_value_t = 1_000_000)]
    nodes: usize,
    /// Number of moves.
    #[arg(long, default_value_t = 10_000_000)]
    edges: usize,
    /// Random seed: the same seed gives the same graph.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[command(flatten)]
    output: JsonFlag,
}

#[derive(Args, Debug)]
struct GamesArgs {
    #[command(flatten)]
    output: JsonFlag,
}

fn serve(args: &ServeArgs) -> anyhow::Result<()> {
    if let Some(dir) = &args.db {
        // Refuse a bad database now rather than on the first Oware request.
        gamegraph_games::oware::Database::open(dir)?;
    }
    let config = gamegraph_web::ServerConfig { database: args.db.clone() };
    let addr = std::net::SocketAddr::new(args.host, args.port);
    gamegraph_web::serve(addr, config, |bound| {
        println!("gamegraph: serving http://{bound}/ (Ctrl-C to stop)");
    })
    .map_err(|e| anyhow::anyhow!("cannot serve on {addr}: {e}"))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Tree(args) => tree_command::run(&args),
        Command::Graph(args) => graph_command::run(&args),
        Command::Solve(args) => game_commands::solve(&args),
        Command::Build(args) => game_commands::build(&args),
        Command::Verify(args) => oware_commands::verify(&args),
        Command::Stats(args) => oware_commands::stats(&args),
        Command::Play(args) => game_commands::play(&args),
        Command::Search(args) => search_commands::search(&args),
        Command::Perft(args) => search_commands::perft(&args),
        Command::Bench(BenchArgs { what }) => match what {
            BenchCommand::Graph(args) => bench::graph(&args),
            BenchCommand::Connect4(args) => bench::connect4(&args),
            BenchCommand::Ordering(args) => bench::ordering(&args),
            BenchCommand::Oware(args) => oware_commands::bench(&args),
            BenchCommand::Othello(args) => bench::othello(&args),
        },
        Command::Games(args) => game_commands::list(&args),
        Command::Serve(args) => serve(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            // One line: the chain of causes, outermost first.
            eprintln!("error: {err:#}");
            ExitCode::FAILURE
        }
    }
}
