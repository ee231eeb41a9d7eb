//! The last-resort font for Chinese, Japanese and Korean text: a subset of Noto Sans CJK SC
//! (SIL OFL 1.1, `assets/fonts/`) compiled into the binary and handed to egui only when some
//! text needs a character it covers — a log without CJK text never loads it. System fonts
//! come first: eframe's system font provider is asked before this one.

use std::sync::{Arc, OnceLock};

use egui::{
    FallbackRequest, FontData, FontFamily, FontInsert, FontPriority, FontProvider, InsertFontFamily,
};

/// The subset (about 8,300 characters: GB 2312 level 1 hanzi, JIS level 1 kanji, kana, KS X
/// 1001 Hangul, CJK punctuation and full-width forms).
static SUBSET: &[u8] = include_bytes!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../assets/fonts/NotoSansCJK-subset.otf"
));

/// Every character the subset has, as written by `make-cjk-subset.py`.
static SUBSET_CHARS: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../assets/fonts/NotoSansCJK-subset.chars.txt"
));

/// The name the font is installed under.
pub const CJK_FONT_NAME: &str = "Noto Sans CJK SC (subset, bundled)";

/// A [`FontProvider`] that offers the bundled CJK subset for the characters it covers.
#[derive(Debug, Default)]
pub struct CjkFallback;

impl CjkFallback {
    /// The provider, ready for `egui::Context::add_font_provider`.
    pub fn provider() -> Arc<dyn FontProvider> {
        Arc::new(CjkFallback)
    }

    /// Whether the bundled font has a glyph for `c`.
    pub fn covers(c: char) -> bool {
        covered().binary_search(&c).is_ok()
    }
}

impl FontProvider for CjkFallback {
    fn font_for(&self, request: &FallbackRequest<'_>) -> Option<FontInsert> {
        let c = request.cluster.chars().next()?;
        if !CjkFallback::covers(c) {
            return None;
        }
        let families = [FontFamily::Proportional, FontFamily::Monospace]
            .into_iter()
            .chain(std::iter::once(request.family.clone()))
            .map(|family| InsertFontFamily {
                family,
                priority: FontPriority::Lowest,
            })
            .collect();
        Some(FontInsert::new(
            CJK_FONT_NAME,
            FontData::from_static(SUBSET),
            families,
        ))
    }
}

/// The covered characters, sorted (built on first use).
fn covered() -> &'static [char] {
    static COVERED: OnceLock<Vec<char>> = OnceLock::new();
    COVERED.get_or_init(|| {
        let mut chars: Vec<char> = SUBSET_CHARS.chars().filter(|c| *c != '\n').collect();
        chars.sort_unstable();
        chars.dedup();
        chars
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn covers_common_chinese_japanese_and_korean() {
        for c in "中文日本語한국어ひらがなカタカナ。、「」".chars() {
            assert!(CjkFallback::covers(c), "{c}");
        }
        assert!(!CjkFallback::covers('a'));
        assert!(!CjkFallback::covers('😀'));
        assert!(SUBSET.starts_with(b"OTTO"), "an OpenType (CFF) font");
    }
}
