"""The raw bindings (dnnc/dnnl/capi.py) against the real oneDNN headers.

The headers come with onednn-devel-cpu-gomp (a test dependency) under
``<sys.prefix>/include/oneapi/dnnl``. They are parsed here independently of capi.py: a
small preprocessor (comments, ``#ifdef`` on the macros dnnl_config.h defines), a C enum
evaluator and a prototype reader. Every enum capi.py declares must have exactly the
header's members and values; every ``DNNL_ARG_*`` macro must be there with its value;
every function of capi.SIGNATURES must have the header's return type and the header's
number and kinds of parameters, both as spelled in the table and as set on the ctypes
prototype.
"""

from __future__ import annotations

import ctypes
import re
import sys
from functools import cache
from pathlib import Path

import pytest

from dnnc.dnnl import capi

HEADERS = Path(sys.prefix) / "include" / "oneapi" / "dnnl"
if not (HEADERS / "dnnl.h").is_file():
    pytest.skip(
        f"onednn-devel-cpu-gomp is not installed: no dnnl.h under {HEADERS}",
        allow_module_level=True,
    )

TYPE_HEADERS = ("dnnl_common_types.h", "dnnl_types.h")
FUNCTION_HEADERS = ("dnnl_common.h", "dnnl.h")


def _config_macros() -> set[str]:
    """Macros dnnl_config.h defines (feature switches such as DNNL_EXPERIMENTAL_SPARSE)."""
    text = (HEADERS / "dnnl_config.h").read_text()
    return set(re.findall(r"^\s*#\s*define\s+(\w+)", text, flags=re.M))


@cache
def preprocessed(name: str) -> str:
    """A header without comments and without the lines its conditionals exclude."""
    text = (HEADERS / name).read_text()
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r"\\\n", " ", text)
    defined = _config_macros()
    kept: list[str] = []
    active: list[bool] = []
    for line in text.splitlines():
        directive = re.match(r"\s*#\s*(\w+)\s*(.*)", line)
        if directive is None:
            if all(active):
                kept.append(line)
            continue
        word, rest = directive.groups()
        if word == "ifdef":
            active.append(rest.strip() in defined)
        elif word == "ifndef":
            active.append(rest.strip() not in defined)
        elif word == "if":
            if rest.strip() != "0":
                raise AssertionError(f"{name}: unexpected '#if {rest}', extend the parser")
            active.append(False)
        elif word == "else":
            active[-1] = not active[-1]
        elif word == "endif":
            active.pop()
        elif all(active):
            kept.append(line)
    return "\n".join(kept)


def _c_int(text: str) -> int:
    return int(text.rstrip("uUlL"), 0)


@cache
def header_enums() -> dict[str, dict[str, int]]:
    """Every ``typedef enum {...} name;`` of the type headers: member -> value."""
    enums: dict[str, dict[str, int]] = {}
    known: dict[str, int] = {}
    for header in TYPE_HEADERS:
        body_pattern = r"typedef\s+enum\s*\{(.*?)\}\s*(\w+)\s*;"
        for body, type_name in re.findall(body_pattern, preprocessed(header), flags=re.S):
            members: dict[str, int] = {}
            value = -1
            for item in filter(None, (i.strip() for i in body.split(","))):
                name, _, expression = (part.strip() for part in item.partition("="))
                if not expression:
                    value += 1
                elif expression in known:
                    value = known[expression]
                else:
                    value = _c_int(expression)
                members[name] = known[name] = value
            enums[type_name] = members
    return enums


@cache
def header_macros() -> dict[str, str]:
    """Object-like ``#define NAME value`` of the type headers, unevaluated."""
    macros: dict[str, str] = {}
    for header in TYPE_HEADERS:
        for line in preprocessed(header).splitlines():
            match = re.match(r"\s*#\s*define\s+(\w+)(\(\w+\))?\s+(.+)", line)
            if match is not None and match.group(2) is None:
                macros[match.group(1)] = match.group(3).strip()
    return macros


def macro_value(name: str) -> int:
    expression = header_macros()[name]
    return macro_value(expression) if expression in header_macros() else _c_int(expression)


@cache
def header_typedefs() -> tuple[set[str], set[str]]:
    """(handle typedefs: pointers to opaque structs, array typedefs such as dnnl_dims_t)."""
    text = "\n".join(preprocessed(h) for h in TYPE_HEADERS)
    handles = set(re.findall(r"typedef\s+(?:const\s+)?struct\s+\w+\s*\*\s*(\w+)\s*;", text))
    arrays = set(re.findall(r"typedef\s+\w+\s+(\w+)\s*\[[^\]]*\]\s*;", text))
    return handles, arrays


@cache
def header_functions() -> dict[str, tuple[str, tuple[str, ...]]]:
    """Every ``DNNL_API`` function: name -> (return type, parameter declarations)."""
    functions: dict[str, tuple[str, tuple[str, ...]]] = {}
    pattern = r"([\w\s]+?)\s*DNNL_API\s*(\**)\s*(\w+)\s*\(([^;]*?)\)\s*;"
    for header in FUNCTION_HEADERS:
        for result, stars, name, params in re.findall(pattern, preprocessed(header)):
            declarations = tuple(" ".join(p.split()) for p in params.split(","))
            if declarations == ("void",):
                declarations = ()
            functions[name] = (" ".join(result.split()) + stars, declarations)
    return functions


def kind(declaration: str) -> str:
    """What a C parameter or return type is at the ABI: pointer, enum, int, unsigned,
    float, size_t, int64 or void. A trailing parameter name is ignored."""
    if "*" in declaration:
        return "pointer"
    words = [w for w in declaration.split() if w != "const"]
    handles, arrays = header_typedefs()
    base = words[0]
    if base in handles or base in arrays or base.startswith("const_dnnl_"):
        return "pointer"
    if base in header_enums():
        return "enum"
    simple = {
        "int": "int",
        "int32_t": "int",
        "unsigned": "unsigned",
        "float": "float",
        "size_t": "size_t",
        "int64_t": "int64",
        "dnnl_dim_t": "int64",
        "void": "void",
    }
    if base not in simple:
        raise AssertionError(f"unknown C type in '{declaration}': extend kind()")
    return simple[base]


def ctypes_kind(ctype: type | None) -> str:
    """The ABI kind of a ctypes type, in kind()'s words (an enum is an int in the ABI)."""
    if ctype is None:
        return "void"
    if ctype in (ctypes.c_void_p, ctypes.c_char_p) or issubclass(ctype, ctypes._Pointer):
        return "pointer"
    simple = {
        ctypes.c_int: "int",
        ctypes.c_uint: "unsigned",
        ctypes.c_float: "float",
        ctypes.c_size_t: "size_t",
        ctypes.c_int64: "int64",
    }
    return simple[ctype]


def abi(kind_name: str) -> str:
    return "int" if kind_name == "enum" else kind_name


def test_parser_sees_the_headers() -> None:
    """Guard against a parser that silently finds nothing."""
    assert len(header_enums()["dnnl_format_tag_t"]) > 1000
    assert header_enums()["dnnl_alg_kind_t"]["dnnl_eltwise_relu"] == 0x20
    assert "dnnl_primitive_execute" in header_functions()
    assert macro_value("DNNL_ARG_DST") == 17


@pytest.mark.parametrize("enum_name", capi.ENUMS)
def test_enum_matches_header(enum_name: str) -> None:
    declared = {name: int(member) for name, member in capi.ENUMS[enum_name].__members__.items()}
    expected = header_enums()[enum_name]
    missing = sorted(set(expected) - set(declared))
    extra = sorted(set(declared) - set(expected))
    wrong = sorted(n for n in set(expected) & set(declared) if expected[n] != declared[n])
    assert not missing, f"{enum_name}: missing {missing[:20]} ({len(missing)} in all)"
    assert not extra, f"{enum_name}: not in the header: {extra[:20]}"
    assert not wrong, [(n, declared[n], expected[n]) for n in wrong[:20]]


def test_required_enums_are_declared() -> None:
    required = {
        "dnnl_status_t",
        "dnnl_data_type_t",
        "dnnl_format_kind_t",
        "dnnl_format_tag_t",
        "dnnl_prop_kind_t",
        "dnnl_primitive_kind_t",
        "dnnl_alg_kind_t",
        "dnnl_normalization_flags_t",
        "dnnl_query_t",
        "dnnl_fpmath_mode_t",
        "dnnl_scratchpad_mode_t",
        "dnnl_engine_kind_t",
        "dnnl_stream_flags_t",
    }
    assert required <= set(capi.ENUMS)


def test_every_arg_macro_is_declared() -> None:
    names = [n for n in header_macros() if n.startswith("DNNL_ARG_")]
    assert len(names) > 60
    for name in names:
        assert hasattr(capi, name), f"capi lacks {name}"
        assert getattr(capi, name) == macro_value(name), name


def test_multiple_post_op_arg_macro() -> None:
    text = "\n".join(preprocessed(h) for h in TYPE_HEADERS)
    match = re.search(r"#\s*define\s+DNNL_ARG_ATTR_MULTIPLE_POST_OP\(idx\)\s+(.+)", text)
    assert match is not None
    body = match.group(1).replace("DNNL_ARG_ATTR_MULTIPLE_POST_OP_BASE", "BASE")
    assert " ".join(body.split()) == "(BASE * ((idx) + 1))"
    base = macro_value("DNNL_ARG_ATTR_MULTIPLE_POST_OP_BASE")
    for index in range(32):
        assert capi.DNNL_ARG_ATTR_MULTIPLE_POST_OP(index) == base * (index + 1)


@pytest.mark.parametrize("name", ["DNNL_MAX_NDIMS"])
def test_other_macros(name: str) -> None:
    assert getattr(capi, name) == macro_value(name)


@pytest.mark.parametrize("function", capi.SIGNATURES)
def test_signature_matches_header(function: str) -> None:
    assert function in header_functions(), f"{function} is not declared in the headers"
    header_result, header_params = header_functions()[function]
    result, params = capi.SIGNATURES[function]
    assert kind(result) == kind(header_result), (result, header_result)
    assert len(params) == len(header_params), f"{function}: {params} vs {header_params}"
    for index, (ours, theirs) in enumerate(zip(params, header_params)):
        assert kind(ours) == kind(theirs), f"{function} parameter {index}: {ours} vs {theirs}"


@pytest.mark.parametrize("function", capi.SIGNATURES)
def test_prototype_matches_header(function: str) -> None:
    """The ctypes prototype really set on the library function has the header's ABI."""
    header_result, header_params = header_functions()[function]
    prototype = capi.prototype(function)
    assert ctypes_kind(prototype.restype) == abi(kind(header_result))
    assert [ctypes_kind(t) for t in prototype.argtypes] == [abi(kind(p)) for p in header_params]


def test_library_version_is_the_pinned_one() -> None:
    major, minor, _ = capi.version()
    assert (major, minor) == (3, 2)


def test_runtime_dim_value() -> None:
    """DNNL_RUNTIME_DIM_VAL is INT64_MIN (a dimension given when a matmul runs)."""
    assert header_macros()["DNNL_RUNTIME_DIM_VAL"] == "INT64_MIN"
    assert capi.DNNL_RUNTIME_DIM_VAL == -(2**63)
