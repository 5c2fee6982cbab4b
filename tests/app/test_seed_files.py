"""The demo files' text: every letter the seed writes on covers and pages has a glyph in the
font the seed ships (Pillow's built-in font drew 'Pr□paration')."""

from __future__ import annotations

import sys

from tests import harness

SEED = harness.APP / "seed"
sys.path.insert(0, str(SEED))
import demo_files  # noqa: E402

# A private-use code point: no font has it, so it renders as the missing-glyph box.
MISSING = "\ue000"


def test_every_character_of_the_seed_has_a_glyph():
    font = demo_files.font(22)
    missing_box = bytes(font.getmask(MISSING))
    text = (SEED / "seed.py").read_text(encoding="utf-8")
    letters = sorted({c for c in text if c.isalpha() or c in "«»'’-:"})  # noqa: RUF001 - the French apostrophe is the point
    assert "é" in letters
    without_glyph = [c for c in letters if bytes(font.getmask(c)) == missing_box]
    assert without_glyph == []


def test_the_font_and_its_licence_are_committed():
    assert demo_files.FONT_FILE.is_relative_to(SEED)
    assert demo_files.FONT_FILE.is_file()
    assert "Bitstream Vera" in (SEED / "fonts" / "LICENSE-DejaVu.txt").read_text(encoding="utf-8")
