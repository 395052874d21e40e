"""``rollbridge connect`` says what its verifier finds in the events it shows
(docs/dice.md, "Checking": "says at once of an event that does not agree with its
own draws"). A die edited before its segment's reveal is said at once (a die the
event did not draw); at the reveal the verifier puts the deeper fault in that
problem's place (the die is not the seed's), which left the count of problems as it
was: connect, printing only the problems past that count, never said it."""

from __future__ import annotations

from rollbridge.cli.terminal import _check_dice
from rollbridge.dice.verify import LogVerifier
from tests.dice.test_verifiable_dice import GM, log, roll, service


def test_the_seeds_word_on_a_die_said_before_the_reveal_is_said_at_the_reveal(capsys):
    svc = service()
    for i in range(2):
        roll(svc, "3d6", f"r{i}")
    svc.handle("t", {"type": "dice.reveal", "id": "v"}, GM)
    events = log(svc, gm=False)
    target = next(e for e in events if e["kind"] == "roll")
    faces, value = target["data"]["draws"]["dice"][0]
    target["data"]["draws"]["dice"][0] = [faces, value % faces + 1]  # the seed's no more
    verifier = LogVerifier()
    said: list[list[str]] = []
    for event in events:
        _check_dice(verifier, event, "en")
        said.append([line for line in capsys.readouterr().out.splitlines() if "✗" in line])
    at_event = said[events.index(target)]
    assert len(at_event) == 1 and "did not draw" in at_event[0]
    reveal = next(n for n, e in enumerate(events) if e["kind"] == "dice.revealed")
    assert len(said[reveal]) == 1, said[reveal]
    assert f"seq {target['seq']}, die 1" in said[reveal][0] and "the seed gives" in said[reveal][0]
    assert sum(len(lines) for lines in said) == 2  # each fault once, nothing else
