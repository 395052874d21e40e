"""The built-in rulesets, one sub-package each (``sr2``, ``techlevel``,
``bandits``, ``wilddie``).

Each is a plugin like any third-party one: its ``__init__`` implements the
``register_rulesets`` hook. The host loads every sub-package found here.
"""

import pkgutil

#: Module names of the built-in ruleset plugins, in load order.
DEFAULT_PLUGINS: tuple[str, ...] = tuple(
    f"{__name__}.{info.name}"
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name)
    if info.ispkg
)
