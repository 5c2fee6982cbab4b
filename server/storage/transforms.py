"""Image transforms (`/render/image/...`) with Pillow, shaped like storage-api's renderer
in front of imgproxy: width, height (clamped to the limits), resize (cover|contain|fill,
imgproxy's fill|fit|force), quality, format (origin|webp|avif; none given picks WebP when
the client accepts it, as imgproxy's WebP detection does). The answer's type is the output
format's. SVG sources are rasterised (cairosvg, no external fetch, no entities, bounded
size). CPU-bound: callers run `render` in a worker thread."""

from __future__ import annotations

import io
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

from PIL import Image, ImageOps, UnidentifiedImageError

from server.storage import errors
from server.storage.inputs import choice

MAX_SOURCE_BYTES = 25 * 1024 * 1024
MAX_SVG_BYTES = 4 * 1024 * 1024  # an SVG is parsed whole: far less than a raster source
MIN_DIMENSION = 1
MAX_DIMENSION = 2500
MAX_PIXELS = 50_000_000
RESIZE_MODES = ("cover", "contain", "fill")
FORMATS = ("origin", "avif", "webp")
DEFAULT_QUALITY = 80  # imgproxy's default
# storage-api's names -> imgproxy's resizing types; anything else is imgproxy's `fill`.
_RESIZING_TYPES = {"cover": "fill", "contain": "fit", "fill": "force"}
_SAVE = {"JPEG": "image/jpeg", "PNG": "image/png", "GIF": "image/gif", "WEBP": "image/webp", "AVIF": "image/avif"}


@dataclass(frozen=True)
class Transform:
    """What a request asked for; None where it gave nothing (storage-api keeps them apart)."""

    width: int | None = None
    height: int | None = None
    resize: str | None = None
    quality: int | None = None
    format: str | None = None

    def segments(self) -> list[str]:
        """The imgproxy options storage-api sends and echoes in X-Transformations."""
        parts = self._dimensions()
        if self.width or self.height:
            parts.append(f"resizing_type:{_RESIZING_TYPES.get(self.resize or '', 'fill')}")
        return parts + self._tail()

    def token(self) -> str:
        """The `transformations` claim of a signed render URL: storage-api's form, keeping
        the resize name as given (`resize:undefined` when none was)."""
        parts = self._dimensions()
        if self.width or self.height:
            parts.append(f"resize:{self.resize if self.resize is not None else 'undefined'}")
        return ",".join(parts + self._tail())

    def _dimensions(self) -> list[str]:
        parts = []
        if self.height:
            parts.append(f"height:{self.height}")
        if self.width:
            parts.append(f"width:{self.width}")
        return parts

    def _tail(self) -> list[str]:
        parts = []
        if self.quality:
            parts.append(f"quality:{self.quality}")
        if self.format and self.format != "origin":
            parts.append(f"format:{self.format}")
        return parts


def _int(params: Mapping[str, object], name: str, where: str) -> int | None:
    raw = params.get(name)
    if raw is None or raw == "":
        return None
    if isinstance(raw, bool):
        raise errors.invalid_request(f"{where}/{name} must be integer")
    if isinstance(raw, float) and raw.is_integer():
        raw = int(raw)
    if isinstance(raw, str):
        text = raw.strip()
        if not (text.lstrip("-").isdigit() and len(text) <= 18):
            raise errors.invalid_request(f"{where}/{name} must be integer")
        raw = int(text)
    if not isinstance(raw, int):
        raise errors.invalid_request(f"{where}/{name} must be integer")
    return raw


def _dimension(params: Mapping[str, object], name: str, where: str) -> int | None:
    value = _int(params, name, where)
    if value is not None and value < 0:
        raise errors.invalid_request(f"{where}/{name} must be >= 0")
    # 0 is "not given"; beyond the limits the value is clamped, as storage-api does.
    return min(max(value, MIN_DIMENSION), MAX_DIMENSION) if value else None


def parse(params: Mapping[str, object], where: str = "querystring") -> Transform:
    """The transform options of a query string (or a signing body's `transform`)."""
    quality = _int(params, "quality", where)
    if quality is not None and not 20 <= quality <= 100:
        raise errors.invalid_request(f"{where}/quality must be {'>= 20' if quality < 20 else '<= 100'}")
    return Transform(width=_dimension(params, "width", where), height=_dimension(params, "height", where),
                     resize=choice(params, "resize", RESIZE_MODES, where), quality=quality,
                     format=choice(params, "format", FORMATS, where))


def from_token(text: str) -> Transform:
    """A signed URL's transformations, read as leniently as storage-api reads them."""
    values: dict[str, Any] = {}
    for part in text.split(","):
        name, _, value = part.partition(":")
        if name in ("width", "height", "quality"):
            digits = value.strip()
            number = int(digits) if digits.isdigit() and len(digits) <= 18 else None
            values[name] = number if name == "quality" else min(number, MAX_DIMENSION) if number else None
        elif name in ("resize", "format"):
            values[name] = value
    quality = values.get("quality")
    return Transform(width=values.get("width"), height=values.get("height"), resize=values.get("resize"),
                     quality=quality if quality and 1 <= quality <= 100 else None, format=values.get("format"))


# -- rendering ---------------------------------------------------------------------------

def _is_svg(data: bytes, content_type: str) -> bool:
    if content_type.split(";", 1)[0].strip().lower() == "image/svg+xml":
        return True
    head = data[:4096].lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    return head.startswith((b"<svg", b"<?xml", b"<!doctype svg")) and b"<svg" in head


def _svg_size(tree: Any) -> tuple[float, float]:
    """An SVG's own size in px (width/height, else its viewBox), read without drawing it."""
    from cairosvg.helpers import node_format  # type: ignore[import-untyped]

    probe = SimpleNamespace(dpi=96, font_size=16.0, context_width=0.0, context_height=0.0)
    width, height, _ = node_format(probe, tree)
    return float(width or 0), float(height or 0)


MAX_SVG_DRAWS = 50_000  # elements drawn, <use> references expanded: 5,000 circles take 0.6-1.6 s
_XLINK_HREF = "{http://www.w3.org/1999/xlink}href"


def _draws(root: Any) -> int:
    """How many elements drawing `root` visits, each <use> counting what it references:
    a few hundred bytes of nested <use> can ask for billions (cycles are refused)."""
    by_id = {el.get("id"): el for el in root.iter() if el.get("id")}
    memo: dict[int, int] = {}

    def cost(el: Any, depth: int) -> int:
        if id(el) in memo:
            return memo[id(el)]
        if depth > 64:
            raise _unsupported()
        total = 1 + sum(cost(child, depth + 1) for child in el)
        href = str(el.get(_XLINK_HREF) or el.get("href") or "") if str(el.tag).endswith("use") else ""
        if href.startswith("#") and href[1:] in by_id:
            total += cost(by_id[href[1:]], depth + 1)
        memo[id(el)] = total = min(total, MAX_SVG_DRAWS + 1)
        return total

    return cost(root, 0)


def _rasterise(data: bytes, t: Transform) -> Image.Image:
    """An SVG drawn at a bounded size: as large as the transform needs, at most
    MAX_DIMENSION on a side. External resources are never fetched (only data: URLs,
    within the source bound), XML entities are refused, gzip (svgz) is refused."""
    if len(data) > MAX_SVG_BYTES:
        raise errors.StorageError("EntityTooLarge", 413, "The image exceeded the maximum size for transforms")
    if data[:2] == b"\x1f\x8b":
        raise _unsupported()
    try:
        from cairosvg.parser import Tree  # type: ignore[import-untyped]
        from cairosvg.surface import PNGSurface  # type: ignore[import-untyped]
        from cairosvg.url import safe_fetch  # type: ignore[import-untyped]
    except (ImportError, OSError):  # cairosvg or the cairo library missing: not renderable here
        raise errors.StorageError("InvalidRequest", 400, "Image could not be processed: SVG rendering is unavailable") from None
    try:
        tree = Tree(bytestring=data, unsafe=False, url_fetcher=safe_fetch)
        if _draws(tree.xml_tree) > MAX_SVG_DRAWS:
            raise _unsupported()
        width, height = _svg_size(tree)
        if not (width > 0 and height > 0) or width * height == float("inf"):
            raise _unsupported()
        scale = 1.0
        if t.width or t.height:
            scale = max((t.width or 0) / width, (t.height or 0) / height)
        scale = min(scale, MAX_DIMENSION / width, MAX_DIMENSION / height)
        out_w, out_h = max(1, round(width * scale)), max(1, round(height * scale))
        png = io.BytesIO()
        PNGSurface(tree, png, 96, output_width=out_w, output_height=out_h).finish()
        image = Image.open(io.BytesIO(png.getvalue()))
        image.load()
        return image
    except errors.StorageError:
        raise
    except (Exception, RecursionError):  # a malformed or hostile document: never a 500
        raise _unsupported() from None


def _unsupported() -> errors.StorageError:
    return errors.StorageError("InvalidRequest", 400, "Image could not be processed: not a supported image")


def _target_size(image: Image.Image, t: Transform) -> tuple[int, int]:
    w, h = image.size
    if t.width and t.height:
        return t.width, t.height
    if t.width:
        return t.width, max(1, round(h * t.width / w))
    if t.height:
        return max(1, round(w * t.height / h)), t.height
    return w, h


def _output_format(source: str, image: Image.Image, t: Transform, accepts_webp: bool) -> str:
    """imgproxy's choice: the asked format; none given, WebP for clients that accept it;
    else the source's format when it can be written, else PNG (with alpha) or JPEG."""
    if t.format in ("webp", "avif"):
        return t.format.upper()
    if t.format is None and accepts_webp:
        return "WEBP"
    if source in _SAVE:
        return source
    has_alpha = image.mode in ("RGBA", "LA", "PA") or (image.mode == "P" and "transparency" in image.info)
    return "PNG" if has_alpha else "JPEG"


def render(data: bytes, t: Transform, content_type: str, accepts_webp: bool = False) -> tuple[bytes, str]:
    """Transformed image bytes and their content type (the output format's)."""
    Image.MAX_IMAGE_PIXELS = MAX_PIXELS
    try:
        if _is_svg(data, content_type):
            image, source_format = _rasterise(data, t), "PNG"  # drawn as PNG: its "origin" format
        else:
            opened = Image.open(io.BytesIO(data))
            source_format = (opened.format or "PNG").upper()
            image = ImageOps.exif_transpose(opened)
    except (UnidentifiedImageError, Image.DecompressionBombError, OSError, zlib.error, ValueError):
        raise _unsupported() from None
    try:
        size = _target_size(image, t)
        if size != image.size:
            if t.resize == "fill" or not (t.width and t.height):
                image = image.resize(size, Image.Resampling.LANCZOS)
            elif t.resize == "contain":
                image = ImageOps.contain(image, size, Image.Resampling.LANCZOS)
            else:
                image = ImageOps.fit(image, size, Image.Resampling.LANCZOS)
        save_format = _output_format(source_format, image, t, accepts_webp)
        if save_format == "AVIF" and "AVIF" not in Image.SAVE:
            Image.init()
        if save_format == "JPEG" and image.mode not in ("RGB", "L"):
            image = image.convert("RGB")
        out = io.BytesIO()
        options = {"quality": t.quality or DEFAULT_QUALITY} if save_format in ("JPEG", "WEBP", "AVIF") else {}
        image.save(out, format=save_format, **options)
    except (OSError, KeyError, ValueError, Image.DecompressionBombError):
        raise errors.StorageError("InvalidRequest", 400, "Image could not be processed") from None
    return out.getvalue(), _SAVE[save_format]
