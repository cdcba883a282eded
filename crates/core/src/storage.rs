//! Files that are never seen half-written, and the checksums and manifests that let a reader
//! trust them and a build resume: the one place where every database of the project (a solved
//! game's file, Awari score files, chess tables) is written.
//!
//! - [`write_atomically`]: a file written through a temporary one in the same folder, synced,
//!   then renamed over the target, so that a reader, or a build killed at any moment, finds the
//!   old file or the complete new one;
//! - [`sha256_hex`] and [`Sha256Writer`]: the digests that manifests list, computed on a file's
//!   bytes or while they are written;
//! - [`read_manifest`] and [`write_manifest`]: a directory's JSON manifest (what it holds, with
//!   each file's digest), refused with the file's name when it is not one.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::Serialize;
use sha2::{Digest, Sha256};

/// Why a file could not be written or read.
#[derive(Debug, thiserror::Error)]
pub enum StorageError {
    /// The operating system refused.
    #[error("{path}: {cause}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        cause: io::Error,
    },
    /// The target exists and is not a regular file, or its folder does not exist: nothing is
    /// written (so that long work is refused before it starts, not when its result is written).
    #[error("{0}")]
    Target(String),
    /// A pipe, a device or a directory stands where a file is read.
    #[error("{path}: {what}, where a file was expected")]
    NotAFile {
        /// The path.
        path: PathBuf,
        /// What is there.
        what: &'static str,
    },
    /// A manifest is not what it should be.
    #[error("{path}: {message}")]
    BadManifest {
        /// The manifest.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
}

/// The error of an I/O failure on `path`.
pub fn io_error(path: &Path) -> impl FnOnce(io::Error) -> StorageError + '_ {
    move |cause| StorageError::Io { path: path.to_path_buf(), cause }
}

/// Writes `path` through a temporary file in the same folder, renamed into place only once
/// `write` has succeeded and the bytes are on disk: readers see the old file or the complete new
/// one, never a part.
///
/// A symbolic link is followed (the link stays, the file it names is replaced); a target that
/// exists and is not a regular file (a directory, a device such as `/dev/null`, a pipe) is
/// refused. The new file gets the usual mode under the umask. Temporary files that a killed
/// process left for the same target are removed first.
pub fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<(), StorageError> {
    let target = regular_target(path)?;
    let dir = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = target.file_name().map_or_else(|| "output".into(), |n| n.to_string_lossy().into_owned());
    remove_stale_temporaries(&dir, &name);
    let (temporary, file) = (0..100)
        .find_map(|attempt| {
            let candidate = dir.join(format!(".{name}.{}.{attempt}.tmp", std::process::id()));
            match fs::OpenOptions::new().write(true).create_new(true).open(&candidate) {
                Ok(file) => Some(Ok((candidate, file))),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => None,
                Err(e) => Some(Err(e)),
            }
        })
        .unwrap_or_else(|| Err(io::Error::other("no free temporary name")))
        .map_err(|cause| StorageError::Io { path: dir.clone(), cause })?;
    let written = (|| {
        let mut out = io::BufWriter::new(&file);
        write(&mut out)?;
        out.flush()?;
        drop(out);
        file.sync_all()?;
        fs::rename(&temporary, &target)
    })();
    if let Err(cause) = written {
        let _ = fs::remove_file(&temporary);
        return Err(StorageError::Io { path: path.to_path_buf(), cause });
    }
    Ok(())
}

/// Whether `file` is a temporary file of [`write_atomically`] (`.NAME.PID.N.tmp`), in which case
/// the process that was writing it.
fn temporary_of(file: &str) -> Option<(&str, u32)> {
    let rest = file.strip_prefix('.')?.strip_suffix(".tmp")?;
    let mut parts = rest.rsplitn(3, '.');
    let (_attempt, pid, name) = (parts.next()?, parts.next()?, parts.next()?);
    Some((name, pid.parse().ok()?))
}

/// Removes the temporary files that writes of `name` in `dir` left when their process was killed
/// (its number no longer running), so that an interrupted build leaves nothing behind once the
/// next one runs. Only where running processes can be seen (`/proc`).
fn remove_stale_temporaries(dir: &Path, name: &str) {
    remove_stale(dir, |of| of == name);
}

/// Removes every temporary file of [`write_atomically`] in `dir` whose process was killed: what
/// a build that owns the directory does before it starts.
pub fn remove_stale_temporaries_in(dir: &Path) {
    remove_stale(dir, |_| true);
}

fn remove_stale(dir: &Path, of_interest: impl Fn(&str) -> bool) {
    if !Path::new("/proc/self").exists() {
        return;
    }
    let Ok(entries) = fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let file = entry.file_name().to_string_lossy().into_owned();
        let Some((of, pid)) = temporary_of(&file) else { continue };
        if of_interest(of) && pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// The file that writing `path` replaces: `path` itself, or the file a symbolic link names;
/// an error when that exists and is not a regular file, or when the folder it would go in is
/// not one.
pub fn regular_target(path: &Path) -> Result<PathBuf, StorageError> {
    let metadata = match fs::symlink_metadata(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            let folder = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
            if !folder.is_dir() {
                return Err(StorageError::Target(format!(
                    "cannot write {}: {} is not a folder that exists",
                    path.display(),
                    folder.display()
                )));
            }
            return Ok(path.to_path_buf());
        }
        Err(cause) => return Err(StorageError::Io { path: path.to_path_buf(), cause }),
        Ok(metadata) => metadata,
    };
    let target = if metadata.file_type().is_symlink() {
        fs::canonicalize(path).map_err(|_| {
            StorageError::Target(format!("{} is a symbolic link to nothing that exists", path.display()))
        })?
    } else {
        path.to_path_buf()
    };
    let metadata = fs::metadata(&target).map_err(io_error(&target))?;
    if !metadata.is_file() {
        return Err(StorageError::Target(format!(
            "{} exists and is not a regular file (a directory, a device or a pipe): not replacing it",
            path.display()
        )));
    }
    Ok(target)
}

/// Makes the directory `dir` (and its parents) if it does not exist; an error naming it when
/// something else stands there.
pub fn create_directory(dir: &Path) -> Result<(), StorageError> {
    match fs::metadata(dir) {
        Ok(metadata) if metadata.is_dir() => Ok(()),
        Ok(_) => Err(StorageError::Target(format!("{} exists and is not a directory", dir.display()))),
        Err(_) => fs::create_dir_all(dir).map_err(io_error(dir)),
    }
}

/// Databases opened from directories, kept for the whole process: the next caller (the next web
/// request) gets the one already opened and checked instead of reading every file again. A
/// directory whose manifest changed since (a build completed it) is opened again.
pub struct OpenedOnce<T> {
    opened: std::sync::Mutex<Vec<Opened<T>>>,
}

/// A directory, its manifest's modification time when it was opened, and what was opened.
type Opened<T> = (PathBuf, Option<std::time::SystemTime>, std::sync::Arc<T>);

impl<T> Default for OpenedOnce<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> OpenedOnce<T> {
    /// Nothing opened yet.
    pub const fn new() -> Self {
        Self { opened: std::sync::Mutex::new(Vec::new()) }
    }

    /// The database of `dir` (whose manifest is `manifest`), opened by `open` unless it was
    /// opened before with the same manifest.
    pub fn get<E>(
        &self,
        dir: &Path,
        manifest: &str,
        open: impl FnOnce() -> Result<T, E>,
    ) -> Result<std::sync::Arc<T>, E> {
        let modified = fs::metadata(dir.join(manifest)).and_then(|m| m.modified()).ok();
        let mut opened = self.opened.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((.., kept)) = opened.iter().find(|(d, m, _)| d == dir && *m == modified) {
            return Ok(std::sync::Arc::clone(kept));
        }
        let fresh = std::sync::Arc::new(open()?);
        opened.retain(|(d, ..)| d != dir);
        opened.push((dir.to_path_buf(), modified, std::sync::Arc::clone(&fresh)));
        Ok(fresh)
    }
}

/// The name of the lock file a build keeps in its directory.
pub const LOCK_FILE: &str = ".gamegraph.lock";

/// A directory that this process alone writes, until the lock is dropped: two builds into one
/// directory at once would each remove what the other is writing. The lock is the operating
/// system's (released when the process ends, however it ends); the file holds the number of the
/// process that holds it, for the message of the next one, and is removed when the lock is
/// dropped.
#[derive(Debug)]
pub struct DirectoryLock {
    file: fs::File,
    path: PathBuf,
}

impl DirectoryLock {
    /// Takes the lock of `dir` (made if need be), or says which process holds it.
    pub fn take(dir: &Path) -> Result<Self, StorageError> {
        create_directory(dir)?;
        let path = dir.join(LOCK_FILE);
        let mut file = fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(io_error(&path))?;
        if let Err(e) = file.try_lock() {
            let holder = fs::read_to_string(&path).unwrap_or_default();
            let holder = holder.trim();
            let who =
                if holder.is_empty() { "another process".to_string() } else { format!("process {holder}") };
            return Err(StorageError::Target(match e {
                fs::TryLockError::WouldBlock => {
                    format!("{} is being built by {who}: wait for it to finish, or stop it", dir.display())
                }
                fs::TryLockError::Error(e) => format!("cannot lock {}: {e}", path.display()),
            }));
        }
        file.set_len(0).and_then(|()| write!(file, "{}", std::process::id())).map_err(io_error(&path))?;
        Ok(Self { file, path })
    }
}

impl Drop for DirectoryLock {
    fn drop(&mut self) {
        // Removed while still held, so that no other build can take it in between.
        let _ = fs::remove_file(&self.path);
        let _ = self.file.unlock();
    }
}

/// The SHA-256 of `bytes`, in lowercase hexadecimal.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// Lowercase hexadecimal.
fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A writer that passes bytes on and computes their SHA-256 and count on the way.
pub struct Sha256Writer<W> {
    inner: W,
    hasher: Sha256,
    bytes: u64,
}

impl<W: Write> Sha256Writer<W> {
    /// Writes to `inner`.
    pub fn new(inner: W) -> Self {
        Self { inner, hasher: Sha256::new(), bytes: 0 }
    }

    /// The digest of everything written (lowercase hexadecimal) and the bytes written.
    pub fn finish(self) -> (String, u64) {
        (hex(&self.hasher.finalize()), self.bytes)
    }
}

impl<W: Write> Write for Sha256Writer<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hasher.update(&buf[..n]);
        self.bytes += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// The largest manifest read, in bytes: a directory of every chess table of up to 5 pieces has
/// one of about 40 KB.
pub const MAX_MANIFEST_BYTES: u64 = 16 << 20;

/// Opens `path` for reading if it is a regular file (after symbolic links): a pipe or a device
/// in its place is refused at once, where opening it could wait for ever or read without end.
pub fn open_regular(path: &Path) -> Result<fs::File, StorageError> {
    let metadata = fs::metadata(path).map_err(io_error(path))?;
    if !metadata.is_file() {
        let what = if metadata.is_dir() { "a directory" } else { "not a regular file (a pipe or a device)" };
        return Err(StorageError::NotAFile { path: path.to_path_buf(), what });
    }
    fs::File::open(path).map_err(io_error(path))
}

/// Reads the JSON manifest `name` of `dir`; `None` if there is none. A file that does not parse
/// as `T`, is larger than [`MAX_MANIFEST_BYTES`] or is not a regular file is refused, named.
pub fn read_manifest<T: DeserializeOwned>(dir: &Path, name: &str) -> Result<Option<T>, StorageError> {
    use std::io::Read;
    let path = dir.join(name);
    let file = match open_regular(&path) {
        Ok(file) => file,
        Err(StorageError::Io { cause, .. }) if cause.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let mut text = String::new();
    file.take(MAX_MANIFEST_BYTES + 1).read_to_string(&mut text).map_err(|e| {
        let message = format!("not a manifest ({e})");
        StorageError::BadManifest { path: path.clone(), message }
    })?;
    if text.len() as u64 > MAX_MANIFEST_BYTES {
        let message = format!("larger than the {} MiB a manifest may have", MAX_MANIFEST_BYTES >> 20);
        return Err(StorageError::BadManifest { path, message });
    }
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| StorageError::BadManifest { path, message: e.to_string() })
}

/// Writes `manifest` as the JSON manifest `name` of `dir` (pretty-printed), atomically.
pub fn write_manifest<T: Serialize>(dir: &Path, name: &str, manifest: &T) -> Result<(), StorageError> {
    let text = serde_json::to_string_pretty(manifest).expect("a manifest serialises");
    write_atomically(&dir.join(name), |out| out.write_all(text.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_replaced_whole_or_not_at_all() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out");
        write_atomically(&path, |w| w.write_all(b"first")).unwrap();
        let failed = write_atomically(&path, |w| {
            w.write_all(b"half")?;
            Err(io::Error::other("interrupted"))
        });
        assert!(matches!(failed, Err(StorageError::Io { .. })));
        assert_eq!(fs::read(&path).unwrap(), b"first");
        // Nothing left behind.
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
        // A directory is not replaced, a missing folder refused before anything is written.
        let err = write_atomically(dir.path(), |w| w.write_all(b"x")).unwrap_err();
        assert!(err.to_string().contains("not a regular file"), "{err}");
        let err = write_atomically(&dir.path().join("no/such"), |w| w.write_all(b"x")).unwrap_err();
        assert!(err.to_string().contains("not a folder that exists"), "{err}");
    }

    #[test]
    fn temporaries_of_dead_processes_are_removed() {
        let dir = tempfile::tempdir().unwrap();
        // No process has this number (above the kernel's limit).
        let stale = dir.path().join(".out.4999999.0.tmp");
        let other = dir.path().join(".another.4999999.0.tmp");
        fs::write(&stale, b"x").unwrap();
        fs::write(&other, b"x").unwrap();
        write_atomically(&dir.path().join("out"), |w| w.write_all(b"y")).unwrap();
        assert!(!stale.exists() || !Path::new("/proc/self").exists());
        assert!(other.exists(), "another file's temporary is not ours to remove");
        assert_eq!(temporary_of(".scores.1.2.3.tmp"), Some(("scores.1", 2)));
        assert_eq!(temporary_of("scores.1"), None);
    }

    #[test]
    fn a_directory_is_opened_once_until_its_manifest_changes() {
        let dir = tempfile::tempdir().unwrap();
        let cache = OpenedOnce::new();
        let mut opens = 0;
        let mut open = |dir: &Path| {
            cache.get(dir, "m.json", || {
                opens += 1;
                Ok::<_, ()>(opens)
            })
        };
        fs::write(dir.path().join("m.json"), "1").unwrap();
        assert_eq!(*open(dir.path()).unwrap(), 1);
        assert_eq!(*open(dir.path()).unwrap(), 1, "kept");
        // A later modification time: opened again.
        let later = std::time::SystemTime::now() + std::time::Duration::from_secs(10);
        fs::File::options().write(true).open(dir.path().join("m.json")).unwrap().set_modified(later).unwrap();
        assert_eq!(*open(dir.path()).unwrap(), 2);
    }

    #[test]
    fn a_directory_is_built_by_one_process_at_a_time() {
        let dir = tempfile::tempdir().unwrap();
        let held = DirectoryLock::take(dir.path()).unwrap();
        // The lock is the open file's: another open file of this process is refused too.
        let err = DirectoryLock::take(dir.path()).unwrap_err();
        assert!(err.to_string().contains(&format!("process {}", std::process::id())), "{err}");
        drop(held);
        assert!(!dir.path().join(LOCK_FILE).exists(), "the lock file goes with the lock");
        DirectoryLock::take(dir.path()).unwrap();
    }

    #[test]
    fn digests_agree_whether_computed_on_the_bytes_or_while_writing() {
        let mut writer = Sha256Writer::new(Vec::new());
        writer.write_all(b"abc").unwrap();
        let (digest, bytes) = writer.finish();
        assert_eq!(digest, sha256_hex(b"abc"));
        assert_eq!(digest, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        assert_eq!(bytes, 3);
    }

    #[test]
    fn manifests_that_are_pipes_devices_or_too_large_are_refused_at_once() {
        let err = read_manifest::<Vec<u32>>(Path::new("/dev"), "zero").unwrap_err();
        assert!(err.to_string().contains("not a regular file"), "{err}");
        let dir = tempfile::tempdir().unwrap();
        let big = fs::File::create(dir.path().join("m.json")).unwrap();
        big.set_len(MAX_MANIFEST_BYTES + 1).unwrap();
        let err = read_manifest::<Vec<u32>>(dir.path(), "m.json").unwrap_err();
        assert!(err.to_string().contains("larger than"), "{err}");
        let fifo = dir.path().join("fifo");
        if std::process::Command::new("mkfifo").arg(&fifo).status().is_ok_and(|s| s.success()) {
            let err = open_regular(&fifo).unwrap_err();
            assert!(err.to_string().contains("not a regular file"), "{err}");
        }
    }

    #[test]
    fn manifests_round_trip_and_bad_ones_are_named() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(read_manifest::<Vec<u32>>(dir.path(), "m.json").unwrap(), None);
        write_manifest(dir.path(), "m.json", &vec![1u32, 2]).unwrap();
        assert_eq!(read_manifest::<Vec<u32>>(dir.path(), "m.json").unwrap(), Some(vec![1, 2]));
        fs::write(dir.path().join("m.json"), "{").unwrap();
        let err = read_manifest::<Vec<u32>>(dir.path(), "m.json").unwrap_err();
        assert!(err.to_string().contains("m.json"), "{err}");
    }
}
