"""A sweep, not a test: run every ruleset's actions through ``rollbridge resolve``
and ``odds``, plus ``rulesets``, ``roll`` and ``odds`` of dice notation, in cs, de
and ru, and print each printed line that holds a common English word, with the
command that printed it (``python tests/texts29_sweep.py``; a few minutes). What
it finds is read by a person: a JSON state's keys and ids are data, not words."""

from __future__ import annotations

import re
import subprocess

ENGLISH = re.compile(
    r"\b(the|of|and|with|is|are|roll|rolls|damage|hit|success|failure|wound|wounds|"
    r"target|actor|turn|round|dice|stat|none|not|from|against|for|its|it)\b",
    re.IGNORECASE,
)
LOCALES = ("cs", "de", "ru")


def run(*argv: str) -> str:
    """What ``rollbridge ARGV`` prints, both streams."""
    done = subprocess.run(["rollbridge", *argv], capture_output=True, text=True, timeout=60)
    return done.stdout + done.stderr


def rulesets() -> dict[str, list[str]]:
    """Ruleset id → its actions, as ``rollbridge rulesets`` lists them."""
    found: dict[str, list[str]] = {}
    current = None
    for line in run("rulesets", "--locale", "en").splitlines():
        head = re.match(r"^(\w+) [\d.]+: ", line)
        action = re.match(r"^  (\w+)", line)
        if head:
            current = head.group(1)
            found[current] = []
        elif action and current:
            found[current].append(action.group(1))
    return found


def main() -> None:
    """Print each English-looking line per locale and the command behind it."""
    known = rulesets()
    for locale in LOCALES:
        outputs = {"rulesets": run("rulesets", "--locale", locale)}
        for ruleset, actions in known.items():
            for action in actions:
                for command in ("resolve", "odds"):
                    argv = [command, ruleset, action, "--locale", locale]
                    if command == "resolve":
                        argv += ["--seed", "1"]
                    outputs[" ".join(argv[:3])] = run(*argv)
        outputs["odds 4d6kh3"] = run("odds", "4d6kh3", "--locale", locale)
        outputs["roll 4d6kh3"] = run("roll", "4d6kh3", "--locale", locale)
        for command, text in outputs.items():
            for line in text.splitlines():
                if "Traceback" in line or ENGLISH.search(line):
                    print(locale, command, "|", line.strip()[:160])


if __name__ == "__main__":
    main()
