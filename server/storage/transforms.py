"""Image transforms with Pillow (`/render/image/...`): width, height, resize
(cover|contain|fill), quality, format (origin|webp|avif). CPU-bound: callers run
`render` in a worker thread."""

from __future__ import annotations

import io
from collections.abc import Mapping
from dataclasses import dataclass

from PIL import Image, ImageOps, UnidentifiedImageError

from server.storage import errors

MAX_SOURCE_BYTES = 25 * 1024 * 1024
MAX_DIMENSION = 2500
MAX_PIXELS = 50_000_000
RESIZE_MODES = ("cover", "contain", "fill")
_SAVE_FORMATS = {"webp": ("WEBP", "image/webp"), "avif": ("AVIF", "image/avif"),
                 "jpeg": ("JPEG", "image/jpeg"), "png": ("PNG", "image/png"), "gif": ("GIF", "image/gif")}


@dataclass(frozen=True)
class Transform:
    width: int | None = None
    height: int | None = None
    resize: str = "cover"
    quality: int | None = None
    format: str = "origin"

    def token(self) -> str:
        """The `transformations` string signed URLs carry (storage-api's shape)."""
        parts = []
        if self.width:
            parts.append(f"width:{self.width}")
        if self.height:
            parts.append(f"height:{self.height}")
        parts.append(f"resize:{self.resize}")
        if self.quality:
            parts.append(f"quality:{self.quality}")
        if self.format != "origin":
            parts.append(f"format:{self.format}")
        return ",".join(parts)


def _int(params: Mapping[str, object], name: str, low: int, high: int) -> int | None:
    raw = params.get(name)
    if raw in (None, "", 0):
        return None
    try:
        value = int(str(raw))
    except ValueError:
        raise errors.invalid_parameter(name, f"{name} must be an integer") from None
    if not low <= value <= high:
        raise errors.invalid_parameter(name, f"{name} must be between {low} and {high}")
    return value


def parse(params: Mapping[str, object]) -> Transform:
    resize = str(params.get("resize") or "cover")
    if resize not in RESIZE_MODES:
        raise errors.invalid_parameter("resize", "resize must be one of cover, contain, fill")
    fmt = str(params.get("format") or "origin")
    if fmt != "origin" and fmt not in ("webp", "avif"):
        raise errors.invalid_parameter("format", "format must be one of origin, webp, avif")
    if fmt == "avif" and "AVIF" not in Image.SAVE:
        Image.init()
        if "AVIF" not in Image.SAVE:
            raise errors.invalid_parameter("format", "avif is not supported by this server")
    return Transform(width=_int(params, "width", 1, MAX_DIMENSION), height=_int(params, "height", 1, MAX_DIMENSION),
                     resize=resize, quality=_int(params, "quality", 20, 100), format=fmt)


def from_token(text: str) -> Transform:
    params = dict(part.split(":", 1) for part in text.split(",") if ":" in part)
    return parse(params)


def _target_size(image: Image.Image, t: Transform) -> tuple[int, int]:
    w, h = image.size
    if t.width and t.height:
        return t.width, t.height
    if t.width:
        return t.width, max(1, round(h * t.width / w))
    if t.height:
        return max(1, round(w * t.height / h)), t.height
    return w, h


def render(data: bytes, t: Transform, content_type: str) -> tuple[bytes, str]:
    """Transformed image bytes and their content type."""
    Image.MAX_IMAGE_PIXELS = MAX_PIXELS
    try:
        opened = Image.open(io.BytesIO(data))
        source_format = opened.format or "PNG"
        image = ImageOps.exif_transpose(opened)
    except (UnidentifiedImageError, Image.DecompressionBombError, OSError):
        raise errors.StorageError("InvalidRequest", 400, "Image could not be processed: not a supported image") from None
    size = _target_size(image, t)
    if size != image.size:
        if t.resize == "fill" or not (t.width and t.height):
            image = image.resize(size, Image.Resampling.LANCZOS)
        elif t.resize == "contain":
            image = ImageOps.contain(image, size, Image.Resampling.LANCZOS)
        else:
            image = ImageOps.fit(image, size, Image.Resampling.LANCZOS)
    if t.format == "origin":
        save_format, mime = source_format.upper(), content_type
    else:
        save_format, mime = _SAVE_FORMATS[t.format]
    if save_format == "JPEG" and image.mode not in ("RGB", "L"):
        image = image.convert("RGB")
    out = io.BytesIO()
    options = {"quality": t.quality or 80} if save_format in ("JPEG", "WEBP", "AVIF") else {}
    try:
        image.save(out, format=save_format, **options)
    except (OSError, KeyError, ValueError):
        raise errors.StorageError("InvalidRequest", 400, "Image could not be processed") from None
    return out.getvalue(), mime
