//! The schema-17 `source_event_seqs` BLOB: a LEB128 first seq, then ZigZag LEB128 deltas
//! (docs/parity.md), decoded strictly (canonical varints, safe-integer bounds).

/// The greatest seq a BLOB may hold (`2^53 − 1`, JavaScript's safe-integer limit).
pub const MAX_SEQ: u64 = (1 << 53) - 1;

/// The greatest ZigZag value a delta may have (`2 · (2^53 − 1)`).
const MAX_ZIGZAG: u64 = 2 * MAX_SEQ;

/// At most this many bytes per varint (enough for 56 bits, more than the bounds allow).
const MAX_VARINT_BYTES: usize = 8;

/// Decodes a `source_event_seqs` BLOB into `out` (cleared first). An empty BLOB is an empty
/// list. `Err` says, as a sentence, why the BLOB is not a valid seq list.
pub fn decode_seq_list(blob: &[u8], out: &mut Vec<u64>) -> Result<(), String> {
    out.clear();
    let mut at = 0;
    while at < blob.len() {
        let (value, used) = read_varint(&blob[at..]).map_err(|why| {
            format!("source_event_seqs BLOB has a bad varint at byte {at}: {why}")
        })?;
        let seq = if out.is_empty() {
            if value > MAX_SEQ {
                return Err(format!(
                    "source_event_seqs BLOB starts with seq {value}, above the limit 2^53-1"
                ));
            }
            value
        } else {
            if value > MAX_ZIGZAG {
                return Err(format!(
                    "source_event_seqs BLOB has a delta at byte {at} out of range (ZigZag value {value})"
                ));
            }
            let prev = out.last().copied().unwrap_or(0);
            let next = if value & 1 == 0 {
                prev.checked_add(value / 2)
            } else {
                prev.checked_sub(value / 2 + 1)
            };
            match next.filter(|s| *s <= MAX_SEQ) {
                Some(s) => s,
                None => {
                    return Err(format!(
                        "source_event_seqs BLOB has a delta at byte {at} that leaves the seq range 0..2^53-1"
                    ));
                }
            }
        };
        out.push(seq);
        at += used;
    }
    Ok(())
}

/// Reads one canonical unsigned LEB128 varint; returns the value and the bytes used.
fn read_varint(bytes: &[u8]) -> Result<(u64, usize), &'static str> {
    let mut value = 0u64;
    for (i, &b) in bytes.iter().enumerate() {
        if i == MAX_VARINT_BYTES {
            return Err("longer than 8 bytes");
        }
        value |= u64::from(b & 0x7f) << (7 * i);
        if b & 0x80 == 0 {
            if i > 0 && b == 0 {
                return Err("not canonical (ends in a zero group)");
            }
            return Ok((value, i + 1));
        }
    }
    Err("truncated (the last byte has the continuation bit)")
}

/// Encodes a seq list as schema 17 stores it: the first seq as an unsigned LEB128 varint, each
/// later one as the ZigZag-encoded difference from the previous one. The inverse of
/// [`decode_seq_list`]; used to write test databases.
pub fn encode_seq_list(seqs: &[u64]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut put = |mut v: u64| loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(b);
            break;
        }
        out.push(b | 0x80);
    };
    let mut prev = 0u64;
    for (i, &s) in seqs.iter().enumerate() {
        if i == 0 {
            put(s);
        } else if s >= prev {
            put(2 * (s - prev));
        } else {
            put(2 * (prev - s) - 1);
        }
        prev = s;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(blob: &[u8]) -> Result<Vec<u64>, String> {
        let mut v = vec![99];
        decode_seq_list(blob, &mut v).map(|()| v)
    }

    #[test]
    fn round_trips() {
        for list in [
            vec![],
            vec![0],
            vec![5, 3, 4, 300, 1],
            vec![MAX_SEQ, 0, MAX_SEQ],
            vec![7, 7],
        ] {
            assert_eq!(decode(&encode_seq_list(&list)).unwrap(), list, "{list:?}");
        }
    }

    #[test]
    fn known_bytes() {
        // 3, then +1 (zigzag 2), then -2 (zigzag 3).
        assert_eq!(decode(&[3, 2, 3]).unwrap(), [3, 4, 2]);
        assert_eq!(decode(&[0x80, 0x01]).unwrap(), [128]);
    }

    #[test]
    fn rejects_bad_blobs() {
        assert!(decode(&[0x80, 0x00]).unwrap_err().contains("canonical"));
        assert!(decode(&[0x81]).unwrap_err().contains("truncated"));
        assert!(decode(&[0xff; 9]).unwrap_err().contains("8 bytes"));
        // First seq 2^53 (above the limit).
        assert!(
            decode(&encode_seq_list(&[1 << 53]))
                .unwrap_err()
                .contains("limit")
        );
        // 1 then -2 → negative seq.
        assert!(decode(&[1, 3]).unwrap_err().contains("range"));
        // A delta whose ZigZag value is above the bound.
        let mut blob = vec![0];
        blob.extend(encode_seq_list(&[MAX_ZIGZAG + 1]));
        assert!(decode(&blob).unwrap_err().contains("out of range"));
    }
}
