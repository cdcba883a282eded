//! A solved game saved to disk: every position's outcome, value and remoteness, keyed by the
//! position's notation, with a checksum so a damaged or truncated file is refused, not misread.
//!
//! Layout (little-endian): `GGDB`, format version (u32), game name (u32 length + UTF-8), model
//! (u8), entry count (u64), then per entry the position (u32 length + UTF-8), outcome (u8: 0 win,
//! 1 lose, 2 draw), value (i32, `i32::MIN` for none), remoteness (u32, `u32::MAX` for none); last,
//! the CRC-32 of everything before it (u32). Entries are sorted by position, so equal databases
//! are equal files.

use std::collections::HashMap;
use std::io::{self, Read, Write};

use crate::game::Stake;
use crate::retrograde::{Label, NodeId, Side};
use crate::solution::{Model, Outcome, Solution};

const MAGIC: &[u8; 4] = b"GGDB";
const VERSION: u32 = 1;
/// Longest position text accepted when reading, against absurd lengths in damaged files.
const MAX_KEY: u32 = 1 << 16;

/// Why a database file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum DatabaseError {
    /// Reading or writing failed.
    #[error("{0}")]
    Io(#[from] io::Error),
    /// The bytes are not a valid database.
    #[error("not a valid gamegraph database: {0}")]
    Corrupt(String),
}

/// Why a database file cannot be read: the file itself (missing, not a regular file), or what it
/// holds; both name the file.
#[derive(Debug, thiserror::Error)]
pub enum DatabaseFileError {
    /// The file cannot be opened, or is a directory, a pipe or a device.
    #[error(transparent)]
    Open(#[from] crate::storage::StorageError),
    /// The file's contents are not a valid database, or reading them failed.
    #[error("{path}: {cause}")]
    Contents {
        /// The file.
        path: std::path::PathBuf,
        /// What is wrong with it.
        cause: DatabaseError,
    },
}

impl DatabaseFileError {
    /// The kind of the input/output failure behind this error, if the file could not be opened,
    /// for front ends with error classes of their own (Python's `FileNotFoundError`).
    pub fn io_kind(&self) -> Option<io::ErrorKind> {
        match self {
            DatabaseFileError::Open(crate::storage::StorageError::Io { cause, .. }) => Some(cause.kind()),
            _ => None,
        }
    }
}

/// What the database knows of one position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    /// Win, lose or draw for the player to move.
    pub outcome: Outcome,
    /// The value in the database's model, if it has one.
    pub value: Option<Stake>,
    /// Moves to the end with optimal play, if decided.
    pub remoteness: Option<u32>,
}

impl Entry {
    /// What `solution` says of `node`.
    pub fn from_solution<N: NodeId>(solution: &Solution<N>, node: N) -> Self {
        Self {
            outcome: solution.outcome(node),
            value: solution.value(node),
            remoteness: solution.remoteness(node),
        }
    }

    /// The kernel's label behind this entry in `model` (`None` for a draw), so that entries can be
    /// compared with [`crate::solution::is_best_move`].
    pub fn label(&self, model: Model) -> Option<Label> {
        let side = match self.outcome {
            Outcome::Win => Side::Win,
            Outcome::Lose => Side::Lose,
            Outcome::Draw => return None,
        };
        let level = match model {
            Model::Outcome => 0,
            Model::Stakes => self.value.unwrap_or(0),
            Model::Minimax => self.value.unwrap_or(0).abs(),
        };
        Some(Label { side, level, remoteness: self.remoteness.unwrap_or(0) })
    }
}

/// Every solved position of one game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Database {
    /// The game's command-line name.
    pub game: String,
    /// The model the values are in.
    pub model: Model,
    entries: HashMap<String, Entry>,
}

/// The largest database file read: 1 GiB.
pub const MAX_BYTES: u64 = 1 << 30;

impl Database {
    /// An empty database for `game`.
    pub fn new(game: impl Into<String>, model: Model) -> Self {
        Self { game: game.into(), model, entries: HashMap::new() }
    }

    /// Records `position`.
    pub fn insert(&mut self, position: String, entry: Entry) {
        self.entries.insert(position, entry);
    }

    /// The entry of `position` (in the game's notation).
    pub fn get(&self, position: &str) -> Option<&Entry> {
        self.entries.get(position)
    }

    /// Number of positions.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there is no position.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Writes the file format described in the module documentation.
    pub fn write_to(&self, out: impl Write) -> io::Result<()> {
        let mut out = ChecksumWriter { inner: out, hasher: crc32fast::Hasher::new() };
        out.write_all(MAGIC)?;
        out.write_all(&VERSION.to_le_bytes())?;
        write_str(&mut out, &self.game)?;
        out.write_all(&[Model::ALL.iter().position(|&m| m == self.model).unwrap_or(0) as u8])?;
        out.write_all(&(self.entries.len() as u64).to_le_bytes())?;
        let mut keys: Vec<&String> = self.entries.keys().collect();
        keys.sort();
        for key in keys {
            let e = &self.entries[key];
            write_str(&mut out, key)?;
            let outcome = match e.outcome {
                Outcome::Win => 0u8,
                Outcome::Lose => 1,
                Outcome::Draw => 2,
            };
            out.write_all(&[outcome])?;
            out.write_all(&e.value.unwrap_or(i32::MIN).to_le_bytes())?;
            out.write_all(&e.remoteness.unwrap_or(u32::MAX).to_le_bytes())?;
        }
        let crc = out.hasher.clone().finalize();
        out.inner.write_all(&crc.to_le_bytes())?;
        out.inner.flush()
    }

    /// Writes the database to the file `path` atomically: a reader, or a build killed at any
    /// moment, finds the old file or the complete new one.
    pub fn write_file(&self, path: &std::path::Path) -> Result<(), crate::storage::StorageError> {
        crate::storage::write_atomically(path, |out| self.write_to(out))
    }

    /// Reads the database file `path` (see [`Database::read_from`]). A pipe or a device in its
    /// place is refused before anything is read.
    pub fn read_file(path: &std::path::Path) -> Result<Self, DatabaseFileError> {
        let file = crate::storage::open_regular(path)?;
        Database::read_from(io::BufReader::new(file))
            .map_err(|cause| DatabaseFileError::Contents { path: path.to_path_buf(), cause })
    }

    /// Reads a file written by [`Database::write_to`], checking its structure and checksum.
    pub fn read_from(input: impl Read) -> Result<Self, DatabaseError> {
        // The signature first, so that a file of another kind is refused before it is read whole,
        // then at most MAX_BYTES.
        let mut bytes = Vec::new();
        let mut input = input.take(MAX_BYTES + 1);
        (&mut input).take(4).read_to_end(&mut bytes)?;
        if bytes.len() < 4 || &bytes[..4] != MAGIC {
            return Err(DatabaseError::Corrupt("it does not start with the GGDB signature".into()));
        }
        input.read_to_end(&mut bytes)?;
        if bytes.len() as u64 > MAX_BYTES {
            return Err(DatabaseError::Corrupt(format!(
                "it is larger than the {MAX_BYTES} bytes a database may have"
            )));
        }
        if bytes.len() < 8 {
            return Err(DatabaseError::Corrupt("it is too short to hold a database".into()));
        }
        let (body, trailer) = bytes.split_at(bytes.len() - 4);
        let stored = u32::from_le_bytes(trailer.try_into().expect("4 bytes"));
        if crc32fast::hash(body) != stored {
            return Err(DatabaseError::Corrupt(
                "checksum mismatch (the file is damaged or truncated)".into(),
            ));
        }
        let mut r = Reader { bytes: body, at: 4 };
        let version = r.u32()?;
        if version != VERSION {
            return Err(DatabaseError::Corrupt(format!(
                "format version {version}, this program reads {VERSION}"
            )));
        }
        let game = r.string()?;
        let model = *Model::ALL
            .get(r.u8()? as usize)
            .ok_or_else(|| DatabaseError::Corrupt("unknown model".into()))?;
        let count = r.u64()?;
        let mut db = Database::new(game, model);
        for _ in 0..count {
            let key = r.string()?;
            let outcome = match r.u8()? {
                0 => Outcome::Win,
                1 => Outcome::Lose,
                2 => Outcome::Draw,
                b => return Err(r.corrupt(format!("unknown outcome code {b}"))),
            };
            let value = Some(r.u32()? as i32).filter(|&v| v != i32::MIN);
            let remoteness = Some(r.u32()?).filter(|&v| v != u32::MAX);
            db.insert(key, Entry { outcome, value, remoteness });
        }
        if r.at != body.len() {
            return Err(r.corrupt("unexpected bytes after the last entry".into()));
        }
        Ok(db)
    }
}

fn write_str(out: &mut impl Write, s: &str) -> io::Result<()> {
    out.write_all(&(s.len() as u32).to_le_bytes())?;
    out.write_all(s.as_bytes())
}

struct ChecksumWriter<W> {
    inner: W,
    hasher: crc32fast::Hasher,
}

impl<W: Write> Write for ChecksumWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hasher.update(&buf[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn corrupt(&self, what: String) -> DatabaseError {
        DatabaseError::Corrupt(format!("{what} at byte {}", self.at))
    }

    fn take(&mut self, n: usize) -> Result<&[u8], DatabaseError> {
        if self.bytes.len() - self.at < n {
            return Err(self.corrupt("truncated entry".into()));
        }
        let s = &self.bytes[self.at..self.at + n];
        self.at += n;
        Ok(s)
    }

    fn u8(&mut self) -> Result<u8, DatabaseError> {
        Ok(self.take(1)?[0])
    }

    fn u32(&mut self) -> Result<u32, DatabaseError> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().expect("4 bytes")))
    }

    fn u64(&mut self) -> Result<u64, DatabaseError> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().expect("8 bytes")))
    }

    fn string(&mut self) -> Result<String, DatabaseError> {
        let len = self.u32()?;
        if len > MAX_KEY {
            return Err(self.corrupt(format!("string length {len} is too large")));
        }
        let at = self.at;
        let bytes = self.take(len as usize)?.to_vec();
        String::from_utf8(bytes).map_err(|_| DatabaseError::Corrupt(format!("invalid UTF-8 at byte {at}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Database {
        let mut db = Database::new("demo", Model::Minimax);
        db.insert("a".into(), Entry { outcome: Outcome::Win, value: Some(3), remoteness: Some(5) });
        db.insert("b".into(), Entry { outcome: Outcome::Draw, value: Some(0), remoteness: None });
        db
    }

    /// A file is read by its path; a missing file, a directory and damaged bytes are each
    /// refused with the path in the message.
    #[test]
    fn files_are_read_by_path_and_bad_ones_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("demo.db");
        sample().write_file(&path).unwrap();
        assert_eq!(Database::read_file(&path).unwrap().get("a"), sample().get("a"));
        let missing = Database::read_file(&dir.path().join("none.db")).unwrap_err();
        assert_eq!(missing.io_kind(), Some(io::ErrorKind::NotFound));
        assert!(missing.to_string().contains("none.db"), "{missing}");
        let folder = Database::read_file(dir.path()).unwrap_err();
        assert!(folder.to_string().contains("a directory"), "{folder}");
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[12] ^= 1;
        std::fs::write(&path, bytes).unwrap();
        let damaged = Database::read_file(&path).unwrap_err();
        assert_eq!(damaged.io_kind(), None);
        assert!(damaged.to_string().contains("demo.db: not a valid gamegraph database"), "{damaged}");
    }

    #[test]
    fn round_trips() {
        let mut bytes = Vec::new();
        sample().write_to(&mut bytes).unwrap();
        assert_eq!(Database::read_from(&bytes[..]).unwrap(), sample());
    }

    #[test]
    fn refuses_damaged_files() {
        let mut bytes = Vec::new();
        sample().write_to(&mut bytes).unwrap();
        for cut in [0, 3, 10, bytes.len() - 1] {
            assert!(Database::read_from(&bytes[..cut]).is_err(), "truncated at {cut}");
        }
        for i in 0..bytes.len() {
            let mut flipped = bytes.clone();
            flipped[i] ^= 0x40;
            assert!(Database::read_from(&flipped[..]).is_err(), "bit flipped at {i}");
        }
    }
}
