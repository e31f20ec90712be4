"""Memory layouts: oneDNN format tags as data, shared by the dialect, the runtime and the oracle.

A layout says how the logical dimensions of a tensor map to memory. It follows oneDNN's
format-tag grammar (``dnnl_types.h``): one letter per logical dimension, ``a`` = dimension 0;
the letters in outer (slowest to fastest) order, upper case when the dimension is also
blocked; then the inner blocks, outermost first, as ``<size><letter>``:

    nchw    = abcd          plain
    nhwc    = acdb          channels last
    nChw16c = aBcd16b       C split into C/16 outer blocks and an inner block of 16
    OIhw16i16o = ABcd16b16a weights: inner blocks of 16 input then 16 output channels

A blocked dimension is padded with zeros up to a multiple of its block product. The
physical array of a layout is the padded tensor viewed with shape
``[ceil(dim / block) for outer dims in order] + [block sizes]`` in row-major order.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, cached_property

import numpy as np

from dnnc.core.shapes import inverse_permutation
from dnnc.core.symbols import SymbolicInt

# Names people write, as oneDNN spells them, and the tag each stands for.
ALIASES: dict[str, str] = {
    "x": "a",
    "nc": "ab",
    "cn": "ba",
    "tnc": "abc",
    "ntc": "bac",
    "ncw": "abc",
    "nwc": "acb",
    "nchw": "abcd",
    "nhwc": "acdb",
    "chwn": "bcda",
    "ncdhw": "abcde",
    "ndhwc": "acdeb",
    "oi": "ab",
    "io": "ba",
    "oiw": "abc",
    "wio": "cba",
    "oihw": "abcd",
    "hwio": "cdba",
    "ohwi": "acdb",
    "ihwo": "bcda",
    "iohw": "bacd",
    "goihw": "abcde",
    "hwigo": "decab",
    "nCw8c": "aBc8b",
    "nCw16c": "aBc16b",
    "nChw8c": "aBcd8b",
    "nChw16c": "aBcd16b",
    "nCdhw8c": "aBcde8b",
    "nCdhw16c": "aBcde16b",
    "OIhw8i8o": "ABcd8b8a",
    "OIhw16i16o": "ABcd16b16a",
    "OIhw16o16i": "ABcd16a16b",
    "Ohwi8o": "Acdb8a",
    "Ohwi16o": "Acdb16a",
    "OIhw4i16o4i": "ABcd4b16a4b",
    "gOIhw16i16o": "aBCde16c16b",
    "Goihw8g": "Abcde8a",
    "Goihw16g": "Abcde16a",
}

# The name a layout prints as: the first alias for a tag, except that a rank's plain
# layout prints as nothing at all (it is implied when a tensor type has no encoding).
_PREFERRED: dict[str, str] = {}
for _name, _tag in ALIASES.items():
    _PREFERRED.setdefault(_tag, _name)

_TAG = re.compile(r"^([a-lA-L]*)((?:\d+[a-l])*)$")  # rank 0: the empty tag
_BLOCK = re.compile(r"(\d+)([a-l])")


class LayoutError(ValueError):
    """A layout name that is not a valid format tag, or one that does not fit a tensor."""


@dataclass(frozen=True)
class Layout:
    """A parsed format tag: the order of the outer dimensions and the inner blocks."""

    order: tuple[int, ...]
    """Logical dimensions from outermost to innermost (a permutation of range(rank))."""
    blocks: tuple[tuple[int, int], ...] = ()
    """Inner blocks (dimension, size) from outermost to innermost."""

    @property
    def rank(self) -> int:
        return len(self.order)

    @cached_property
    def tag(self) -> str:
        """The canonical oneDNN spelling (``aBcd16b``; computed once: a layout is immutable)."""
        blocked = {d for d, _ in self.blocks}
        letters = "".join(chr(ord("A" if d in blocked else "a") + d) for d in self.order)
        return letters + "".join(f"{size}{chr(ord('a') + d)}" for d, size in self.blocks)

    @cached_property
    def name(self) -> str:
        """The conventional spelling (``nChw16c``) when oneDNN has one, else the tag."""
        return _PREFERRED.get(self.tag, self.tag)

    @property
    def is_plain(self) -> bool:
        """Row-major over the logical dimensions: the layout implied by no encoding."""
        return not self.blocks and self.order == tuple(range(self.rank))

    @property
    def is_blocked(self) -> bool:
        return bool(self.blocks)

    def block_product(self, dim: int) -> int:
        product = 1
        for d, size in self.blocks:
            if d == dim:
                product *= size
        return product

    def padded_shape(self, shape: tuple[int, ...]) -> tuple[int, ...]:
        """Logical shape with every blocked dimension rounded up to its block product."""
        self._check_rank(shape)
        return tuple(
            -(-n // self.block_product(d)) * self.block_product(d) for d, n in enumerate(shape)
        )

    def physical_shape(self, shape: tuple[int, ...]) -> tuple[int, ...]:
        """Shape of the row-major array that holds the tensor in this layout."""
        padded = self.padded_shape(shape)
        outer = tuple(padded[d] // self.block_product(d) for d in self.order)
        return outer + tuple(size for _, size in self.blocks)

    def strides(self, shape: tuple[int, ...]) -> tuple[int, ...]:
        """Element strides of the outer dimensions, indexed by logical dimension."""
        physical = self.physical_shape(shape)
        row_major = [1] * len(physical)
        for i in range(len(physical) - 2, -1, -1):
            row_major[i] = row_major[i + 1] * physical[i + 1]
        strides = [0] * self.rank
        for position, d in enumerate(self.order):
            strides[d] = row_major[position]
        return tuple(strides)

    def num_elements(self, shape: tuple[int, ...]) -> int:
        """Elements the physical array holds, padding included."""
        if not self.blocks:  # no padding: the logical size (a new input shape asks per memory)
            self._check_rank(shape)
            return math.prod(map(int, shape))
        return math.prod(map(int, self.physical_shape(shape)))  # plain: a size, not a symbol

    def to_physical(self, array: np.ndarray) -> np.ndarray:
        """Rearrange a logical (plain) array into this layout's physical array."""
        self._check_rank(array.shape)
        padded = np.zeros(self.padded_shape(array.shape), dtype=array.dtype)
        padded[tuple(slice(0, n) for n in array.shape)] = array
        split_shape, split_axes = self._split(padded.shape)
        return np.ascontiguousarray(padded.reshape(split_shape).transpose(split_axes))

    def from_physical(self, physical: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
        """Inverse of to_physical: the logical array of the given shape."""
        padded_shape = self.padded_shape(shape)
        split_shape, split_axes = self._split(padded_shape)
        expected = tuple(split_shape[a] for a in split_axes)
        if physical.shape != expected:
            physical = physical.reshape(expected)
        inverse = np.argsort(split_axes)
        padded = physical.transpose(inverse).reshape(padded_shape)
        return np.ascontiguousarray(padded[tuple(slice(0, n) for n in shape)])

    def _split(self, padded: tuple[int, ...]) -> tuple[list[int], list[int]]:
        """Each dimension split into (outer, block1, block2, ...) and the axis order
        that brings the split array into physical order."""
        split_shape: list[int] = []
        first_axis: list[int] = []
        block_axes: dict[tuple[int, int], int] = {}
        for d, n in enumerate(padded):
            first_axis.append(len(split_shape))
            split_shape.append(n // self.block_product(d))
            for i, (bd, size) in enumerate(self.blocks):
                if bd == d:
                    block_axes[(d, i)] = len(split_shape)
                    split_shape.append(size)
        axes = [first_axis[d] for d in self.order]
        axes += [block_axes[(d, i)] for i, (d, _) in enumerate(self.blocks)]
        return split_shape, axes

    def transposed(self, permutation: Sequence[int]) -> Layout:
        """The layout in which ``transpose(x, permutation)`` (dst dim i = src dim
        permutation[i]) holds the very bytes of x in this layout: a view, no data moves.
        Blocks follow their dimension."""
        inverse = inverse_permutation(permutation)
        return Layout(
            tuple(inverse[d] for d in self.order),
            tuple((inverse[d], size) for d, size in self.blocks),
        )

    def units_outermost(self, shape: tuple[int, ...]) -> Layout:
        """This layout with the unblocked dims of size 1 moved outermost: every other dim
        keeps its stride, so a tensor of `shape` has the same bytes in both (layouts that
        differ only in where their unit dims are become equal)."""
        self._check_rank(shape)
        return self._outermost({d for d in self.order if shape[d] == 1})

    def _outermost(self, units: set[int]) -> Layout:
        """This layout with the unblocked dims of `units` moved outermost, in their order."""
        blocked = {d for d, _ in self.blocks}
        first = [d for d in self.order if d in units and d not in blocked]
        return Layout(tuple(first + [d for d in self.order if d not in first]), self.blocks)

    def same_bytes(self, other: Layout, shape: tuple[int, ...]) -> bool:
        """Whether a tensor of `shape` has the same bytes in this layout and `other`: equal
        layouts, or unblocked ones that differ only in where the dims of size 1 go (``nhwc``
        and ``nchw`` of a 1xCx1x1 tensor).

        A size that follows the input sizes (a SymbolicInt: dnnc.core.symbols) is compared
        with 1 only if the answer depends on it: when it is the same whether each such size
        is 1 or not (the batch of ``nhwc`` and ``nchw``: outermost in both), the answer holds
        for every signature and no guard splits batch 1 from the others."""
        if self == other:
            return True
        if self.is_blocked or other.is_blocked:
            return False
        self._check_rank(shape)
        units = {
            d for d, size in enumerate(shape) if not isinstance(size, SymbolicInt) and size == 1
        }
        free = [d for d, size in enumerate(shape) if isinstance(size, SymbolicInt)]
        answers = {
            self._outermost(units | set(some)) == other._outermost(units | set(some))
            for count in range(len(free) + 1)
            for some in itertools.combinations(free, count)
        }
        if len(answers) == 1:
            return answers.pop()  # whichever of them are 1
        return self.units_outermost(shape) == other.units_outermost(shape)

    def with_leading_dims(self, count: int) -> Layout:
        """The layout of the tensor seen with `count` more dims (of size 1) in front,
        outermost: what a format tag of the higher rank gives (``BA16a64b`` -> ``aCB16b64c``)."""
        return Layout(
            tuple(range(count)) + tuple(d + count for d in self.order),
            tuple((d + count, size) for d, size in self.blocks),
        )

    def split_leading(self, shape: tuple[int, ...], count: int) -> Layout | None:
        """The layout of the tensor seen with dim 0 split into (count, shape[0] / count),
        as grouped weights [O, ...] are [g, O/g, ...] (``OIhw8i8o`` -> ``gOIhw8i8o``); None
        when that is no layout: the blocks of dim 0 do not divide shape[0] / count."""
        self._check_rank(shape)
        if shape[0] % count or (shape[0] // count) % self.block_product(0):
            return None
        order: list[int] = []
        for d in self.order:
            order.extend((0, 1) if d == 0 else (d + 1,))
        return Layout(tuple(order), tuple((d + 1, size) for d, size in self.blocks))

    def merge_leading(self, shape: tuple[int, ...]) -> Layout | None:
        """The layout of the tensor seen with dims 0 and 1 as one (the inverse of
        split_leading); None when that is no layout: dim 0 blocked, dim 1 padded, or dim 1
        (of more than one outer block) not right inside dim 0 in the outer order."""
        self._check_rank(shape)
        outer = shape[1] // self.block_product(1)
        if self.block_product(0) > 1 or shape[1] % self.block_product(1):
            return None
        rest = [d for d in self.order if d != 1]
        if outer > 1 and self.order.index(1) != self.order.index(0) + 1:
            return None
        return Layout(  # dim 1 (the only blocked one of the two) is now dim 0
            tuple(0 if d == 0 else d - 1 for d in rest),
            tuple((d - 1, size) for d, size in self.blocks),
        )

    def _check_rank(self, shape: tuple[int, ...]) -> None:
        if len(shape) != self.rank:
            raise LayoutError(
                f"layout '{self.name}' is for rank {self.rank}, the tensor has rank {len(shape)}"
            )


@cache
def parse_layout(text: str) -> Layout:
    """Parse an alias (``nChw16c``) or a oneDNN tag (``aBcd16b``); raise LayoutError."""
    tag = ALIASES.get(text, text)
    match = _TAG.match(tag)
    if match is None:
        raise LayoutError(f"'{text}' is not a layout: expected {valid_layouts_hint()}")
    letters, block_text = match.groups()
    order = tuple(ord(c.lower()) - ord("a") for c in letters)
    if sorted(order) != list(range(len(order))):
        raise LayoutError(
            f"'{text}' is not a layout: its dimension letters must be a permutation of "
            f"'{''.join(chr(ord('a') + i) for i in range(len(order)))}'"
        )
    blocks = tuple((ord(d) - ord("a"), int(n)) for n, d in _BLOCK.findall(block_text))
    upper = {ord(c.lower()) - ord("a") for c in letters if c.isupper()}
    if upper != {d for d, _ in blocks} or any(d >= len(order) or n < 2 for d, n in blocks):
        raise LayoutError(
            f"'{text}' is not a layout: upper-case letters must be exactly the blocked "
            "dimensions, each block size at least 2"
        )
    return Layout(order, blocks)


@cache
def plain_layout(rank: int) -> Layout:
    """The row-major layout of a rank (``abcd`` for 4); one object per rank, whose tag and
    name are then computed once."""
    return Layout(tuple(range(rank)))


def valid_layouts_hint() -> str:
    return (
        "a oneDNN format tag such as nchw, nhwc, nChw8c, nChw16c, OIhw16i16o, "
        "or its letter form (abcd, acdb, aBcd16b)"
    )
