"""The checks that IR text cannot reach: a #dnn.layout built without its parser (which
normalizes the tag), element types looked up from Python (the dialect's operand
constraints stop them in text first), and which layouts place a shape's bytes alike."""

import pytest
from xdsl.dialects.builtin import Float64Type, StringAttr
from xdsl.utils.exceptions import VerifyException

from dnnc.core.kinds import DataType
from dnnc.core.layouts import parse_layout
from dnnc.dialects.dnn import LayoutAttr
from dnnc.dialects.types import data_type_of, element_type_of


def test_layout_attr_letter_form_must_be_spelled_by_name() -> None:
    with pytest.raises(VerifyException, match="'aBcd16b' must be spelled 'nChw16c'"):
        LayoutAttr.new([StringAttr("aBcd16b")])


def test_layout_attr_unknown_tag_gives_the_layout_error() -> None:
    with pytest.raises(VerifyException, match=r"#dnn.layout: 'nChw17q' is not a layout"):
        LayoutAttr.new([StringAttr("nChw17q")])


def test_layout_attr_from_letter_form_is_normalized() -> None:
    assert LayoutAttr("aBcd16b") == LayoutAttr("nChw16c")


def test_data_type_of_unsupported_element_type_names_the_valid_ones() -> None:
    with pytest.raises(VerifyException, match=r"element type f64 is not supported \(valid: f32,"):
        data_type_of(Float64Type())


@pytest.mark.parametrize("data_type", list(DataType))
def test_element_type_round_trips(data_type: DataType) -> None:
    assert data_type_of(element_type_of(data_type)) is data_type


@pytest.mark.parametrize(
    ("first", "second", "shape", "same"),
    [
        ("nhwc", "nchw", (1, 16, 1, 1), True),  # only unit dims move
        ("nhwc", "nchw", (2, 16, 1, 1), True),
        ("nhwc", "nchw", (1, 16, 2, 1), False),  # h and c change places
        ("nchw", "nChw16c", (1, 16, 1, 1), False),  # blocked: padded and regrouped
        ("nChw16c", "nChw16c", (1, 16, 3, 3), True),
    ],
)
def test_layouts_place_bytes_alike_when_only_unit_dims_move(
    first: str, second: str, shape: tuple[int, ...], same: bool
) -> None:
    assert parse_layout(first).same_bytes(parse_layout(second), shape) is same
    assert parse_layout(second).same_bytes(parse_layout(first), shape) is same
