"""The built-in VTT dialect adapters, one sub-package each (``foundry``).

Each implements the ``register_adapters`` hook; the host loads every
sub-package found here.
"""

import pkgutil

#: Module names of the built-in adapter plugins, in load order.
DEFAULT_PLUGINS: tuple[str, ...] = tuple(
    f"{__name__}.{info.name}"
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name)
    if info.ispkg
)
