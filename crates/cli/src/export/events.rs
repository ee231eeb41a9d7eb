//! The `events` table: one row per event of the log (packed chunk rows expanded), in log order —
//! its seq, time, type, the turn and step it belongs to, where it stands on the surface at the
//! end of the log, the meter's total after it and its own price, its surface op and the
//! event's byte length; the event's JSON only with `--payload`.

use std::sync::Arc;

use parquet::data_type::ByteArray;

use surface_engine::{
    EventIdx, EventLog, EventState, EventText, EventType, Meter, Surface, SurfaceOp, TypeId,
    turn_and_step,
};

use super::table::{Column, Getter, NULL, Table, int, or_null};
use super::writer::{SessionKey, TableWriter};

/// One event, kept small: a row group buffers 65,536 of them. Integer fields hold [`NULL`]
/// for null.
pub struct EventRow {
    seq: i64,
    time: i64,
    turn: i64,
    step: i64,
    shadowed_by: i64,
    total: i64,
    price: i64,
    replace_start: i64,
    replace_end: i64,
    line: i64,
    bytes: i64,
    kind: ByteArray,
    state: &'static str,
    surface_op: Option<&'static str>,
    on_surface: bool,
    packed: bool,
    seed: bool,
    payload: Option<Box<str>>,
}

/// The columns without the payload.
const COLUMNS: [Column<EventRow>; 17] = [
    Column::required("seq", Getter::Int64(|r| Some(r.seq))),
    Column::nullable("time", Getter::Time(|r| or_null(r.time))),
    Column::required("type", Getter::Value(|r| Some(&r.kind))),
    Column::nullable("turn", Getter::Int64(|r| or_null(r.turn))),
    Column::nullable("step", Getter::Int64(|r| or_null(r.step))),
    Column::required("on_surface", Getter::Bool(|r| Some(r.on_surface))),
    Column::required("state", Getter::Text(|r| Some(r.state))),
    Column::nullable("shadowed_by", Getter::Int64(|r| or_null(r.shadowed_by))),
    Column::nullable("total", Getter::Int64(|r| or_null(r.total))),
    Column::nullable("price", Getter::Int64(|r| or_null(r.price))),
    Column::nullable("surface_op", Getter::Text(|r| r.surface_op)),
    Column::nullable("replace_start", Getter::Int64(|r| or_null(r.replace_start))),
    Column::nullable("replace_end", Getter::Int64(|r| or_null(r.replace_end))),
    Column::nullable("line", Getter::Int64(|r| or_null(r.line))),
    Column::nullable("bytes", Getter::Int64(|r| or_null(r.bytes))),
    Column::required("packed", Getter::Bool(|r| Some(r.packed))),
    Column::required("seed", Getter::Bool(|r| Some(r.seed))),
];

/// The columns with the payload last.
static WITH_PAYLOAD: [Column<EventRow>; 18] = {
    let [a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q] = COLUMNS;
    [
        a,
        b,
        c,
        d,
        e,
        f,
        g,
        h,
        i,
        j,
        k,
        l,
        m,
        n,
        o,
        p,
        q,
        Column::nullable("payload", Getter::Text(|r| r.payload.as_deref())),
    ]
};

/// The table.
pub static TABLE: Table<EventRow> = Table {
    name: "events",
    columns: &WITHOUT_PAYLOAD,
};

static WITHOUT_PAYLOAD: [Column<EventRow>; 17] = COLUMNS;

/// The table with the `payload` column (`--payload`).
pub static TABLE_WITH_PAYLOAD: Table<EventRow> = Table {
    name: "events",
    columns: &WITH_PAYLOAD,
};

/// The turn and step an event belongs to: those of the turn open from its `turn/start` through
/// its `turn/end`, and of the step open from its `step/start` through its `step/end`, as their
/// `data.turn` and `data.step` say.
#[derive(Default)]
pub struct TurnTracker {
    turn: Option<u64>,
    step: Option<u64>,
    /// The turn or step ended with the previous event: cleared before the next one.
    turn_ended: bool,
    step_ended: bool,
}

impl TurnTracker {
    /// The `(turn, step)` of event `idx`, events taken in log order.
    pub fn next(&mut self, log: &EventLog, idx: EventIdx) -> (Option<u64>, Option<u64>) {
        if std::mem::take(&mut self.turn_ended) {
            self.turn = None;
            self.step = None;
        }
        if std::mem::take(&mut self.step_ended) {
            self.step = None;
        }
        match log.event_type(idx) {
            EventType::TurnStart => {
                (self.turn, _) = turn_and_step(log, idx);
                self.step = None;
            }
            EventType::StepStart => {
                let (turn, step) = turn_and_step(log, idx);
                self.turn = turn.or(self.turn);
                self.step = step;
            }
            EventType::TurnEnd => self.turn_ended = true,
            EventType::StepEnd => self.step_ended = true,
            _ => {}
        }
        (self.turn, self.step)
    }
}

/// Writes one row per event of `log`.
pub fn write(
    out: &mut TableWriter<EventRow>,
    key: &Arc<SessionKey>,
    log: &EventLog,
    surface: &Surface,
    meter: &Meter,
    payload: bool,
) -> anyhow::Result<()> {
    // One shared copy of each type's name, not one per row.
    let names: Vec<ByteArray> = (0..log.types.len())
        .map(|k| ByteArray::from(log.types.name(TypeId(k as u32))))
        .collect();
    let mut turns = TurnTracker::default();
    for idx in log.indices() {
        let e = log.event(idx);
        let (turn, step) = turns.next(log, idx);
        let state = surface.state(idx);
        let shadowed_by = match state {
            EventState::Shadowed { by } => int(log.event(by).seq),
            _ => NULL,
        };
        let (surface_op, replace) = match log.op(idx) {
            SurfaceOp::None => (None, None),
            SurfaceOp::Append => (Some("append"), None),
            SurfaceOp::Replace { start, end } => (Some("replace"), Some((start, end))),
            SurfaceOp::Malformed(_) => (Some("malformed"), None),
        };
        let (bytes, packed) = match e.text() {
            EventText::Line { len, .. } => (i64::from(len), false),
            EventText::PackedMember { .. } => (NULL, true),
            EventText::Synthesized(_) => (NULL, false),
        };
        let i = idx.get();
        let row = EventRow {
            seq: int(e.seq),
            time: e.time().unwrap_or(NULL),
            turn: turn.map_or(NULL, int),
            step: step.map_or(NULL, int),
            shadowed_by,
            total: if i < meter.len() {
                i64::from(meter.total_after(i))
            } else {
                NULL
            },
            price: if log.is_eligible(idx) {
                int(meter.price(idx))
            } else {
                NULL
            },
            replace_start: replace.map_or(NULL, |(s, _)| int(s)),
            replace_end: replace.map_or(NULL, |(_, e)| int(e)),
            line: if e.line > 0 { i64::from(e.line) } else { NULL },
            bytes,
            kind: names
                .get(e.kind.0 as usize)
                .cloned()
                .unwrap_or_else(|| ByteArray::from("")),
            state: state.label(),
            surface_op,
            on_surface: state == EventState::OnSurface,
            packed,
            seed: e.is_seed(),
            payload: payload.then(|| log.event_json(idx).into()),
        };
        out.push(key, row)?;
    }
    Ok(())
}
