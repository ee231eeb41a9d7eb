//! `preview`'s document: the replace op that would shadow a surface range — its validity,
//! errors and warnings, the nodes shadowed, the totals before and after, the event it would
//! write — with the window and the threshold at the cursor.

use serde_json::{Value, json};
use surface_engine::{Meter, Preview, Surface};

use crate::{ReportError, Source};

/// The `--json` document of `preview` (`surface` the surface it was previewed against).
pub fn document(
    source: &Source<'_>,
    preview: &Preview,
    surface: &Surface,
    meter: &Meter,
    threshold_ratio: f64,
) -> Result<Value, ReportError> {
    let mut doc = serde_json::to_value(preview)?;
    if let Value::Object(map) = &mut doc {
        map.insert("window".into(), json!(meter.window_at(surface.cursor())));
        map.insert("threshold_ratio".into(), json!(threshold_ratio));
        map.insert(
            "threshold".into(),
            json!(meter.threshold_at(surface.cursor(), threshold_ratio)),
        );
        map.insert("skipped".into(), json!(source.skipped));
    }
    Ok(doc)
}
