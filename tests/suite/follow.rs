//! Live follow: a writer thread appends to a log at a high rate while a follower tails it with
//! delta processing; the final surface equals a fresh load of the finished file.

use crate::common;

use std::io::Write as _;

use common::*;
use surface_engine::Surface;
use surface_store::{FollowUpdate, ReadLimits, open, open_following};

fn event_line(seq: u64) -> String {
    // Every 50th event compacts the 10 nodes before it; the rest are appends.
    if seq % 50 == 49 {
        let (start, end) = (seq - 10, seq - 1);
        let src: Vec<u64> = (start..=end).collect();
        msg(
            seq,
            &format!(r#"{{"op":"replace","start":{start},"end":{end}}}"#),
            Some(&format!("{src:?}")),
        )
    } else {
        msg(seq, "append", None)
    }
}

#[test]
fn soak_follow_100k_events_equals_fresh_load() {
    const TOTAL: u64 = 100_000;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("live.jsonl");
    std::fs::write(&path, format!("{HEADER}\n")).unwrap();
    let (opened, follower) = open_following(&path, None, &ReadLimits::default()).unwrap();
    let (mut log, mut follower) = (opened.log, follower.expect("JSONL can be followed"));
    let mut surface = Surface::new(&log);

    let writer_path = path.clone();
    let writer = std::thread::spawn(move || {
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&writer_path)
            .unwrap();
        let mut seq = 0;
        while seq < TOTAL {
            // Write in bursts, sometimes splitting a line across two writes.
            let mut burst = String::new();
            for _ in 0..997 {
                if seq == TOTAL {
                    break;
                }
                burst.push_str(&event_line(seq));
                burst.push('\n');
                seq += 1;
            }
            let cut = burst.len() / 3;
            f.write_all(&burst.as_bytes()[..cut]).unwrap();
            f.flush().unwrap();
            f.write_all(&burst.as_bytes()[cut..]).unwrap();
            f.flush().unwrap();
        }
    });

    let mut polls = 0;
    while log.len() < TOTAL as usize {
        match follower.poll(&mut log).unwrap() {
            FollowUpdate::Appended { .. } => surface.catch_up(&log),
            FollowUpdate::Unchanged => std::thread::yield_now(),
            FollowUpdate::Reload { reason } => panic!("unexpected reload: {reason}"),
        }
        polls += 1;
        assert!(polls < 10_000_000, "follow stalled at {} events", log.len());
    }
    writer.join().unwrap();
    assert_eq!(surface.cursor(), log.len(), "the cursor followed the end");

    let fresh = open(&path, &surface_store::Options::default()).unwrap().log;
    let rebuilt = Surface::at_end(&fresh);
    assert_eq!(node_seqs(&log, &surface), node_seqs(&fresh, &rebuilt));
    assert!(
        log.problems.is_empty(),
        "{:?}",
        &log.problems[..log.problems.len().min(3)]
    );
}

#[test]
fn following_never_writes_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("live.jsonl");
    let text = text_of(&[event_line(0), event_line(1)]);
    std::fs::write(&path, &text).unwrap();
    let (opened, follower) = open_following(&path, None, &ReadLimits::default()).unwrap();
    let (mut log, mut follower) = (opened.log, follower.unwrap());
    for _ in 0..3 {
        assert_eq!(follower.poll(&mut log).unwrap(), FollowUpdate::Unchanged);
    }
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
}
