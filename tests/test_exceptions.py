"""One exceptions module: its docstring draws the whole tree, with every code."""

from __future__ import annotations

import inspect
import re

from rollbridge import exceptions
from rollbridge.exceptions import RollbridgeError


def classes() -> dict[str, type[RollbridgeError]]:
    return {
        name: obj
        for name, obj in vars(exceptions).items()
        if inspect.isclass(obj) and issubclass(obj, RollbridgeError)
    }


def drawn_tree() -> dict[str, tuple[int, str]]:
    """Each class in the docstring's tree: its depth and the code beside it."""
    tree = {}
    for line in (exceptions.__doc__ or "").splitlines():
        found = re.match(r"^\s*([│ ]*)(?:[├└]── )?([A-Z][A-Za-z]+)\s+(\w+)", line)
        if found and found.group(2) in classes():
            depth = len(found.group(1)) // 4 + (1 if "── " in line else 0)
            tree[found.group(2)] = (depth, found.group(3))
    return tree


def test_the_docstring_tree_lists_every_exception_with_its_code():
    tree = drawn_tree()
    assert set(tree) == set(classes()), set(classes()) ^ set(tree)
    for name, (_, code) in tree.items():
        if name != "RollbridgeError":
            assert classes()[name].code == code, name


def test_the_tree_follows_the_class_hierarchy():
    lines = [line for line in (exceptions.__doc__ or "").splitlines() if "──" in line]
    parents: list[str] = ["RollbridgeError"]
    for line in lines:
        name = re.search(r"── ([A-Z][A-Za-z]+)", line).group(1)
        depth = line.index("──") // 4 - 1  # the tree is indented one level
        del parents[depth + 1 :]
        assert classes()[name].__mro__[1].__name__ == parents[depth], name
        parents.append(name)


def warnings_of_the_module() -> set[str]:
    """The warning classes the module defines (outside the tree of errors)."""
    return {
        name
        for name, obj in vars(exceptions).items()
        if inspect.isclass(obj)
        and issubclass(obj, Warning)
        and obj.__module__ == exceptions.__name__
    }


def test_every_exception_is_exported():
    """And every warning, each named in the docstring beside the tree (plugins19
    exported ``PlainWordsWarning``, no error, and this test failed on main)."""
    assert set(exceptions.__all__) == set(classes()) | warnings_of_the_module()
    assert warnings_of_the_module() == {
        "NeverResolvedWarning",
        "PlainWordsWarning",
        "ToldTargetWarning",
    }
    for name in warnings_of_the_module():
        assert f":class:`{name}`" in (exceptions.__doc__ or ""), name


def test_an_invalid_state_is_an_invalid_request():
    """Issue 16: a supplied actor state that fails its ruleset's checks."""
    error = exceptions.InvalidState("state.stun: bad", details={"field": "state.stun"})
    assert isinstance(error, exceptions.InvalidRequest)
    assert error.to_dict() == {
        "code": "invalid_state",
        "message": "state.stun: bad",
        "details": {"field": "state.stun"},
    }
