"""`nika:image_generate` offline (provider mock): the argument folding and its warnings, the
filename grammar and collision probing, the manifest, permits judged before any I/O, and no
image bytes in the output."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from nika.media import png
from nika.tools.builtins import BuiltinExecutor
from nika.tools.builtins._image_args import plan, provider_of
from nika.tools.builtins._image_write import model_slug, stem_slug

NAME = re.compile(r"^[a-z0-9._-]+-mock-mockimage1-[0-9]-[0-9a-f]{8}\.png$")


async def _gen(ex: BuiltinExecutor, **args: Any) -> Any:
    return await ex.call("nika:image_generate", {"provider": "mock", "prompt": "a hero",
                                                 "output_dir": "out", **args})


@pytest.mark.parametrize(("model", "provider"), [
    ("gpt-image-2", "openai"), ("dall-e-3", "openai"), ("gemini-3.1-flash-image", "gemini"),
    ("grok-imagine-image", "xai"), ("mock-image-1", "mock"),
])
def test_the_provider_is_inferred_from_the_model(model: str, provider: str) -> None:
    assert provider_of({"model": model}) == provider


def test_local_is_never_inferred() -> None:
    with pytest.raises(Exception) as caught:
        provider_of({"model": "stablediffusion"})
    assert "local is never inferred" in str(caught.value)


def test_the_folding_warns_for_every_lossy_mapping() -> None:
    p = plan({"provider": "openai", "prompt": "p", "output_dir": "o", "size": "800x600",
              "aspect_ratio": "1:1", "compression": 50, "provider_options": {"bogus": 1,
                                                                           "user": "u"}})
    assert [w.split(":")[0] for w in p.warnings] == [
        "provider_option_unknown", "size_conflict", "compression_ignored"]
    assert p.options == {"user": "u"} and p.size == (800, 600)


@pytest.mark.parametrize(("args", "arg"), [
    ({"provider": "xai", "background": "transparent"}, "background"),
    ({"format": "jpeg", "background": "transparent"}, "background"),
    ({"size": "12x"}, "size"),
    ({"size": "99999x10"}, "size"),
    ({"provider": "xai", "mode": "edit", "images": ["a", "b", "c", "d"]}, "images"),
])
def test_impossible_requests_are_001_naming_the_arg(args: dict[str, Any], arg: str) -> None:
    with pytest.raises(Exception) as caught:
        plan({"provider": "mock", "prompt": "p", "output_dir": "o"} | args)
    assert getattr(caught.value, "code", "") == "NIKA-BUILTIN-IMAGE_GENERATE-001"
    assert caught.value.details["arg"] == arg  # type: ignore[attr-defined]


@pytest.mark.parametrize(("args", "said"), [
    ({"save": False}, "save: false"),
    ({"reference_images": ["a.png"]}, "reference_images"),
    ({"aspect-ratio": "1:1"}, "aspect-ratio"),
    ({"mode": "edit"}, "exactly one source"),
])
async def test_reserved_and_unknown_args_are_refused_loudly(
        make: Callable[..., BuiltinExecutor], base: Path, args: dict[str, Any],
        said: str) -> None:
    result = await _gen(make(), **args)
    assert result.error.code == "NIKA-BUILTIN-IMAGE_GENERATE-001"
    assert said in result.error.detail and not (base / "out").exists()


def test_filename_components_are_sanitized() -> None:
    assert stem_slug("../../etc/Passwd", "image") == "etc-passwd"
    assert stem_slug("...", "image") == "image"
    assert model_slug("gpt-image-2") == "gptimage2"
    assert model_slug("gemini-3.1-flash-image") == "gemini3.1flashimage"


async def test_mock_generates_assets_and_a_manifest(make: Callable[..., BuiltinExecutor],
                                                    base: Path) -> None:
    result = await _gen(make(), n=3, aspect_ratio="9:16", seed=5,
                        metadata={"page_slug": "QR Menu", "campaign": "spring"})
    out = result.structured
    assert out["count"] == 3 and out["cost_usd"] == 0.0
    names = [i["filename"] for i in out["images"]]
    assert all(NAME.match(n) for n in names) and names[0].startswith("qr-menu-mock-")
    assert len({i["sha256"] for i in out["images"]}) == 3  # the index keys each variant
    for image in out["images"]:
        data = (base / image["path"]).read_bytes()
        assert (image["width"], image["height"]) == (144, 256)
        assert image["size_bytes"] == len(data) and image["wrote"] is True
        core = json.loads(png.read_texts(data)["nika"])
        assert core == {"engine": core["engine"], "model": "mock-image-1", "prompt": "a hero",
                        "provider": "mock", "seed": 5, "tool": "nika:image_generate"}
    manifest = json.loads((base / out["manifest_path"]).read_text())
    assert manifest["manifest_version"] == 1
    assert manifest["request"]["n"] == 3 and manifest["metadata"]["campaign"] == "spring"
    assert [i["sha256"] for i in manifest["images"]] == [i["sha256"] for i in out["images"]]
    assert re.match(r"^qr-menu-mock-mockimage1-[0-9a-f]{8}\.manifest\.json$",
                    Path(out["manifest_path"]).name)
    assert "base64" not in result.content and len(result.content) < 8000


async def test_a_rerun_is_idempotent_and_a_foreign_file_is_probed_past(
        make: Callable[..., BuiltinExecutor], base: Path) -> None:
    first = (await _gen(make())).structured["images"][0]
    again = (await _gen(make())).structured["images"][0]
    assert again["path"] == first["path"] and again["wrote"] is False
    (base / first["path"]).write_bytes(b"someone else's file")
    probed = (await _gen(make())).structured["images"][0]
    assert probed["filename"] == first["filename"].replace(".png", "-2.png")
    assert (base / first["path"]).read_bytes() == b"someone else's file"


async def test_the_permits_refuse_before_any_io(make: Callable[..., BuiltinExecutor],
                                                base: Path, judge: Any) -> None:
    judge.refuse_prefixes = ("out/",)
    result = await _gen(make())
    assert result.error.code == "NIKA-SEC-004" and not (base / "out").exists()
    (base / "secret.png").write_bytes(b"x")
    judge.refuse_prefixes = ("secret",)
    edit = await _gen(make(), mode="edit", image="secret.png")
    assert edit.error.code == "NIKA-SEC-004"


async def test_an_edit_source_that_is_no_image_is_001(make: Callable[..., BuiltinExecutor],
                                                      base: Path) -> None:
    (base / "notes.txt").write_text("hello")
    result = await _gen(make(), mode="edit", image="notes.txt")
    assert result.error.code == "NIKA-BUILTIN-IMAGE_GENERATE-001"
    assert "notes.txt" in result.error.detail


async def test_the_manifest_can_be_turned_off_and_formats_fold(
        make: Callable[..., BuiltinExecutor], base: Path) -> None:
    out = (await _gen(make(), manifest=False, format="webp",
                      background="transparent")).structured
    assert out["manifest_path"] is None
    assert [w.split(":")[0] for w in out["warnings"]] == ["format_mismatch"]
    assert sorted(p.suffix for p in (base / "out").iterdir()) == [".png"]
    assert png.read_header((base / out["images"][0]["path"]).read_bytes()).channels == 4
