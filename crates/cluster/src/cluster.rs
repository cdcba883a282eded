//! Where a distributed computation runs: processes listed one `host:port` a line in a host file
//! (every process runs the same command but for its index), each with the same number of worker
//! threads; or one process alone.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::time::{Duration, Instant};

use timely::communication::allocator::zero_copy::initialize::initialize_networking_from_sockets;

use crate::heartbeat::Heartbeat;
use timely::communication::allocator::ProcessBuilder;
use timely::communication::{AllocatorBuilder, Hooks};

/// How long processes wait for each other to connect before giving up, by default.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(60);

/// How long a connection may stay silent before its peer counts as gone: TCP keepalive probes
/// start after a third of it and the connection fails when four, a sixth apart, go unanswered.
/// So a machine that vanishes without closing its connections (power, network) ends every other
/// process's run with an error instead of hanging it, within this time while no data is in flight
/// (with data in flight, within the system's retransmission limit, about 15 minutes on Linux).
pub const DEAD_PEER_TIMEOUT: Duration = Duration::from_secs(60);

/// How long a process may send no heartbeat before the others end the run, by default: see
/// [`crate::heartbeat`].
pub const HANG_TIMEOUT: Duration = Duration::from_secs(60);

/// The most processes and workers per process a cluster may have.
pub const MAX_PROCESSES: usize = 1024;
/// See [`MAX_PROCESSES`].
pub const MAX_WORKERS: usize = 256;

/// The processes of a computation and this process's place among them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cluster {
    /// `host:port` of every process, in process order (empty: this process alone).
    pub hosts: Vec<String>,
    /// This process's index in `hosts`.
    pub process: usize,
    /// Worker threads per process.
    pub workers: usize,
    /// How long to wait for the other processes to connect ([`CONNECT_TIMEOUT`] by default).
    pub connect_timeout: Duration,
    /// How long another process may stay silent (no heartbeat) before this one ends the run
    /// ([`HANG_TIMEOUT`] by default; zero: no heartbeats).
    pub hang_timeout: Duration,
    /// What the computation is, in words that differ whenever two processes would compute
    /// different things (the command and every option that decides the result, a digest of the
    /// input): processes whose jobs differ, or whose programs are of other versions, refuse each
    /// other when they connect, before anything is computed or written. See [`Cluster::with_job`].
    pub job: String,
}

/// The longest [`Cluster::job`] the handshake carries, in bytes.
pub const MAX_JOB: usize = 4096;

/// Why a distributed computation could not run.
#[derive(Debug, thiserror::Error)]
pub enum ClusterError {
    /// The host file is malformed.
    #[error("{file} line {line}, column {column}: {message}")]
    Hostfile {
        /// The file, as given.
        file: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// The file could not be read.
    #[error("cannot read {file}: {message}")]
    Read {
        /// The file, as given.
        file: String,
        /// The system's reason.
        message: String,
    },
    /// The process index or worker count is out of range.
    #[error("{0}")]
    Settings(String),
    /// The processes did not all connect in time, or the network failed.
    #[error("the cluster did not start: {0}")]
    Connect(String),
    /// Processes given a directory to share (a database's) do not see the same one: what
    /// process 0 wrote into it, they do not find in theirs.
    #[error(
        "the directory (here {dir}) is not shared: process {} did not find the file process 0 \
         wrote into its directory; every process must be given the same directory, shared \
         between the machines",
        processes.iter().map(usize::to_string).collect::<Vec<_>>().join(", ")
    )]
    DirectoryNotShared {
        /// The directory, as this process was given it.
        dir: String,
        /// The processes that did not find process 0's file.
        processes: Vec<usize>,
    },
    /// A worker stopped with an error (a process died, a connection broke).
    #[error("a worker failed: {0}")]
    Worker(String),
}

impl Cluster {
    /// One process with `workers` worker threads.
    pub fn local(workers: usize) -> Self {
        Self {
            hosts: Vec::new(),
            process: 0,
            workers: workers.max(1),
            connect_timeout: CONNECT_TIMEOUT,
            hang_timeout: HANG_TIMEOUT,
            job: String::new(),
        }
    }

    /// The processes of a host file (one `host:port` a line; blank lines and `#` comments are
    /// skipped), this one being number `process` (from 0), each with `workers` threads.
    pub fn from_hostfile(path: &Path, process: usize, workers: usize) -> Result<Self, ClusterError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path)
            .map_err(|e| ClusterError::Read { file: file.clone(), message: e.to_string() })?;
        let hosts = parse_hosts(&file, &text)?;
        Self::new(hosts, process, workers)
    }

    /// The processes `hosts`, this one being number `process`, each with `workers` threads.
    pub fn new(hosts: Vec<String>, process: usize, workers: usize) -> Result<Self, ClusterError> {
        if hosts.len() > MAX_PROCESSES {
            return Err(ClusterError::Settings(format!(
                "{} processes: at most {MAX_PROCESSES}",
                hosts.len()
            )));
        }
        if !hosts.is_empty() && process >= hosts.len() {
            return Err(ClusterError::Settings(format!(
                "process {process} is not in the host file: it lists {} processes, numbered from 0",
                hosts.len()
            )));
        }
        if workers == 0 || workers > MAX_WORKERS {
            return Err(ClusterError::Settings(format!("{workers} workers: 1 to {MAX_WORKERS} a process")));
        }
        Ok(Self {
            hosts,
            process,
            workers,
            connect_timeout: CONNECT_TIMEOUT,
            hang_timeout: HANG_TIMEOUT,
            job: String::new(),
        })
    }

    /// The same cluster for the computation described by `job` (see [`Cluster::job`]); a job
    /// longer than [`MAX_JOB`] bytes is cut there.
    pub fn with_job(mut self, job: impl Into<String>) -> Self {
        let mut job = job.into();
        if job.len() > MAX_JOB {
            let end = (0..=MAX_JOB).rev().find(|&i| job.is_char_boundary(i)).unwrap_or(0);
            job.truncate(end);
        }
        self.job = job;
        self
    }

    /// What this process tells the others it runs: the program's version and the job.
    fn identity(&self) -> String {
        format!("gamegraph {}: {}", env!("CARGO_PKG_VERSION"), self.job)
    }

    /// Workers over all processes.
    pub fn peers(&self) -> usize {
        self.workers * self.hosts.len().max(1)
    }

    /// Runs `work` on every worker of this process once all processes are connected, and returns
    /// what each worker returned, in worker order. Fails if the processes are not all connected
    /// within `connect_timeout`, if they were not all given the same number of workers, or if
    /// a worker fails.
    pub fn run<T, F>(&self, work: F) -> Result<Vec<T>, ClusterError>
    where
        T: Send + 'static,
        F: Fn(&mut timely::worker::Worker) -> T + Send + Sync + 'static,
    {
        let mut heartbeat = None;
        let (builders, guard): (Vec<AllocatorBuilder>, Box<dyn std::any::Any + Send>) =
            if self.hosts.is_empty() {
                let builders = ProcessBuilder::new_typed_vector(self.workers, Hooks::default().refill, None);
                (builders.into_iter().map(AllocatorBuilder::Process).collect(), Box::new(()))
            } else {
                let sockets = connect(self)?;
                if !self.hang_timeout.is_zero() {
                    let connections = sockets
                        .iter()
                        .flatten()
                        .map(TcpStream::try_clone)
                        .collect::<std::io::Result<Vec<TcpStream>>>()
                        .map_err(|e| ClusterError::Connect(e.to_string()))?;
                    let started = Heartbeat::start(&self.hosts, self.process, self.hang_timeout, connections);
                    heartbeat = Some(started.map_err(ClusterError::Connect)?);
                }
                let hooks = Hooks::default();
                let local = ProcessBuilder::new_typed_vector(self.workers, hooks.refill.clone(), None);
                let (builders, guard) =
                    initialize_networking_from_sockets(local, sockets, self.process, self.workers, hooks)
                        .map_err(|e| ClusterError::Connect(e.to_string()))?;
                (builders.into_iter().map(AllocatorBuilder::Tcp).collect(), Box::new(guard))
            };
        quiet_timely_panics();
        // On a thread of timely's name: when a process dies, timely's threads panic (the last one
        // while the communication is torn down), and the panics end here as an error.
        let driver = std::thread::Builder::new()
            .name("timely:driver".into())
            .spawn(move || {
                let guards =
                    timely::execute::execute_from(builders, guard, timely::WorkerConfig::default(), work)?;
                guards.join().into_iter().collect::<Result<Vec<T>, String>>()
            })
            .map_err(|e| ClusterError::Worker(e.to_string()))?;
        let outcome = driver.join();
        if let Some(why) = heartbeat.as_ref().and_then(Heartbeat::silent_peer) {
            return Err(ClusterError::Worker(why));
        }
        match outcome {
            Ok(Ok(results)) => Ok(results),
            Ok(Err(e)) => Err(ClusterError::Worker(format!("{e} (a process stopped or a connection broke)"))),
            Err(_) => Err(ClusterError::Worker("a process stopped or a connection to it broke".into())),
        }
    }
}

/// Keeps the panics of timely's threads (a peer process died, a connection broke) off standard
/// error: [`Cluster::run`] reports them as one error instead. Other panics print as before.
fn quiet_timely_panics() {
    static QUIET: std::sync::Once = std::sync::Once::new();
    QUIET.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !std::thread::current().name().is_some_and(|name| name.starts_with("timely:")) {
                previous(info);
            }
        }));
    });
}

/// What each side of a new connection sends first: this tag, then (from the process that
/// connects) its index, and (from both) its workers and its identity ([`Cluster::job`] and the
/// program's version), so that both sides refuse a peer that would compute something else.
const HELLO: &[u8; 8] = b"ggraph02";

/// Writes this side's hello: the tag, `index` if given, the workers and the identity.
fn send_hello(
    stream: &mut TcpStream,
    index: Option<usize>,
    workers: usize,
    identity: &str,
) -> std::io::Result<()> {
    let mut hello = HELLO.to_vec();
    if let Some(index) = index {
        hello.extend_from_slice(&(index as u64).to_le_bytes());
    }
    hello.extend_from_slice(&(workers as u64).to_le_bytes());
    hello.extend_from_slice(&(identity.len() as u32).to_le_bytes());
    hello.extend_from_slice(identity.as_bytes());
    stream.write_all(&hello)
}

/// What the other side of a connection said of itself.
struct Hello {
    index: Option<usize>,
    workers: usize,
    identity: String,
}

/// Reads the other side's hello (with an index when `indexed`); `None` when it does not start
/// with our tag or is malformed (not a process of ours: a web server, say).
fn read_hello(stream: &mut impl Read, indexed: bool) -> std::io::Result<Option<Hello>> {
    let mut tag = [0u8; 8];
    stream.read_exact(&mut tag)?;
    if &tag != HELLO {
        return Ok(None);
    }
    let mut word = [0u8; 8];
    let index = if indexed {
        stream.read_exact(&mut word)?;
        Some(u64::from_le_bytes(word) as usize)
    } else {
        None
    };
    stream.read_exact(&mut word)?;
    let workers = u64::from_le_bytes(word) as usize;
    let mut len = [0u8; 4];
    stream.read_exact(&mut len)?;
    let len = u32::from_le_bytes(len) as usize;
    if len > MAX_JOB + 64 {
        return Ok(None);
    }
    let mut identity = vec![0u8; len];
    stream.read_exact(&mut identity)?;
    Ok(String::from_utf8(identity).ok().map(|identity| Hello { index, workers, identity }))
}

/// Refuses a peer that runs another number of workers or another computation, naming the
/// difference.
fn check_peer(cluster: &Cluster, other: usize, hello: &Hello) -> Result<(), ClusterError> {
    let process = cluster.process;
    if hello.workers != cluster.workers {
        return Err(mismatch(other, hello.workers, process, cluster.workers));
    }
    let mine = cluster.identity();
    if hello.identity != mine {
        return Err(ClusterError::Connect(format!(
            "process {other} runs '{}' and process {process} runs '{mine}': every process must run the same command, with the same options and input, but --process",
            hello.identity
        )));
    }
    Ok(())
}

/// Sets up a new connection to another process: no waiting to fill packets (rounds exchange small
/// messages), reads that give up after `timeout` during the handshake, and keepalive probes that
/// find a vanished peer ([`DEAD_PEER_TIMEOUT`]).
fn prepare(stream: &TcpStream, timeout: Duration) -> std::io::Result<()> {
    stream.set_nodelay(true)?;
    stream.set_read_timeout(Some(timeout))?;
    let keepalive = socket2::TcpKeepalive::new()
        .with_time(DEAD_PEER_TIMEOUT / 3)
        .with_interval(DEAD_PEER_TIMEOUT / 6)
        .with_retries(4);
    socket2::SockRef::from(stream).set_tcp_keepalive(&keepalive)
}

/// Listens on `host`, trying again for a second while its port is in use: a process that connects
/// before this one listens may hold that port for an instant (see [`connected_to_itself`]).
fn listen(host: &str) -> std::io::Result<TcpListener> {
    let give_up = Instant::now() + Duration::from_secs(1);
    loop {
        match TcpListener::bind(host) {
            Err(e) if e.kind() == std::io::ErrorKind::AddrInUse && Instant::now() < give_up => {
                std::thread::sleep(Duration::from_millis(20));
            }
            result => return result,
        }
    }
}

/// Whether `stream` is connected to itself. A connection to a port where nothing listens yet can
/// be given that very port as its own end, on the same machine, and then TCP connects it to
/// itself; the process that should listen there cannot until it is closed.
fn connected_to_itself(stream: &TcpStream) -> bool {
    matches!((stream.local_addr(), stream.peer_addr()), (Ok(local), Ok(peer)) if local == peer)
}

/// Closes `stream` with a reset, so that its port is free at once: closed the usual way, the port
/// stays taken for a minute (TCP's TIME_WAIT) and nothing could listen on it.
fn close_at_once(stream: TcpStream) {
    // Failing to set it only leaves the port taken for longer; the connection is dropped anyway.
    let _ = socket2::SockRef::from(&stream).set_linger(Some(Duration::ZERO));
}

/// The connections of this process to every other process of the cluster (`None` for itself),
/// made within its `connect_timeout`: it listens on its own address for the processes after it
/// and connects to those before it, and each pair checks that both run as many workers.
fn connect(cluster: &Cluster) -> Result<Vec<Option<TcpStream>>, ClusterError> {
    let (hosts, process, workers, timeout) =
        (&cluster.hosts, cluster.process, cluster.workers, cluster.connect_timeout);
    let deadline = Instant::now() + timeout;
    let fail = |message: String| ClusterError::Connect(message);
    let identity = cluster.identity();
    let listener = listen(&hosts[process])
        .map_err(|e| fail(format!("cannot listen on {} (process {process}): {e}", hosts[process])))?;
    listener.set_nonblocking(true).map_err(|e| fail(e.to_string()))?;
    let mut sockets: Vec<Option<TcpStream>> = (0..hosts.len()).map(|_| None).collect();
    for (index, host) in hosts.iter().enumerate().take(process) {
        let mut stream = loop {
            let error = match TcpStream::connect(host) {
                Ok(stream) if !connected_to_itself(&stream) => break stream,
                Ok(stream) => {
                    close_at_once(stream);
                    "no process listens there yet".to_string()
                }
                Err(e) => e.to_string(),
            };
            if Instant::now() >= deadline {
                return Err(fail(format!(
                    "process {index} at {host} did not answer within {} s: {error}",
                    timeout.as_secs_f64()
                )));
            }
            std::thread::sleep(Duration::from_millis(100));
        };
        let io = |e: std::io::Error| {
            let why = match e.kind() {
                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => {
                    format!("no answer within {} s", timeout.as_secs_f64())
                }
                _ => e.to_string(),
            };
            fail(format!("process {index} at {host}: {why}"))
        };
        prepare(&stream, timeout).map_err(io)?;
        send_hello(&mut stream, Some(process), workers, &identity).map_err(io)?;
        let Some(answer) = read_hello(&mut stream, false).map_err(io)? else {
            return Err(fail(format!(
                "{host} (process {index} of the host file) is not a gamegraph process"
            )));
        };
        check_peer(cluster, index, &answer)?;
        stream.set_read_timeout(None).map_err(io)?;
        sockets[index] = Some(stream);
    }
    let mut waiting = hosts.len() - process - 1;
    while waiting > 0 {
        match listener.accept() {
            Ok((mut stream, from)) => {
                let io = |e: std::io::Error| fail(format!("a connection from {from}: {e}"));
                stream.set_nonblocking(false).map_err(io)?;
                prepare(&stream, timeout).map_err(io)?;
                let hello = read_hello(&mut stream, true).map_err(io)?;
                let Some((hello, index)) = hello
                    .and_then(|h| h.index.map(|i| (h, i)))
                    .filter(|&(_, i)| i > process && i < hosts.len() && sockets[i].is_none())
                else {
                    return Err(fail(format!("{from} is not a process of this host file after {process}")));
                };
                // Answered before checking, so that both sides see a difference and refuse.
                send_hello(&mut stream, None, workers, &identity).map_err(io)?;
                check_peer(cluster, index, &hello)?;
                stream.set_read_timeout(None).map_err(io)?;
                sockets[index] = Some(stream);
                waiting -= 1;
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                if Instant::now() >= deadline {
                    let missing: Vec<String> = (process + 1..hosts.len())
                        .filter(|&i| sockets[i].is_none())
                        .map(|i| i.to_string())
                        .collect();
                    return Err(fail(format!(
                        "process(es) {} did not connect within {} s",
                        missing.join(", "),
                        timeout.as_secs_f64()
                    )));
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(e) => return Err(fail(format!("listening on {}: {e}", hosts[process]))),
        }
    }
    Ok(sockets)
}

fn mismatch(other: usize, theirs: usize, process: usize, workers: usize) -> ClusterError {
    ClusterError::Connect(format!(
        "process {other} runs {theirs} worker(s) and process {process} runs {workers}: every process needs the same --workers"
    ))
}

/// The `host:port` lines of a host file.
fn parse_hosts(file: &str, text: &str) -> Result<Vec<String>, ClusterError> {
    let mut hosts = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let content = line.split('#').next().unwrap_or("");
        let trimmed = content.trim();
        if trimmed.is_empty() {
            continue;
        }
        let start = content.len() - content.trim_start().len();
        let bad = |at: usize, message: String| ClusterError::Hostfile {
            file: file.to_string(),
            line: i + 1,
            column: line[..at].chars().count() + 1,
            message,
        };
        if let Some(space) = trimmed.find(char::is_whitespace) {
            return Err(bad(start + space, "expected one host:port on the line".into()));
        }
        let Some(colon) = trimmed.rfind(':') else {
            return Err(bad(start + trimmed.len(), "expected host:port (a port number after ':')".into()));
        };
        if colon == 0 {
            return Err(bad(start, "expected a host name before ':'".into()));
        }
        let port = &trimmed[colon + 1..];
        if port.parse::<u16>().map_or(true, |p| p == 0) {
            return Err(bad(start + colon + 1, format!("'{port}' is not a port number (1 to 65535)")));
        }
        hosts.push(trimmed.to_string());
    }
    if hosts.is_empty() {
        return Err(ClusterError::Hostfile {
            file: file.to_string(),
            line: 1,
            column: 1,
            message: "no host:port line".into(),
        });
    }
    Ok(hosts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connections_probe_for_a_vanished_peer() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let stream = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        prepare(&stream, CONNECT_TIMEOUT).unwrap();
        let socket = socket2::SockRef::from(&stream);
        assert!(socket.keepalive().unwrap());
        let (idle, interval, probes) = (
            socket.tcp_keepalive_time().unwrap(),
            socket.tcp_keepalive_interval().unwrap(),
            socket.tcp_keepalive_retries().unwrap(),
        );
        assert_eq!(idle + interval * probes, DEAD_PEER_TIMEOUT);
        assert!(stream.nodelay().unwrap());
    }

    /// A socket connected to its own address, as TCP allows: bound, then connected to that address.
    fn connection_to_itself() -> (TcpStream, std::net::SocketAddr) {
        let socket = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).unwrap();
        socket.bind(&"127.0.0.1:0".parse::<std::net::SocketAddr>().unwrap().into()).unwrap();
        let address = socket.local_addr().unwrap().as_socket().unwrap();
        socket.connect(&address.into()).unwrap();
        (socket.into(), address)
    }

    #[test]
    fn a_connection_to_itself_is_seen_and_frees_its_port_when_closed() {
        let (stream, address) = connection_to_itself();
        assert!(connected_to_itself(&stream));
        close_at_once(stream);
        TcpListener::bind(address).expect("the port is free at once");
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let stream = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        assert!(!connected_to_itself(&stream));
    }

    #[test]
    fn listening_on_a_port_in_use_fails_after_a_second() {
        let taken = TcpListener::bind("127.0.0.1:0").unwrap();
        let started = Instant::now();
        let error = listen(&taken.local_addr().unwrap().to_string()).unwrap_err();
        assert_eq!(error.kind(), std::io::ErrorKind::AddrInUse);
        assert!(started.elapsed() >= Duration::from_secs(1));
    }

    #[test]
    fn host_files_are_read_and_refused_with_line_and_column() {
        let hosts = parse_hosts("h", "# cluster\n127.0.0.1:4000\n\n  node2:4001  # second\n").unwrap();
        assert_eq!(hosts, ["127.0.0.1:4000", "node2:4001"]);
        let cases = [
            ("a:1\nb\n", "h line 2, column 2: expected host:port"),
            ("a:1\n  b:x\n", "h line 2, column 5: 'x' is not a port number"),
            ("a:1 b:2\n", "h line 1, column 4: expected one host:port"),
            (":5\n", "h line 1, column 1: expected a host name"),
            ("a:0\n", "h line 1, column 3: '0' is not a port number"),
            ("# nothing\n", "h line 1, column 1: no host:port line"),
        ];
        for (text, expected) in cases {
            let error = parse_hosts("h", text).unwrap_err().to_string();
            assert!(error.starts_with(expected), "{text:?}: {error}");
        }
    }

    #[test]
    fn process_and_worker_counts_are_checked() {
        let hosts = vec!["a:1".to_string(), "b:2".to_string()];
        assert!(Cluster::new(hosts.clone(), 1, 2).is_ok());
        assert!(Cluster::new(hosts.clone(), 2, 2).unwrap_err().to_string().contains("process 2 is not"));
        assert!(Cluster::new(hosts.clone(), 0, 0).is_err());
        assert!(Cluster::new(hosts, 0, MAX_WORKERS + 1).is_err());
        assert_eq!(Cluster::local(3).peers(), 3);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig {
            cases: std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(2_000),
            ..Default::default()
        })]

        /// A host file of any text is read or refused with a line and a column inside it.
        #[test]
        fn any_host_file_is_read_or_refused_where_it_is_wrong(
            lines in proptest::collection::vec("[a-z0-9.:# \\t\\[\\]]{0,24}", 0..6)
        ) {
            let text = lines.join("\n");
            match parse_hosts("hosts", &text) {
                Ok(hosts) => proptest::prop_assert!(!hosts.is_empty()),
                Err(ClusterError::Hostfile { line, column, .. }) => {
                    let shown = text.lines().nth(line - 1).map_or(0, |l| l.chars().count());
                    proptest::prop_assert!(line >= 1 && column >= 1 && column <= shown + 1, "line {line} column {column} of {text:?}");
                }
                Err(e) => proptest::prop_assert!(false, "{e}"),
            }
        }

        /// Any bytes where a hello is expected: read as one, or refused, never a panic or an
        /// allocation of what a length field claims.
        #[test]
        fn any_bytes_are_read_as_a_hello_or_refused(
            bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..64),
            tagged in proptest::prelude::any::<bool>(),
            indexed in proptest::prelude::any::<bool>(),
        ) {
            let mut input = if tagged { HELLO.to_vec() } else { Vec::new() };
            input.extend(&bytes);
            if let Ok(Some(hello)) = read_hello(&mut &input[..], indexed) {
                proptest::prop_assert!(hello.identity.len() <= MAX_JOB + 64);
            }
        }
    }
}
