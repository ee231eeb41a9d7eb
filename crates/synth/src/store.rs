//! A generated harness store root for tests and benchmarks: sessions spread over projects in
//! the HEAD layout (`root/--<projectKey>--/<id>/session.jsonl[.zstd]`), forks that inherit
//! their parent's first events, a few titles in Chinese, Japanese and Korean, and optionally a
//! SQLite store (schema 5) holding several sessions. Every session is valid (no finding).

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::text::uuid;
use super::{SynthConfig, generate};

/// What to generate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreConfig {
    /// Sessions in files of their own (forks included).
    pub sessions: usize,
    /// Projects they are spread over (at least one).
    pub projects: usize,
    /// Events per session (roughly: whole turns are written).
    pub events: u64,
    /// Every `fork_every`-th session is a fork of the session before it (0: no forks).
    pub fork_every: usize,
    /// Every `zstd_every`-th session is Zstandard-compressed (0: none).
    pub zstd_every: usize,
    /// Sessions written into one SQLite store `root/sessions.db` (0: no database).
    pub sqlite_sessions: usize,
    /// Seed of every choice.
    pub seed: u64,
}

impl Default for StoreConfig {
    fn default() -> Self {
        StoreConfig {
            sessions: 60,
            projects: 6,
            events: 400,
            fork_every: 6,
            zstd_every: 3,
            sqlite_sessions: 3,
            seed: 0x5705E,
        }
    }
}

/// One generated session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredSession {
    /// Its file.
    pub file: PathBuf,
    /// Its id.
    pub id: String,
    /// `"jsonl"`, `"zstd"` or `"sqlite"`.
    pub format: &'static str,
    /// Its working directory.
    pub cwd: String,
    /// The parent of a fork.
    pub parent: Option<String>,
    /// Events inherited from the parent.
    pub seed_length: Option<u64>,
    /// Events written.
    pub events: u64,
    /// Its title.
    pub title: String,
}

/// Project names, cycled.
const PROJECTS: [&str; 8] = [
    "tidewater",
    "ledger",
    "harbor",
    "lattice",
    "quarry",
    "beacon",
    "meridian",
    "saltmarsh",
];

/// Titles in other scripts, given to every seventh session.
const CJK_TITLES: [&str; 3] = [
    "修复解析负数金额的测试",
    "ログのパーサーを直す",
    "빌드 오류 고치기",
];

/// Hours between the creation of two consecutive sessions.
const HOUR: i64 = 3_600_000;

/// Writes the store under `root` (created if needed) and returns its sessions.
pub fn write_store(root: &Path, config: &StoreConfig) -> io::Result<Vec<StoredSession>> {
    std::fs::create_dir_all(root)?;
    let mut out: Vec<StoredSession> = Vec::new();
    // How each session was made, so that a fork can replay its parent's generation.
    let mut made: Vec<Made> = Vec::new();
    for i in 0..config.sessions {
        let parent = (config.fork_every > 0 && i > 0 && i % config.fork_every == 0).then(|| i - 1);
        let project = match parent {
            Some(p) => out[p].cwd.clone(),
            None => format!(
                "/home/dev/src/{}",
                PROJECTS[i % config.projects.max(1) % PROJECTS.len()]
            ),
        };
        let id = uuid(config.seed, i as u64);
        // A fork replays its parent's generation further: its first events are the parent's,
        // at the same times, with the same title.
        let this = match parent {
            Some(p) => Made {
                events: out[p].events + config.events / 2,
                ..made[p].clone()
            },
            None => Made {
                seed: config.seed.wrapping_add(i as u64 * 7919),
                events: config.events,
                time_base: session_start(i),
                title: (i % 7 == 3).then(|| CJK_TITLES[(i / 7) % CJK_TITLES.len()].to_string()),
                last_time: 0,
            },
        };
        let log = generated(this.seed, this.events, true)?;
        let meta = Meta {
            id: id.clone(),
            cwd: project.clone(),
            time_base: this.time_base,
            // A fork is made after its parent's last event.
            created: match parent {
                Some(p) => made[p].last_time + 60_000,
                None => this.time_base,
            },
            parent: parent.map(|p| (out[p].id.clone(), out[p].events)),
            title: this.title.clone(),
        };
        let (text, count, title, last_time) = rewrite(&log, &meta);
        made.push(Made { last_time, ..this });
        let zstd = config.zstd_every > 0 && i % config.zstd_every == 1;
        let folder = root.join(project_key(&project)).join(&id);
        std::fs::create_dir_all(&folder)?;
        let file = if zstd {
            let f = folder.join("session.jsonl.zstd");
            std::fs::write(&f, compress(&text)?)?;
            f
        } else {
            let f = folder.join("session.jsonl");
            std::fs::write(&f, &text)?;
            f
        };
        out.push(StoredSession {
            file,
            id,
            format: if zstd { "zstd" } else { "jsonl" },
            cwd: project,
            parent: meta.parent.as_ref().map(|(p, _)| p.clone()),
            seed_length: meta.parent.as_ref().map(|(_, n)| *n),
            events: count,
            title,
        });
    }
    if config.sqlite_sessions > 0 {
        out.extend(write_database(root, config)?);
    }
    Ok(out)
}

/// How a session was generated.
#[derive(Clone, Debug)]
struct Made {
    seed: u64,
    events: u64,
    time_base: i64,
    title: Option<String>,
    /// The time of its last event.
    last_time: i64,
}

/// Creation time of session `i`: one every three hours, counting back from the generator's
/// start time so that the newest is last.
fn session_start(i: usize) -> i64 {
    1_786_123_401_600 - 2_000 * HOUR + 3 * HOUR * i as i64
}

/// The generator's log for `seed`, about `events` events.
fn generated(seed: u64, events: u64, pack: bool) -> io::Result<Vec<u8>> {
    let config = SynthConfig {
        seed,
        target_events: events,
        pack,
        ..SynthConfig::default()
    };
    let mut bytes = Vec::new();
    generate(&config, &mut bytes)?;
    Ok(bytes)
}

/// The header fields and title of one stored session.
struct Meta {
    id: String,
    cwd: String,
    /// The time of the first event.
    time_base: i64,
    /// The header's `createdAt`.
    created: i64,
    parent: Option<(String, u64)>,
    title: Option<String>,
}

/// Replaces the header, shifts every time so the session starts at `time_base`, and sets the
/// title. Returns the text, its event count, its title and its last event time.
fn rewrite(log: &[u8], meta: &Meta) -> (Vec<u8>, u64, String, i64) {
    let mut lines = log.split(|&b| b == b'\n').filter(|l| !l.is_empty());
    let header: Value = lines
        .next()
        .and_then(|l| serde_json::from_slice(l).ok())
        .unwrap_or(Value::Null);
    let start = header.get("createdAt").and_then(Value::as_i64).unwrap_or(0);
    let shift = meta.time_base - start;
    let mut h = serde_json::Map::new();
    h.insert("type".into(), "session".into());
    h.insert("version".into(), 0.into());
    h.insert("id".into(), meta.id.clone().into());
    h.insert("createdAt".into(), meta.created.into());
    h.insert("cwd".into(), meta.cwd.clone().into());
    if let Some((parent, seed)) = &meta.parent {
        h.insert("parentSession".into(), parent.clone().into());
        h.insert("seedLength".into(), (*seed).into());
    }
    h.insert("delegationDepth".into(), 0.into());
    let mut text = serde_json::to_vec(&Value::Object(h)).unwrap_or_default();
    text.push(b'\n');
    let mut events = 0u64;
    let mut title = String::new();
    let mut last_time = meta.time_base;
    for line in lines {
        events += member_count(line);
        if line.starts_with(br#"{"type":"session/title""#)
            && let Ok(mut v) = serde_json::from_slice::<Value>(line)
        {
            if let Some(t) = &meta.title {
                v["data"]["title"] = t.clone().into();
            }
            title = v["data"]["title"].as_str().unwrap_or_default().to_string();
            shift_value(&mut v, shift);
            last_time = last_time.max(v["time"].as_i64().unwrap_or(last_time));
            text.extend(serde_json::to_vec(&v).unwrap_or_default());
        } else if let Some(t) = shift_line(line, shift, &mut text) {
            last_time = last_time.max(t);
        }
        text.push(b'\n');
    }
    (text, events, title, last_time)
}

/// Events in one line: 1, or the members of a packed row.
fn member_count(line: &[u8]) -> u64 {
    if !line.starts_with(br#"{"type":"text-chunks""#)
        && !line.starts_with(br#"{"type":"reasoning-chunks""#)
        && !line.starts_with(br#"{"type":"tool-call-chunks""#)
    {
        return 1;
    }
    serde_json::from_slice::<Value>(line)
        .ok()
        .and_then(|v| Some(v.pointer("/data/dt")?.as_array()?.len() as u64 + 1))
        .unwrap_or(1)
}

/// Copies `line`, adding `shift` to its envelope `time` (or a packed row's `time0`): the first
/// `,"time":` or `,"time0":` of a generated line is the envelope's. Returns the new time.
fn shift_line(line: &[u8], shift: i64, out: &mut Vec<u8>) -> Option<i64> {
    for key in [&b",\"time\":"[..], &b",\"time0\":"[..]] {
        if let Some(at) = memchr::memmem::find(line, key) {
            let digits_start = at + key.len();
            let digits_end = line[digits_start..]
                .iter()
                .position(|b| !(b.is_ascii_digit() || *b == b'-'))
                .map_or(line.len(), |n| digits_start + n);
            if let Some(t) = std::str::from_utf8(&line[digits_start..digits_end])
                .ok()
                .and_then(|s| s.parse::<i64>().ok())
            {
                out.extend_from_slice(&line[..digits_start]);
                out.extend_from_slice((t + shift).to_string().as_bytes());
                out.extend_from_slice(&line[digits_end..]);
                return Some(t + shift);
            }
        }
    }
    out.extend_from_slice(line);
    None
}

fn shift_value(v: &mut Value, shift: i64) {
    if let Some(t) = v.get("time").and_then(Value::as_i64) {
        v["time"] = (t + shift).into();
    }
}

/// The store folder of a working directory (docs/parity.md, ASCII paths).
pub fn project_key(cwd: &str) -> String {
    let mut key = String::new();
    let mut last_dash = false;
    for c in cwd.chars() {
        if matches!(c, '/' | '\\' | ':') {
            if !last_dash {
                key.push('-');
            }
            last_dash = true;
            continue;
        }
        last_dash = false;
        if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
            key.push(c);
        } else {
            for unit in c.encode_utf16(&mut [0; 2]) {
                key.push_str(&format!("~{unit:04X}"));
            }
        }
    }
    let key = key.trim_start_matches('-');
    let key = if key.is_empty() { "root" } else { key };
    format!("--{}--", &key[..key.len().min(251)])
}

/// Concatenated frames: the header line alone, then the events in frames of about 64 kB.
fn compress(text: &[u8]) -> io::Result<Vec<u8>> {
    let mut out = Vec::new();
    let header_end = memchr::memchr(b'\n', text).map_or(text.len(), |i| i + 1);
    let mut frames = vec![&text[..header_end]];
    let mut rest = &text[header_end..];
    while !rest.is_empty() {
        let cut = (64 << 10).min(rest.len());
        let end = memchr::memchr(b'\n', &rest[cut.saturating_sub(1)..])
            .map_or(rest.len(), |i| cut.saturating_sub(1) + i + 1);
        frames.push(&rest[..end]);
        rest = &rest[end..];
    }
    for frame in frames {
        let mut encoder = zstd::stream::Encoder::new(&mut out, 3)?;
        encoder.include_checksum(true)?;
        encoder.write_all(frame)?;
        encoder.finish()?;
    }
    Ok(out)
}

/// `root/sessions.db`: a schema-5 SQLite store with `config.sqlite_sessions` sessions.
fn write_database(root: &Path, config: &StoreConfig) -> io::Result<Vec<StoredSession>> {
    let to_io = |e: rusqlite::Error| io::Error::other(e.to_string());
    let file = root.join("sessions.db");
    let _ = std::fs::remove_file(&file);
    let mut db = rusqlite::Connection::open(&file).map_err(to_io)?;
    db.execute_batch(
        "PRAGMA user_version = 5;
         CREATE TABLE sessions (id TEXT PRIMARY KEY, version INTEGER NOT NULL,
           created_at INTEGER NOT NULL, cwd TEXT, parent_session TEXT, seed_length INTEGER,
           delegation_depth INTEGER NOT NULL);
         CREATE TABLE events (session_id TEXT NOT NULL REFERENCES sessions(id),
           seq INTEGER NOT NULL, type TEXT NOT NULL, time INTEGER NOT NULL, data TEXT NOT NULL,
           source_event_seqs TEXT, surface_op TEXT, PRIMARY KEY (session_id, seq));",
    )
    .map_err(to_io)?;
    let tx = db.transaction().map_err(to_io)?;
    let mut out = Vec::new();
    for k in 0..config.sqlite_sessions {
        let i = config.sessions + k;
        let id = uuid(config.seed, i as u64);
        let cwd = format!("/srv/legacy/{}", PROJECTS[k % PROJECTS.len()]);
        let meta = Meta {
            id: id.clone(),
            cwd: cwd.clone(),
            time_base: session_start(i),
            created: session_start(i),
            parent: None,
            title: None,
        };
        // Packed rows are a JSONL storage form: schema 5 stores every event as its own row.
        let seed = config.seed.wrapping_add(i as u64 * 7919);
        let (text, count, title, _) = rewrite(&generated(seed, config.events, false)?, &meta);
        tx.execute(
            "INSERT INTO sessions VALUES (?1, 0, ?2, ?3, NULL, NULL, 0)",
            rusqlite::params![id, meta.created, cwd],
        )
        .map_err(to_io)?;
        let mut insert = tx
            .prepare("INSERT INTO events VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)")
            .map_err(to_io)?;
        for line in text
            .split(|&b| b == b'\n')
            .skip(1)
            .filter(|l| !l.is_empty())
        {
            let v: Value = serde_json::from_slice(line).map_err(io::Error::other)?;
            let json = |key: &str| v.get(key).map(Value::to_string);
            insert
                .execute(rusqlite::params![
                    id,
                    v["seq"].as_i64(),
                    v["type"].as_str(),
                    v["time"].as_i64(),
                    v["data"].to_string(),
                    json("sourceEventSeqs"),
                    json("surfaceOp"),
                ])
                .map_err(to_io)?;
        }
        out.push(StoredSession {
            file: file.clone(),
            id,
            format: "sqlite",
            cwd,
            parent: None,
            seed_length: None,
            events: count,
            title,
        });
    }
    tx.commit().map_err(to_io)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn project_keys_follow_the_harness() {
        assert_eq!(project_key("/home/u/proj"), "--home-u-proj--");
        assert_eq!(project_key("C:\\\\x//y"), "--C-x-y--");
        assert_eq!(project_key("/"), "--root--");
        assert_eq!(project_key("/a b"), "--a~0020b--");
    }

    #[test]
    fn times_shift_in_the_envelope_only() {
        let mut out = Vec::new();
        let t = shift_line(
            br#"{"type":"x","seq":1,"time":100,"data":{"time":5}}"#,
            10,
            &mut out,
        );
        assert_eq!(t, Some(110));
        assert_eq!(out, br#"{"type":"x","seq":1,"time":110,"data":{"time":5}}"#);
        out.clear();
        shift_line(
            br#"{"type":"text-chunks","seq0":3,"time0":7,"data":{}}"#,
            -2,
            &mut out,
        );
        assert_eq!(
            out,
            br#"{"type":"text-chunks","seq0":3,"time0":5,"data":{}}"#
        );
    }
}
