"""Our own zlib stream writer (RFC 1950/1951): the bytes never depend on the linked zlib.

zlib's compressed output differs between its versions and between zlib and zlib-ng builds, so
a renderer promising the same bytes on every machine cannot let it compress. This writer is a
pure function of its input: the data goes in blocks of at most 65,535 bytes, each written as a
fixed-Huffman block (RFC 1951 §3.2.6) or, when that would be larger, a stored block.

Matching (fixed, documented, part of the bytes): back-references at two distances only, the
previous row (`row`, when it is at most 32,768) and the previous pixel (`pixel`). A maximal
run of bytes equal to the byte `row` back, at least 3 long, becomes row matches; in what is
left, a run equal to the byte `pixel` back becomes pixel matches; every other byte is a
literal. A run is cut into `ceil(n / 258)` near-equal matches (each 3..=258 bytes), and runs
never cross a block. This finds flat areas, repeated pixels and repeated rows — what
pixelated, dithered and posterized renders are made of — with numpy, no per-byte Python loop.
The Adler-32 checksum is `zlib.adler32`, a fixed function (not a compressor).
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from functools import cache
from typing import Final

import numpy as np
import numpy.typing as npt

BLOCK: Final = 65_535
"""Input bytes per block (a stored block's most)."""
WINDOW: Final = 32_768
_U8 = npt.NDArray[np.uint8]
_I64 = npt.NDArray[np.int64]


def _reversed(code: int, bits: int) -> int:
    """A Huffman code as it is written LSB-first (deflate packs Huffman codes MSB-first)."""
    out = 0
    for _ in range(bits):
        out = (out << 1) | (code & 1)
        code >>= 1
    return out


@cache
def _tables() -> tuple[_I64, _I64, _I64, _I64, _I64, _I64]:
    """Per literal/length symbol 0..=287 its reversed fixed code and bit count; per match
    length 3..=258 its symbol, extra-bit value and extra-bit count."""
    codes = np.zeros(288, np.int64)
    nbits = np.zeros(288, np.int64)
    for sym in range(288):
        if sym < 144:
            code, bits = 0x30 + sym, 8
        elif sym < 256:
            code, bits = 0x190 + sym - 144, 9
        elif sym < 280:
            code, bits = sym - 256, 7
        else:
            code, bits = 0xC0 + sym - 280, 8
        codes[sym], nbits[sym] = _reversed(code, bits), bits
    symbol = np.zeros(259, np.int64)
    extra = np.zeros(259, np.int64)
    extra_bits = np.zeros(259, np.int64)
    for length in range(3, 259):
        sym, base, bits = _length_symbol(length)
        symbol[length], extra[length], extra_bits[length] = sym, length - base, bits
    return codes, nbits, symbol, extra, extra_bits, _distance_table()


def _length_symbol(length: int) -> tuple[int, int, int]:
    """(symbol, base length, extra bits) of a match length (RFC 1951 §3.2.5)."""
    if length == 258:
        return 285, 258, 0
    base = 3
    for sym in range(257, 285):
        bits = 0 if sym < 265 else (sym - 261) // 4
        if length < base + (1 << bits):
            return sym, base, bits
        base += 1 << bits
    raise AssertionError(length)  # pragma: no cover — 3..=257 all fall in a bucket


def _distance_table() -> _I64:
    """Rows: (symbol, base, extra bits) for the 30 distance codes."""
    rows = []
    base = 1
    for sym in range(30):
        bits = max(0, sym // 2 - 1)
        rows.append((sym, base, bits))
        base += 1 << bits
    return np.array(rows, np.int64)


def _distance_code(distance: int) -> tuple[int, int, int, int]:
    """(reversed 5-bit code, 5, extra value, extra bits) of one distance."""
    table = _tables()[5]
    row = int(np.searchsorted(table[:, 1], distance, side="right")) - 1
    sym, base, bits = (int(v) for v in table[row])
    return _reversed(sym, 5), 5, distance - base, bits


def _runs(mask: npt.NDArray[np.bool_]) -> tuple[_I64, _I64]:
    """Start and end (exclusive) of each run of True at least 3 long."""
    edges = np.diff(np.concatenate(([0], mask.view(np.int8), [0])))
    starts = np.flatnonzero(edges == 1)
    ends = np.flatnonzero(edges == -1)
    keep = ends - starts >= 3
    return starts[keep].astype(np.int64), ends[keep].astype(np.int64)


def _pieces(starts: _I64, ends: _I64) -> tuple[_I64, _I64]:
    """Each run cut into ceil(n/258) near-equal matches: their starts and lengths."""
    n = ends - starts
    count = (n + 257) // 258
    q, r = n // count, n % count
    idx = np.repeat(np.arange(len(n)), count)
    k = np.arange(int(count.sum())) - np.repeat(np.cumsum(count) - count, count)
    start = starts[idx] + k * q[idx] + np.minimum(k, r[idx])
    return start, q[idx] + (k < r[idx])


class _Bits:
    """An LSB-first bit writer over whole numpy field arrays."""

    def __init__(self) -> None:
        self.out = bytearray()
        self._pending = np.zeros(0, np.uint8)

    def fields(self, values: _I64, nbits: _I64) -> None:
        keep = nbits > 0
        values, nbits = values[keep], nbits[keep]
        total = int(nbits.sum())
        offsets = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(nbits) - nbits, nbits)
        bits = ((np.repeat(values, nbits) >> offsets) & 1).astype(np.uint8)
        bits = np.concatenate((self._pending, bits))
        whole = len(bits) // 8 * 8
        self.out += np.packbits(bits[:whole], bitorder="little").tobytes()
        self._pending = bits[whole:]

    def align(self) -> None:
        if len(self._pending):
            pad = np.zeros(8 - len(self._pending), np.uint8)
            whole = np.concatenate((self._pending, pad))
            self.out += np.packbits(whole, bitorder="little").tobytes()
            self._pending = np.zeros(0, np.uint8)


def _fixed_block(data: _U8, lo: int, hi: int, distances: tuple[int, ...], final: bool
                 ) -> tuple[_I64, _I64]:
    """The header, tokens and end code of one fixed-Huffman block for data[lo:hi]."""
    codes, nbits, symbol, extra, extra_bits, _ = _tables()
    covered = np.zeros(hi - lo, np.bool_)
    starts: list[_I64] = []
    fields: list[tuple[_I64, ...]] = []
    for d in distances:
        if d > lo + (hi - lo) - 1:
            continue
        first = max(lo, d)
        eq = np.zeros(hi - lo, np.bool_)
        eq[first - lo:] = data[first:hi] == data[first - d:hi - d]
        eq &= ~covered
        run_s, run_e = _runs(eq)
        if not len(run_s):
            continue
        at, length = _pieces(run_s, run_e)
        marks = np.zeros(hi - lo + 1, np.int64)
        np.add.at(marks, run_s, 1)
        np.add.at(marks, run_e, -1)
        covered |= np.cumsum(marks[:-1]) > 0
        dcode, dbits, dextra, dxbits = _distance_code(d)
        sym = symbol[length]
        one = np.ones_like(length)
        starts.append(at)
        fields.append((codes[sym], nbits[sym], extra[length], extra_bits[length],
                       one * dcode, one * dbits, one * dextra, one * dxbits))
    lit_at = np.flatnonzero(~covered).astype(np.int64)
    lit = data[lo:hi][lit_at].astype(np.int64)
    zero = np.zeros_like(lit_at)
    starts.append(lit_at)
    fields.append((codes[lit], nbits[lit], zero, zero, zero, zero, zero, zero))
    order = np.argsort(np.concatenate(starts), kind="stable")
    cols = [np.concatenate([f[i] for f in fields])[order] for i in range(8)]
    values = np.stack(cols[0::2], axis=1).reshape(-1)
    widths = np.stack(cols[1::2], axis=1).reshape(-1)
    head = np.array([1 if final else 0, 1, 0], np.int64)  # BFINAL, BTYPE=01 (LSB first)
    end = np.array([codes[256]], np.int64), np.array([nbits[256]], np.int64)
    return (np.concatenate((head, values, end[0])),
            np.concatenate((np.ones(3, np.int64), widths, end[1])))


def zlib_stream(raw: bytes, *, pixel: int, row: int,
                checkpoint: Callable[[], None] = lambda: None) -> bytes:
    """`raw` as a zlib stream (see the module doc); `pixel` and `row` are the match distances
    (bytes per pixel, bytes per filtered row). `checkpoint` is called between blocks."""
    data = np.frombuffer(raw, np.uint8)
    distances = tuple(d for d in (row, pixel) if 0 < d <= WINDOW)
    bits = _Bits()
    bits.out += b"\x78\x01"  # CM 8, 32K window; FLEVEL 0; FCHECK makes it a multiple of 31
    n = len(data)
    lo = 0
    while True:
        hi = min(n, lo + BLOCK)
        final = hi == n
        values, widths = _fixed_block(data, lo, hi, distances, final)
        if int(widths.sum()) <= 3 + 8 * (hi - lo) + 32 + 7:
            bits.fields(values, widths)
        else:  # a stored block is smaller: header, pad to a byte, LEN, NLEN, the bytes
            bits.fields(np.array([1 if final else 0, 0, 0], np.int64), np.ones(3, np.int64))
            bits.align()
            size = hi - lo
            bits.out += size.to_bytes(2, "little") + (size ^ 0xFFFF).to_bytes(2, "little")
            bits.out += raw[lo:hi]
        checkpoint()
        if final:
            break
        lo = hi
    bits.align()
    bits.out += zlib.adler32(raw).to_bytes(4, "big")
    return bytes(bits.out)
