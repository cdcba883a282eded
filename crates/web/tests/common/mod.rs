//! A server on a free port and a minimal HTTP/1.1 client, for the API and browser tests.

#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;

use serde_json::Value;

/// Starts the server on a free port of 127.0.0.1 in a background thread, with Oware values
/// from `database` if given; returns its address.
pub fn start_server(database: Option<PathBuf>) -> SocketAddr {
    let config = gamegraph_web::ServerConfig::default();
    start_server_with(match database {
        Some(dir) => config.with_database("oware", dir),
        None => config,
    })
}

/// [`start_server`] with the given limits.
pub fn start_server_with(config: gamegraph_web::ServerConfig) -> SocketAddr {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        gamegraph_web::serve("127.0.0.1:0".parse().unwrap(), config, |addr| tx.send(addr).unwrap()).unwrap();
    });
    rx.recv().expect("the server starts")
}

/// Percent-encodes a query value.
pub fn encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// Sends one request; returns the status and the body.
pub fn request(addr: SocketAddr, method: &str, path: &str, body: &[u8]) -> (u16, Vec<u8>) {
    let mut stream = TcpStream::connect(addr).expect("connects");
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: {}\r\nContent-Length: {}\r\n\r\n",
        if body.starts_with(b"{") { "application/json" } else { "text/plain" },
        body.len()
    );
    stream.write_all(head.as_bytes()).unwrap();
    // The server may answer (413, say) before reading the whole body; the answer is what counts.
    let _ = stream.write_all(body);
    // Read the header, then exactly the body it announces: some servers (ChromeDriver) keep the
    // connection open after answering.
    let mut raw = Vec::new();
    let mut buffer = [0u8; 8192];
    let split = loop {
        if let Some(at) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
        let n = stream.read(&mut buffer).unwrap();
        assert!(n > 0, "{path}: the connection closed before the header ended");
        raw.extend_from_slice(&buffer[..n]);
    };
    let header = String::from_utf8_lossy(&raw[..split]).to_ascii_lowercase();
    let status: u16 = header.split_whitespace().nth(1).unwrap().parse().unwrap();
    let length = header
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .map(|v| v.trim().parse::<usize>().unwrap());
    let chunked = header.contains("transfer-encoding: chunked");
    loop {
        let body = &raw[split..];
        let complete = match length {
            Some(length) => body.len() >= length,
            None if chunked => body.windows(5).any(|w| w == b"0\r\n\r\n"),
            None => false,
        };
        if complete {
            break;
        }
        let n = stream.read(&mut buffer).unwrap();
        if n == 0 {
            break;
        }
        raw.extend_from_slice(&buffer[..n]);
    }
    let mut content = raw[split..].to_vec();
    if chunked {
        content = dechunk(&content);
    }
    (status, content)
}

fn dechunk(mut data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let line_end = data.windows(2).position(|w| w == b"\r\n").unwrap();
        let size = usize::from_str_radix(std::str::from_utf8(&data[..line_end]).unwrap().trim(), 16).unwrap();
        if size == 0 {
            return out;
        }
        out.extend_from_slice(&data[line_end + 2..line_end + 2 + size]);
        data = &data[line_end + 4 + size..];
    }
}

/// A request whose answer is JSON.
pub fn json(addr: SocketAddr, method: &str, path: &str, body: &str) -> (u16, Value) {
    let (status, content) = request(addr, method, path, body.as_bytes());
    let value = serde_json::from_slice(&content)
        .unwrap_or_else(|e| panic!("{path}: not JSON ({e}): {}", String::from_utf8_lossy(&content)));
    (status, value)
}

/// A GET that must succeed.
pub fn get(addr: SocketAddr, path: &str) -> Value {
    let (status, value) = json(addr, "GET", path, "");
    assert_eq!(status, 200, "{path}: {value}");
    value
}
