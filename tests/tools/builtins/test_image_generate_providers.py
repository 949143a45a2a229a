"""`nika:image_generate` against loopback servers speaking each provider's real wire, driven
through the official `openai` SDK (openai · xai · local) and the Gemini REST wire: the request
shapes are checked, the answers (and error bodies) are the providers' documented shapes, and
the hostile answers are refused within bounds with nothing left on disk."""

from __future__ import annotations

import asyncio
import base64
import json
import zlib
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from tests.tools.builtins._image_server import (
    ImageServer,
    Scripted,
    b64,
    bomb_png,
    gemini_answer,
    gemini_error,
    gzip_bomb,
    jpeg_bytes,
    openai_error,
    openai_images,
    png_bytes,
    serving,
    signed_png,
)

from nika.check.judge import PermitJudge
from nika.media import png
from nika.tools.builtins import BuiltinExecutor, Context

KEY = "sk-test-SECRET-0123456789"
GEN = "/v1/images/generations"
EDIT = "/v1/images/edits"


async def _no_wait(_: float) -> None:
    return None


@pytest.fixture
async def srv() -> AsyncIterator[ImageServer]:
    async with serving() as server:
        yield server


@pytest.fixture
def ex(make: Callable[..., BuiltinExecutor], srv: ImageServer) -> BuiltinExecutor:
    env = {"NIKA_OPENAI_BASE_URL": f"{srv.base}/v1", "OPENAI_API_KEY": KEY,
           "NIKA_XAI_BASE_URL": f"{srv.base}/v1", "XAI_API_KEY": KEY,
           "NIKA_GEMINI_BASE_URL": f"{srv.base}/v1beta/openai", "GEMINI_API_KEY": KEY,
           "NIKA_IMAGE_LOCAL_URL": srv.base}
    return make(engine_env=env, sleep=_no_wait)


def _files(base: Path) -> list[str]:
    out = base / "out"
    return sorted(p.name for p in out.iterdir()) if out.exists() else []


def _no_secret(result: Any) -> None:
    text = result.content + json.dumps(result.structured, default=str)
    if result.error is not None:
        text += result.error.detail + json.dumps(result.error.details, default=str)
    assert KEY not in text


async def _call(ex: BuiltinExecutor, **args: Any) -> Any:
    result = await ex.call("nika:image_generate", {"prompt": "a monarch butterfly",
                                                   "output_dir": "out", **args})
    _no_secret(result)
    return result


async def test_openai_generate_speaks_the_images_wire(ex, srv, base):
    payload = png_bytes()
    srv.json(GEN, openai_images(payload, usage={
        "input_tokens": 50, "output_tokens": 4160, "total_tokens": 4210,
        "input_tokens_details": {"text_tokens": 50, "image_tokens": 0}}))
    result = await _call(ex, model="gpt-image-2", aspect_ratio="16:9", quality="ultra")
    assert result.error is None, result.error
    sent = srv.requests[0]
    assert sent.method == "POST" and sent.path == GEN
    assert sent.headers["authorization"] == f"Bearer {KEY}"
    assert sent.json() == {"model": "gpt-image-2", "prompt": "a monarch butterfly", "n": 1,
                           "size": "1536x1024", "quality": "high", "output_format": "png"}
    out = result.structured
    assert out["provider"] == "openai" and out["endpoint_host"] == f"127.0.0.1:{srv.port}"
    assert out["usage"] == {"input_tokens": 50, "output_tokens": 4160, "total_tokens": 4210,
                            "thoughts_tokens": None}
    assert out["cost_usd"] is None  # tokens priced by a table are an estimate, not spend
    assert [w.split(":")[0] for w in out["warnings"]] == ["aspect_remapped", "quality_folded"]
    image = out["images"][0]
    assert (image["width"], image["height"], image["format"]) == (8, 6, "png")
    saved = (base / image["path"]).read_bytes()
    assert png.read_texts(saved)["nika"].startswith('{"engine":"nika-py/')
    assert "b64_json" not in result.content and b64(payload)[:40] not in result.content
    debug = (await _call(ex, model="gpt-image-2", debug=True)).structured["debug"]
    assert debug["data"] == [{}] and debug["usage"]["total_tokens"] == 4210


async def test_openai_edit_sends_the_sources_and_the_mask_as_multipart(ex, srv, base):
    (base / "src.png").write_bytes(png_bytes(seed=1))
    (base / "mask.png").write_bytes(png_bytes(seed=2))
    srv.json(EDIT, openai_images(png_bytes(seed=3)))
    result = await _call(ex, provider="openai", mode="edit", image="src.png", mask="mask.png")
    assert result.error is None, result.error
    sent = srv.requests[0]
    assert sent.path == EDIT and sent.headers["content-type"].startswith("multipart/form-data")
    assert b'name="image[]"; filename="src.png"' in sent.body or \
        b'name="image"; filename="src.png"' in sent.body
    assert b'name="mask"; filename="mask.png"' in sent.body
    assert b'name="prompt"' in sent.body and png_bytes(seed=1) in sent.body


async def test_a_policy_block_is_005_and_never_retried(ex, srv, base):
    srv.json(GEN, openai_error("Your request was rejected by the safety system.",
                               "moderation_blocked"), status=400)
    result = await _call(ex, provider="openai")
    assert result.error.code == "NIKA-BUILTIN-IMAGE_GENERATE-005"
    assert not result.error.transient and len(srv.requests) == 1
    assert _files(base) == []


async def test_a_bad_key_is_003_naming_the_variable_never_the_key(ex, srv):
    srv.json(GEN, openai_error(f"Incorrect API key provided: {KEY}.", "invalid_api_key"),
             status=401)
    result = await _call(ex, provider="openai")
    assert result.error.code == "NIKA-BUILTIN-IMAGE_GENERATE-003"
    assert result.error.details["status_code"] == 401 and not result.error.transient
    assert "OPENAI_API_KEY" in result.error.detail and "••••••" in result.error.detail


async def test_429_then_success_is_retried(ex, srv):
    srv.script(GEN,
               Scripted(429, json.dumps(openai_error("Rate limit reached", "rate_limit_exceeded",
                                                     "requests")).encode(),
                        {"content-type": "application/json"}),
               Scripted(200, json.dumps(openai_images(png_bytes())).encode(),
                        {"content-type": "application/json"}))
    result = await _call(ex, provider="openai")
    assert result.error is None and len(srv.requests) == 2


async def test_a_500_every_time_is_003_transient_after_three_attempts(ex, srv):
    srv.json(GEN, {"error": {"message": "The server had an error", "type": "server_error",
                             "param": None, "code": None}}, status=500)
    result = await _call(ex, provider="openai")
    assert result.error.code == "NIKA-BUILTIN-IMAGE_GENERATE-003" and result.error.transient
    assert len(srv.requests) == 3


async def test_the_key_absent_is_002_before_any_request(make, srv, base):
    ex = make(engine_env={"NIKA_OPENAI_BASE_URL": f"{srv.base}/v1"})
    result = await _call(ex, model="gpt-image-2")
    assert result.error.code == "NIKA-BUILTIN-IMAGE_GENERATE-002"
    assert "OPENAI_API_KEY" in result.error.detail and srv.connections == 0


async def test_a_silent_server_times_out_as_003_transient(ex, srv, base):
    srv.script(GEN, Scripted(behaviour="silent"))
    result = await _call(ex, provider="openai", timeout_ms=1000)
    assert result.error.code == "NIKA-BUILTIN-IMAGE_GENERATE-003" and result.error.transient
    assert "1 s" in result.error.detail and _files(base) == []


async def test_a_cancelled_call_ends_at_once_and_leaves_nothing(ex, srv, base):
    srv.script(GEN, Scripted(behaviour="silent"))
    call = asyncio.ensure_future(_call(ex, provider="openai"))
    while not srv.requests:
        await asyncio.sleep(0.01)
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    assert _files(base) == [] and len(srv.requests) == 1


async def test_a_never_ending_body_is_cut_at_the_deadline(ex, srv, base):
    srv.script(GEN, Scripted(headers={"content-type": "application/json"}, behaviour="trickle"))
    loop = asyncio.get_running_loop()
    began = loop.time()
    result = await _call(ex, provider="openai", timeout_ms=1000)
    assert result.error.code in ("NIKA-BUILTIN-IMAGE_GENERATE-003",
                                 "NIKA-BUILTIN-IMAGE_GENERATE-007")
    assert loop.time() - began < 60 and _files(base) == []


async def test_a_2gb_announcement_is_refused_before_its_body(ex, srv, base):
    srv.script(GEN, Scripted(headers={"content-type": "application/json"}, behaviour="announce"))
    result = await _call(ex, provider="openai")
    assert result.error.code == "NIKA-BUILTIN-IMAGE_GENERATE-007"
    assert "2147483648" in result.error.detail and len(srv.requests) == 1
    assert _files(base) == []


async def test_a_gzip_bomb_is_refused_as_007_never_inflated(ex, srv, base):
    bomb = gzip_bomb(128 << 20)  # past the 96 MiB cap once inflated; ~130 KB on the wire
    srv.script(GEN, Scripted(200, bomb, {"content-type": "application/json",
                                         "content-encoding": "gzip"}))
    result = await _call(ex, provider="openai")
    assert result.error.code == "NIKA-BUILTIN-IMAGE_GENERATE-007"
    assert "`gzip`-coded" in result.error.detail
    assert srv.requests[0].headers["accept-encoding"] == "identity"
    assert _files(base) == []


@pytest.mark.parametrize(("payload", "said"), [
    (b"GIF89a\x01\x00\x01\x00" + b"\x00" * 32, "47 49 46 38"),
    (bomb_png(), "100000×100000"),
])
async def test_a_payload_judged_by_its_header_is_007_and_nothing_lands(ex, srv, base,
                                                                       payload, said):
    srv.json(GEN, openai_images(png_bytes(), payload))
    result = await _call(ex, provider="openai", n=2)
    assert result.error.code == "NIKA-BUILTIN-IMAGE_GENERATE-007"
    assert said in result.error.detail
    assert _files(base) == []  # the good first image was not written either


async def test_a_redirect_is_never_followed(ex, srv, base):
    async with serving() as elsewhere:
        elsewhere.json(GEN, openai_images(png_bytes()))
        srv.script(GEN, Scripted(302, b"", {"location": f"{elsewhere.base}{GEN}"}))
        result = await _call(ex, provider="openai")
        assert result.error.code == "NIKA-BUILTIN-IMAGE_GENERATE-003"
        assert result.error.details["status_code"] == 302
        assert elsewhere.connections == 0 and srv.connections == 1
    assert _files(base) == []


async def test_a_url_only_answer_is_004_and_the_url_never_fetched(ex, srv):
    async with serving() as cdn:
        srv.json(GEN, {"created": 1, "data": [{"url": f"{cdn.base}/img.png"}]})
        result = await _call(ex, provider="xai")
        assert result.error.code == "NIKA-BUILTIN-IMAGE_GENERATE-004"
        assert cdn.connections == 0


async def test_xai_reports_its_own_spend_and_its_format_wins(ex, srv, base):
    srv.json(GEN, openai_images(jpeg_bytes(), usage={"cost_in_usd_ticks": 700_000_000}))
    result = await _call(ex, model="grok-imagine-image", aspect_ratio="16:9", size="1024x768")
    assert result.error is None, result.error
    assert srv.requests[0].json() == {"model": "grok-imagine-image",
                                      "prompt": "a monarch butterfly", "n": 1,
                                      "response_format": "b64_json", "aspect_ratio": "16:9"}
    out = result.structured
    assert out["cost_usd"] == pytest.approx(0.07)
    image = out["images"][0]
    assert image["filename"].endswith(".jpg") and image["format"] == "jpeg"
    assert (image["width"], image["height"]) == (10, 7)
    codes = [w.split(":")[0] for w in out["warnings"]]
    assert codes == ["size_conflict", "xai_size_class", "format_mismatch"]


async def test_xai_edit_sends_json_with_data_uris(ex, srv, base):
    (base / "a.png").write_bytes(png_bytes(seed=4))
    (base / "b.png").write_bytes(png_bytes(seed=5))
    srv.json(EDIT, openai_images(png_bytes()))
    result = await _call(ex, provider="xai", mode="edit", images=["a.png", "b.png"])
    assert result.error is None, result.error
    body = srv.requests[0].json()
    assert body["response_format"] == "b64_json"
    assert [i["url"][:22] for i in body["images"]] == ["data:image/png;base64,"] * 2
    assert base64.b64decode(body["images"][1]["url"][22:]) == png_bytes(seed=5)


async def test_local_is_keyless_at_its_configured_url(ex, srv, base):
    srv.json(GEN, openai_images(png_bytes()))
    result = await _call(ex, provider="local", model="sd-1.5", size="512x384")
    assert result.error is None, result.error
    sent = srv.requests[0]
    assert sent.json()["size"] == "512x384" and sent.json()["response_format"] == "b64_json"
    assert result.structured["endpoint_host"] == f"127.0.0.1:{srv.port}"
    assert result.structured["images"][0]["filename"].startswith("image-local-sd1.5-0-")


GEMINI = "/v1beta/models/gemini-3.1-flash-image:generateContent"


async def test_gemini_generate_speaks_generate_content(ex, srv, base):
    srv.json(GEMINI, gemini_answer({"text": "Here is your butterfly."},
                                   {"inlineData": {"mimeType": "image/png",
                                                   "data": b64(png_bytes())}}))
    result = await _call(ex, model="gemini-3.1-flash-image", aspect_ratio="21:9", seed=7, n=2)
    assert result.error is None, result.error
    assert len(srv.requests) == 2  # n by sequential calls
    sent = srv.requests[0]
    assert sent.headers["x-goog-api-key"] == KEY
    assert sent.json() == {
        "contents": [{"role": "user", "parts": [{"text": "a monarch butterfly"}]}],
        "generationConfig": {"responseModalities": ["TEXT", "IMAGE"],
                             "imageConfig": {"aspectRatio": "21:9"}, "seed": 7}}
    out = result.structured
    assert out["provider_text"] == "Here is your butterfly.\nHere is your butterfly."
    assert out["usage"] == {"input_tokens": 24, "output_tokens": 2580, "total_tokens": 2604,
                            "thoughts_tokens": 80}
    assert out["count"] == 2 and out["cost_usd"] is None


async def test_gemini_retries_each_sequential_call_on_its_own(ex, srv):
    answer = json.dumps(gemini_answer({"inlineData": {"mimeType": "image/png",
                                                      "data": b64(png_bytes())}})).encode()
    busy = json.dumps(gemini_error(503, "The model is overloaded.", "UNAVAILABLE")).encode()
    json_type = {"content-type": "application/json"}
    srv.script(GEMINI, Scripted(200, answer, json_type), Scripted(503, busy, json_type),
               Scripted(200, answer, json_type))
    result = await _call(ex, provider="gemini", n=2)
    assert result.error is None and result.structured["count"] == 2
    assert len(srv.requests) == 3  # the first render is not asked for twice


async def test_gemini_declared_mime_is_checked_against_the_magic(ex, srv, base):
    srv.json(GEMINI, gemini_answer({"inlineData": {"mimeType": "image/jpeg",
                                                   "data": b64(png_bytes())}}))
    out = (await _call(ex, provider="gemini")).structured
    assert out["images"][0]["format"] == "png"
    assert out["images"][0]["warnings"] == [
        "mime_mismatch: gemini declared 'image/jpeg', the bytes are image/png"]


async def test_gemini_errors_and_safety_finishes(ex, srv):
    srv.json(GEMINI, gemini_error(400, "API key not valid. Please pass a valid API key.",
                                  "INVALID_ARGUMENT"), status=400)
    bad = await _call(ex, provider="gemini")
    assert bad.error.code == "NIKA-BUILTIN-IMAGE_GENERATE-003"
    assert "API key not valid" in bad.error.detail
    srv.json(GEMINI, gemini_answer(finish="IMAGE_SAFETY"))
    blocked = await _call(ex, provider="gemini")
    assert blocked.error.code == "NIKA-BUILTIN-IMAGE_GENERATE-005"
    assert blocked.error.details["finish_reason"] == "IMAGE_SAFETY"


async def test_gemini_refuses_a_mask_before_any_request(ex, srv, base):
    (base / "s.png").write_bytes(png_bytes())
    result = await _call(ex, provider="gemini", mode="edit", image="s.png", mask="s.png")
    assert result.error.code == "NIKA-BUILTIN-IMAGE_GENERATE-001" and srv.connections == 0


async def test_provider_text_is_clamped(ex, srv):
    srv.json(GEMINI, gemini_answer({"text": "A" * 50_000},
                                   {"inlineData": {"mimeType": "image/png",
                                                   "data": b64(png_bytes())}}))
    result = await _call(ex, provider="gemini", debug=True)
    out = result.structured
    assert len(out["provider_text"]) == 2000
    assert any(w.startswith("provider_text_clamped:") for w in out["warnings"])
    assert len(json.dumps(out["debug"])) < 10_000


async def test_signed_credentials_are_preserved_byte_for_byte(ex, srv, base):
    signed = signed_png()
    srv.json(GEN, openai_images(signed))
    result = await _call(ex, provider="openai")
    image = result.structured["images"][0]
    assert (base / image["path"]).read_bytes() == signed  # no tEXt inserted into signed bytes
    assert image["content_credentials"] == "c2pa"
    assert result.structured["content_credentials"] == "c2pa"
    manifest = json.loads((base / result.structured["manifest_path"]).read_text())
    assert manifest["content_credentials"] == "c2pa"


@pytest.mark.parametrize("model", ["../../../evil", "gemini?key=x", "a/b", "-x", "m" * 129])
async def test_a_gemini_model_that_is_no_id_is_001_before_any_request(ex, srv, base, model):
    result = await _call(ex, provider="gemini", model=model)
    assert result.error.code == "NIKA-BUILTIN-IMAGE_GENERATE-001"
    assert repr(model) in result.error.detail and result.error.details["arg"] == "model"
    assert srv.requests == [] and _files(base) == []


async def test_a_gemini_model_may_carry_its_models_prefix(ex, srv):
    srv.json(GEMINI, gemini_answer({"inlineData": {"mimeType": "image/png",
                                                   "data": b64(png_bytes())}}))
    result = await _call(ex, provider="gemini", model="models/gemini-3.1-flash-image")
    assert result.error is None, result.error
    assert [seen.path for seen in srv.requests] == [GEMINI]


async def test_userinfo_in_the_local_url_never_reaches_an_output_manifest_or_error(make, srv,
                                                                                    base):
    ex = make(engine_env={"NIKA_IMAGE_LOCAL_URL": f"http://u:secretpw@127.0.0.1:{srv.port}"},
              sleep=_no_wait)
    srv.json(GEN, openai_images(png_bytes()))
    done = await _call(ex, provider="local", model="sd-1.5")
    assert done.error is None, done.error
    assert done.structured["endpoint_host"] == f"127.0.0.1:{srv.port}"
    manifest = (base / done.structured["manifest_path"]).read_text()
    srv.json(GEN, openai_error("server exploded", None, "server_error"), status=500)
    failed = await _call(ex, provider="local", model="sd-1.5")
    assert failed.error.code == "NIKA-BUILTIN-IMAGE_GENERATE-003"
    said = [done.content, json.dumps(done.structured), manifest, failed.error.detail,
            json.dumps(failed.error.details, default=str)]
    assert f"127.0.0.1:{srv.port}" in manifest
    assert not [text for text in said if "secretpw" in text]


@pytest.mark.parametrize("answer", [
    {"promptFeedback": "x"},
    {"candidates": "x"},
    {"candidates": ["x"]},
    {"candidates": [{"finishReason": ["SAFETY"]}]},
    {"candidates": [{"content": "x"}]},
    {"candidates": [{"content": {"parts": "x"}}]},
    {"candidates": [{"content": {"parts": ["x"]}}]},
    gemini_answer({"inlineData": {"mimeType": "image/png", "data": b64(png_bytes())}})
    | {"usageMetadata": [1]},
])
async def test_a_malformed_gemini_answer_is_004_never_an_engine_fault(ex, srv, base, answer):
    srv.json(GEMINI, answer)
    result = await _call(ex, provider="gemini")
    assert result.error.code == "NIKA-BUILTIN-IMAGE_GENERATE-004", result.error
    assert "gemini answer" in result.error.detail and _files(base) == []


async def test_a_png_whose_ihdr_is_not_13_bytes_is_007_and_nothing_lands(ex, srv, base):
    good = png_bytes()
    body = good[16:29] + b"\x00"  # IHDR's 13 bytes and one more
    odd = (png.SIGNATURE + len(body).to_bytes(4, "big") + b"IHDR" + body
           + zlib.crc32(b"IHDR" + body).to_bytes(4, "big") + good[33:])
    srv.json(GEN, openai_images(good, odd))
    result = await _call(ex, provider="openai", n=2)
    assert result.error.code == "NIKA-BUILTIN-IMAGE_GENERATE-007"
    assert "image 1" in result.error.detail and "declares 14 bytes" in result.error.detail
    assert _files(base) == []  # the good first image was not written either


async def test_a_manifest_the_permits_refuse_is_refused_before_the_render_is_paid(srv, base):
    judge = PermitJudge.from_permits({"fs": {"write": ["out/*.png"]}})
    ex = BuiltinExecutor(Context(base_dir=base, judge=judge, task="t1", sleep=_no_wait,
                                 engine_env={"OPENAI_API_KEY": KEY,
                                             "NIKA_OPENAI_BASE_URL": f"{srv.base}/v1"}))
    srv.json(GEN, openai_images(png_bytes()))
    refused = await _call(ex, provider="openai")
    assert refused.error.code == "NIKA-SEC-004"
    assert ".manifest.json" in refused.error.detail
    assert srv.requests == [] and _files(base) == []
    unmanifested = await _call(ex, provider="openai", manifest=False)
    assert unmanifested.error is None and len(srv.requests) == 1
