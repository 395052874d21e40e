"""TypeScript check of the Foundry module's JavaScript (issue 15 item 7).

Runs `tsc` (checkJs, noEmit) over adapters/foundry/module/scripts and
adapters/client against the community declarations
(@league-of-foundry-developers/foundry-vtt-types) for Foundry v12 and v13, pinned
in tests/foundry/package-lock.json, plus the module's own declarations in
tests/foundry/types/rollbridge.d.ts. Zero errors on both generations.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
MODULES = HERE / "node_modules"
TSC = MODULES / ".bin" / "tsc"
TYPES = HERE / "types"
# The package each tsconfig resolves `fvtt-types` to (v12 through tsconfig paths).
DECLARATIONS = {12: "fvtt-types-v12", 13: "fvtt-types"}


def requirements(generation: int) -> list[str]:
    """What the type check needs and this machine lacks (empty: ready)."""
    missing = []
    if shutil.which("node") is None:
        missing.append("node (Node.js 20)")
    if not TSC.exists() or not (MODULES / "typescript").is_dir():
        missing.append("typescript (npm ci --prefix tests/foundry)")
    if not (MODULES / DECLARATIONS[generation] / "package.json").exists():
        missing.append(f"{DECLARATIONS[generation]} (npm ci --prefix tests/foundry)")
    return missing


@pytest.mark.parametrize("generation", [12, 13])
def test_the_module_type_checks_against_foundry_declarations(generation: int) -> None:
    missing = requirements(generation)
    if missing:
        pytest.fail("the Foundry type check needs: " + "; ".join(missing))
    config = TYPES / f"tsconfig.v{generation}.json"
    run = subprocess.run(
        [str(TSC), "-p", str(config), "--pretty", "false"],
        cwd=HERE,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    output = run.stdout + run.stderr
    errors = [line for line in output.splitlines() if "error TS" in line]
    assert run.returncode == 0 and not errors, (
        f"tsc -p {config.name}: exit {run.returncode}, {len(errors)} errors:\n" + output[-6000:]
    )


@pytest.mark.parametrize("generation", [12, 13])
def test_each_generation_checks_against_its_own_pinned_declarations(generation: int) -> None:
    missing = requirements(generation)
    if missing:
        pytest.fail("the Foundry type check needs: " + "; ".join(missing))
    run = subprocess.run(
        [str(TSC), "-p", str(TYPES / f"tsconfig.v{generation}.json"), "--listFiles"],
        cwd=HERE,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    files = run.stdout.splitlines()
    own = f"/node_modules/{DECLARATIONS[generation]}/src/"
    other = f"/node_modules/{DECLARATIONS[12 if generation == 13 else 13]}/src/"
    assert any(own in f for f in files), f"v{generation} does not load {own}"
    assert not any(other in f for f in files), f"v{generation} also loads {other}"
    assert any(f.endswith("types/rollbridge.d.ts") for f in files)
