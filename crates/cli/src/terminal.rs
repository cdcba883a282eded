//! What the commands share at the terminal: reading inputs (a file or standard input), writing
//! outputs atomically, printing JSON, reading positions and moves, and values in words.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use gamegraph::storage::{self, StorageError};
use gamegraph::Notation;
use gamegraph_games::databases::Report;
pub use gamegraph_games::progress_bars::ProgressBars as Bars;
use gamegraph_games::DatabaseDirectory;

/// The largest text input read (a graph, a tree, positions): 1 GiB.
pub const MAX_TEXT_BYTES: u64 = 1 << 30;

/// The whole text of `path`, or of standard input when `path` is `-`, refused beyond
/// [`MAX_TEXT_BYTES`] (so that `/dev/zero` is an error, not a machine's memory).
pub fn read_text(path: &Path) -> Result<String> {
    let (name, input): (String, Box<dyn Read>) = if path.as_os_str() == "-" {
        ("standard input".into(), Box::new(std::io::stdin()))
    } else {
        let file = std::fs::File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
        (path.display().to_string(), Box::new(file))
    };
    let mut bytes = Vec::new();
    input.take(MAX_TEXT_BYTES + 1).read_to_end(&mut bytes).with_context(|| format!("cannot read {name}"))?;
    if bytes.len() as u64 > MAX_TEXT_BYTES {
        bail!("{name} is larger than the {} MiB of text this command reads", MAX_TEXT_BYTES >> 20);
    }
    String::from_utf8(bytes)
        .map_err(|e| anyhow::anyhow!("{name}: byte {} is not UTF-8 text", e.utf8_error().valid_up_to() + 1))
}

/// Writes `path` atomically ([`gamegraph::storage::write_atomically`]): readers see the old
/// file or the complete new one, never a part.
pub fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<()> {
    storage::write_atomically(path, write).map_err(storage_error)
}

/// The file that writing `path` replaces ([`gamegraph::storage::regular_target`]).
pub(crate) fn regular_target(path: &Path) -> Result<PathBuf> {
    storage::regular_target(path).map_err(storage_error)
}

/// A storage error in the command line's words: `cannot write FILE: why`.
pub fn storage_error(e: StorageError) -> anyhow::Error {
    match e {
        StorageError::Io { path, cause } => anyhow::anyhow!("cannot write {}: {cause}", path.display()),
        other => anyhow::anyhow!("{other}"),
    }
}

/// Standard output was closed by its reader (`| head -1`): the command stops quietly.
#[derive(Debug, thiserror::Error)]
#[error("standard output is closed")]
pub struct OutputClosed;

/// Writes one line on standard output; a closed output becomes [`OutputClosed`], which `main`
/// ends quietly on, where `println!` would panic.
pub fn write_line(line: std::fmt::Arguments<'_>) -> Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_fmt(line).and_then(|()| out.write_all(b"\n")).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Err(OutputClosed.into()),
        Err(e) => Err(anyhow::Error::new(e).context("cannot write to standard output")),
    }
}

/// `println!` that returns from the enclosing function with [`OutputClosed`] when standard output
/// is closed.
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::terminal::write_line(format_args!($($arg)*))?
    };
}

/// Prints `value` as pretty JSON on standard output.
pub fn print_json<T: serde::Serialize + ?Sized>(value: &T) -> Result<()> {
    write_line(format_args!("{}", serde_json::to_string_pretty(value)?))
}

/// Physical memory in bytes (Linux), if known.
pub fn memory_bytes() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// The position written as `text` (`-`: read from standard input), or the start.
pub fn position_or_start<G: Notation>(game: &G, text: Option<&str>) -> Result<G::Position> {
    let text = match text {
        Some("-") => Some(read_text(Path::new("-"))?),
        text => text.map(String::from),
    };
    Ok(gamegraph_games::position_or_start(game, text.as_deref().map(str::trim))?)
}

/// Asks until a legal move is typed; `None` at end of input or on `quit`.
pub fn read_move<G: Notation>(
    game: &G,
    pos: &G::Position,
    lines: &mut impl Iterator<Item = std::io::Result<String>>,
    json: bool,
) -> Result<Option<G::Move>> {
    loop {
        if !json {
            say!("your move (or 'quit'):");
        }
        let Some(line) = lines.next() else { return Ok(None) };
        let line = line.context("cannot read standard input")?;
        let text = line.trim();
        if text == "quit" || text == "q" {
            return Ok(None);
        }
        match game.parse_move(pos, text) {
            Ok(mv) => return Ok(Some(mv)),
            Err(e) if json => {
                println!(
                    "{}",
                    serde_json::json!({ "error": format!("'{text}' is not a legal move: {}", e.message) })
                )
            }
            Err(e) => say!("'{text}' is not a legal move: {}", e.message),
        }
    }
}

/// The database directory of the game called `name`, for `command`; an error naming the games
/// that have one when it has none.
pub fn database_directory(name: &str, command: &str) -> Result<&'static dyn DatabaseDirectory> {
    let entry = gamegraph_games::entry(name)?;
    gamegraph_games::databases(entry).ok_or_else(|| {
        let with: Vec<&str> = gamegraph_games::GAMES
            .iter()
            .filter(|g| gamegraph_games::databases(g).is_some())
            .map(|g| g.name)
            .collect();
        anyhow::anyhow!(
            "{command} works on database directories; {} has none (games with one: {})",
            entry.name,
            with.join(", ")
        )
    })
}

/// Prints a report as text, or as pretty JSON with `json`.
pub fn print_report(report: &dyn Report, json: bool) -> Result<()> {
    if json {
        return print_json(&report.to_json());
    }
    write_line(format_args!("{report}"))
}
