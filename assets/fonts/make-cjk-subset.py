#!/usr/bin/env python3
"""Makes assets/fonts/NotoSansCJK-subset.otf, the CJK fallback font bundled in the viewer.

Input: NotoSansCJK-Regular.ttc (SIL OFL 1.1), e.g. from the Debian package fonts-noto-cjk
without installing it:

    apt-get download fonts-noto-cjk && dpkg -x fonts-noto-cjk_*.deb /tmp/noto
    pip install fonttools
    assets/fonts/make-cjk-subset.py /tmp/noto/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc

The face is "Noto Sans CJK SC" (index 2 of the collection: simplified-Chinese glyph forms; the
font holds every CJK script). The characters kept:

- the 3,755 hanzi of GB 2312 level 1 (the common simplified Chinese characters),
- the kanji of JIS X 0208 level 1 that GB 2312 level 1 lacks (1,254 common Japanese forms),
- hiragana, katakana (full and half width), small kana,
- the 2,350 Hangul syllables of KS X 1001 and the Hangul compatibility jamo,
- CJK symbols and punctuation, full-width ASCII forms and the punctuation rows of GB 2312.

Hinting, OpenType layout features and vertical metrics are dropped (egui lays out horizontal
text glyph by glyph); the name table keeps the copyright and licence notices.
"""

import sys
from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTCollection

FACE_SC = 2
OUT = Path(__file__).resolve().parent / "NotoSansCJK-subset.otf"
CHARS = Path(__file__).resolve().parent / "NotoSansCJK-subset.chars.txt"


def decode_rows(codec, rows, cells=range(0xA1, 0xFF)):
    """Every character of a two-byte EUC codec in the given lead-byte rows."""
    chars = set()
    for lead in rows:
        for cell in cells:
            try:
                chars.add(bytes([lead, cell]).decode(codec))
            except UnicodeDecodeError:
                pass
    return chars


def is_han(c):
    return 0x4E00 <= ord(c) <= 0x9FFF


def wanted_chars():
    chars = set()
    chars |= decode_rows("gb2312", range(0xB0, 0xD8))  # GB 2312 level 1 hanzi
    chars |= decode_rows("gb2312", range(0xA1, 0xAA))  # GB 2312 symbol rows
    chars |= {c for c in decode_rows("euc_jp", range(0xB0, 0xD0)) if is_han(c)}  # JIS level 1
    chars |= decode_rows("euc_kr", range(0xB0, 0xC9))  # KS X 1001 Hangul syllables
    ranges = [
        (0x3000, 0x303F),  # CJK symbols and punctuation
        (0x3040, 0x309F),  # hiragana
        (0x30A0, 0x30FF),  # katakana
        (0x31F0, 0x31FF),  # katakana phonetic extensions
        (0x3131, 0x318E),  # Hangul compatibility jamo
        (0xFF01, 0xFF5E),  # full-width ASCII
        (0xFF61, 0xFF9F),  # half-width CJK punctuation and katakana
        (0xFFE0, 0xFFE6),  # full-width signs
    ]
    for lo, hi in ranges:
        chars |= {chr(c) for c in range(lo, hi + 1)}
    return chars


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    collection = TTCollection(sys.argv[1])
    font = collection.fonts[FACE_SC]
    cmap = font.getBestCmap()
    chars = sorted(c for c in wanted_chars() if ord(c) in cmap)
    options = subset.Options()
    options.hinting = False
    options.desubroutinize = False
    options.layout_features = []
    options.name_IDs = ["*"]
    options.notdef_outline = True
    # Vertical metrics and baselines: egui lays text out horizontally only.
    options.drop_tables += ["VORG", "vhea", "vmtx", "BASE"]
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=[ord(c) for c in chars])
    subsetter.subset(font)
    font.save(OUT)
    CHARS.write_text("".join(chars) + "\n", encoding="utf-8")
    print(f"{OUT}: {len(chars)} characters, {OUT.stat().st_size} bytes")


if __name__ == "__main__":
    main()
