"""Built-in adapter ``foundry``: the Foundry VTT dialect of the wire protocol,
and (in ``module/``, not a Python package) the Foundry module that speaks it.
User docs: docs/foundry.md.

Modules, one job each:

``inbound``   Foundry-dialect requests (``foundry.roll``, ``foundry.resolve``) → core requests
``dice_in``   Foundry Roll JSON → a formula and supplied die results
``outbound``  core replies and events → the same with ``foundry`` fields
``dice_out``  rollbridge dice → Foundry Roll JSON for ``Roll.fromData``
``actors``    each actor's state shaped for Foundry: flags and system paths
``mappings``  system mappings (``sr5``, ``swade``): common state → system data paths
``adapter``   the :class:`~rollbridge.adapter.Adapter` object
``release``   builds the module's zip and manifest (``python -m …foundry.release``)
"""

from collections.abc import Callable

from rollbridge.adapter import Adapter
from rollbridge.hookspecs import hookimpl

from .adapter import FoundryAdapter

__all__ = ["FoundryAdapter", "register_adapters"]


@hookimpl
def register_adapters(register: Callable[[Adapter], None]) -> None:
    """Register the Foundry VTT adapter."""
    register(FoundryAdapter())
