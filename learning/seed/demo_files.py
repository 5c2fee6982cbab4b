"""Small real files for the demo, drawn with Pillow: PDFs (books, lessons), JPEG covers
(at most 300 px wide, white background, quality 90, as the site compresses them), PNGs.
Text is drawn with DejaVu Sans shipped in seed/fonts (Pillow's built-in font has no accented
letters: 'Préparation' came out with a missing glyph)."""

from __future__ import annotations

import io
import zlib
from functools import cache
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

FONT_FILE = Path(__file__).parent / "fonts" / "DejaVuSans.ttf"
PALETTE = [(37, 99, 235), (22, 163, 74), (234, 88, 12), (147, 51, 234), (219, 39, 119)]


def _color(title: str) -> tuple[int, int, int]:
    return PALETTE[zlib.crc32(title.encode()) % len(PALETTE)]


@cache
def font(size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(FONT_FILE), size)


def _page(title: str, lines: list[str], size: tuple[int, int] = (595, 842)) -> Image.Image:
    page = Image.new("RGB", size, "white")
    draw = ImageDraw.Draw(page)
    draw.rectangle([0, 0, size[0], 90], fill=_color(title))
    draw.text((40, 35), title, fill="white", font=font(24))
    for index, line in enumerate(lines):
        draw.text((40, 130 + index * 30), line, fill="black", font=font(16))
    return page


def pdf_document(title: str, lines: list[str], pages: int = 1) -> bytes:
    images = [_page(title, lines if n == 0 else [f"Page {n + 1}"]) for n in range(pages)]
    out = io.BytesIO()
    images[0].save(out, "PDF", save_all=True, append_images=images[1:], title=title, resolution=72.0)
    return out.getvalue()


def _wrap(title: str, size: int, width: int) -> list[str]:
    """The title in lines of at most `width` pixels at this font size."""
    lines: list[str] = []
    line = ""
    for word in title.split():
        candidate = f"{line} {word}".strip()
        if line and font(size).getlength(candidate) > width:
            lines.append(line)
            candidate = word
        line = candidate
    return [*lines, line]


def _jpeg(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, "JPEG", quality=90)
    return out.getvalue()


def cover_jpeg(title: str) -> bytes:
    """A book cover: portrait, the title on a coloured board."""
    cover = Image.new("RGB", (300, 420), "white")
    draw = ImageDraw.Draw(cover)
    draw.rectangle([15, 15, 285, 405], fill=_color(title))
    for index, text in enumerate(_wrap(title, 26, 230)):
        draw.text((35, 60 + index * 34), text, fill="white", font=font(26))
    return _jpeg(cover)


def course_cover_jpeg(title: str) -> bytes:
    """A course cover: 16:9 as the site recommends, the title over a band of colour."""
    cover = Image.new("RGB", (300, 169), _color(title))
    draw = ImageDraw.Draw(cover)
    for index, shade in enumerate(PALETTE):
        draw.ellipse([190 + index * 18, 95 - index * 12, 290 + index * 18, 195 - index * 12], fill=shade, outline="white")
    lines = _wrap(title, 22, 180)
    top = 84 - len(lines) * 14
    for index, text in enumerate(lines):
        draw.text((18, top + index * 28), text, fill="white", font=font(22))
    draw.text((18, 142), "English Facile", fill=(255, 255, 255), font=font(12))
    return _jpeg(cover)


def lesson_image_png(title: str) -> bytes:
    image = Image.new("RGB", (640, 360), "white")
    draw = ImageDraw.Draw(image)
    for index, color in enumerate(PALETTE):
        draw.rectangle([40 + index * 115, 120, 130 + index * 115, 240], fill=color)
    draw.text((40, 40), title, fill="black", font=font(28))
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()
