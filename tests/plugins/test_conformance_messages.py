"""The conformance suite's failures tell a third-party author what is wrong and how
to fix it, naming the example sheet, the action or the catalogue at fault.

Before, a slip in an example sheet failed every test with the bare
``InvalidSheet`` (naming no sheet), an example the action's own schema refuses with
a bare ``InvalidParams`` in most tests, a ``default`` in the state schema with "an
empty state is not completed to the fresh state", and a missing translation with
the list of messages only — not that the domain had no catalogue folder, or no
catalogue for the locale, or which command makes one.
"""

from __future__ import annotations

import dataclasses

import pytest

from rollbridge.exceptions import InvalidSettings, InvalidState, PluginError, RuleViolation
from rollbridge.plugins.bandits import BanditsRuleset
from rollbridge.stores.memory import MemoryStore
from rollbridge.testing import RulesetConformance
from rollbridge.text import Messages, Private
from tests.catalogue_files import write_catalogue
from tests.conftest import Tally


def _suite(ruleset, **attributes):
    return type("Suite", (RulesetConformance,), {"ruleset": ruleset, "seeds": (1,),
                                                 **attributes})()  # fmt: skip


class _BadSheet(BanditsRuleset):
    example_sheets = {**BanditsRuleset.example_sheets, "Typo": {"kind": "dragon"}}


@pytest.mark.parametrize(
    "test",
    [
        "test_example_sheets_validate_and_states_are_json",
        "test_state_schema_describes_the_fresh_states",
        "test_actions_resolve_through_the_engine",
    ],
)
def test_a_refused_example_sheet_is_named(test):
    with pytest.raises(
        AssertionError, match=r"example_sheets\['Typo'\] is refused by the ruleset's own "
        r"sheet_schema .*invalid_sheet: .* correct the example sheet"
    ):  # fmt: skip
        getattr(_suite(_BadSheet()), test)()


class _Sheetless(BanditsRuleset):
    example_sheets: dict = {}


@pytest.mark.parametrize(
    "test",
    ["test_example_sheets_validate_and_states_are_json",
     "test_actions_resolve_through_the_engine", "test_resolution_is_pure_and_reproducible",
     "test_a_resolution_shows_every_die_it_rolls", "test_odds_are_exact_and_draw_no_dice",
     "test_texts_are_data_and_render_for_every_audience",
     "test_turn_hooks_touch_only_participants", "test_state_schema_describes_the_fresh_states"],
)  # fmt: skip
def test_a_ruleset_without_example_sheets_is_told_to_give_some(test):
    """A ruleset without ``example_sheets`` (they are "recommended") failed one test
    saying so and the others with a bare ``IndexError: list index out of range``, or
    passed the state tests with nothing checked."""
    with pytest.raises(
        AssertionError, match=r"^bandits has no example sheets, and the suite's actors are "
        r"made from them .*: give the ruleset example_sheets = "
    ):  # fmt: skip
        getattr(_suite(_Sheetless()), test)()


@pytest.mark.parametrize("default", [{}, {"default": "gritty"}], ids=["no default", "a default"])
def test_a_required_setting_that_makes_every_table_create_fail_is_named(default):
    """A ``settings_schema`` field marked ``required`` is refused when left out, with a
    default or without: every ``table create`` without ``--settings`` of the ruleset
    failed, and the suite passed it."""

    class Required(BanditsRuleset):
        settings_schema = {
            "type": "object",
            "properties": {"tone": {"type": "string", **default}},
            "required": ["tone"],
        }

    from rollbridge.offline import TableService
    from tests.conftest import host_with

    with pytest.raises(InvalidSettings, match=r"settings\.ruleset\.tone: is required"):
        TableService(MemoryStore(), host_with(Required())).create_table("T", "bandits")
    with pytest.raises(
        AssertionError,
        match=r"^a table made without settings is refused \(settings\.ruleset\.tone: is "
        r"required\): every `table create` without --settings would fail — take the field out "
        r"of settings_schema's `required` and give it a `default`"
    ):  # fmt: skip
        _suite(Required()).test_a_table_needs_no_settings()  # named as `table create` does
    _suite(BanditsRuleset()).test_a_table_needs_no_settings()  # bandits' own settings pass


class _Misspelt(BanditsRuleset):
    """bandits, its players' view and a turn hook misspelt."""

    def player_veiw(self, actor, settings):
        raise AssertionError("never called")

    def on_turn_starts(self, context, dice):
        raise AssertionError("never called")


def test_a_misspelt_member_of_the_contract_is_named():
    """``player_veiw`` loaded and was never called — bandits' own ``player_view``
    answered, and every test passed, the author's view of NPCs unused."""
    with pytest.raises(AssertionError) as failed:
        _suite(_Misspelt()).test_no_member_of_the_contract_is_misspelt()
    assert str(failed.value).startswith(
        "members named like the contract's but not as it names them, which the engine "
        "never calls: on_turn_starts (the contract has on_turn_start), player_veiw (the "
        "contract has player_view) — name each as the contract does"
    )


class _Views:
    """A mixin of the author's, shared by their rulesets: no Ruleset itself."""

    def player_veiw(self, view):
        return view


class _MisspeltInAMixin(_Views, BanditsRuleset):
    """bandits taking its players' view from the author's mixin, misspelt there."""


def test_a_misspelt_member_of_a_mixin_is_named():
    """A member the ruleset's class takes from a mixin that is no Ruleset (the
    author's ``_Views``) was not looked at, and ``player_veiw`` there passed."""
    with pytest.raises(AssertionError, match=r"player_veiw \(the contract has player_view\)"):
        _suite(_MisspeltInAMixin()).test_no_member_of_the_contract_is_misspelt()


def test_helpers_of_other_names_are_left_alone():
    """A helper named unlike any member of the contract passes, and so do the
    built-in rulesets."""

    class Helped(BanditsRuleset):
        def roll_plan(self, context):
            return None

        ruleset_notes = "kept"

    _suite(Helped()).test_no_member_of_the_contract_is_misspelt()


def test_a_helper_named_near_the_contract_is_told_of_the_underscore_and_passes_with_it():
    """A helper of the author's named ``action`` (the contract has ``actions``) fails
    the check, which tells the way out: a private name, which it passes over."""

    class Near(BanditsRuleset):
        def action(self, name):
            return self.actions[name]

    with pytest.raises(AssertionError, match=r"action \(the contract has actions\)") as failed:
        _suite(Near()).test_no_member_of_the_contract_is_misspelt()
    assert "start its name with an underscore" in str(failed.value)

    class Private(BanditsRuleset):
        def _action(self, name):
            return self.actions[name]

    _suite(Private()).test_no_member_of_the_contract_is_misspelt()


class _Quiet(Tally):
    """Tally without its action that raises on purpose (and has no example)."""

    actions = {name: spec for name, spec in Tally.actions.items() if name != "boom"}


def _with_example(ruleset_class, action, example):
    spec = ruleset_class.actions[action]
    actions = {**ruleset_class.actions, action: dataclasses.replace(spec, example=example)}
    return type("Misspelt", (ruleset_class,), {"actions": actions})()


@pytest.mark.parametrize(
    "test",
    ["test_every_action_has_an_example", "test_resolution_is_pure_and_reproducible",
     "test_texts_are_data_and_render_for_every_audience"],
)  # fmt: skip
def test_an_example_its_action_refuses_is_named(test):
    ruleset = _with_example(_Quiet, "heal", {"amout": 1})
    with pytest.raises(
        AssertionError, match=r"action 'heal': its example \{'amout': 1\} is refused by its "
        r"own params schema: .* give ActionSpec\(example=...\)"
    ):  # fmt: skip
        getattr(_suite(ruleset), test)()


class _Defaulted(_Quiet):
    state_schema = {
        "type": "object",
        "properties": {
            "damage": {"type": "integer", "minimum": 0, "default": 2},
            "rounds": {"type": "integer", "minimum": 0},
            "turns": {"type": "integer", "minimum": 0},
        },
    }


@pytest.mark.parametrize(
    "test", ["test_state_schema_describes_the_fresh_states", "test_partial_states_are_completed"]
)
def test_a_default_in_the_state_schema_is_named_as_the_cause(test):
    with pytest.raises(
        AssertionError, match=r"the state schema gives defaults \(\{'damage': 2\}\): "
        r"validation fills them in over the fresh state's values; remove them"
    ):  # fmt: skip
        getattr(_suite(_Defaulted()), test)()


class _Required(_Quiet):
    """``required`` in the state schema, as in a sheet schema: a supplied state that
    leaves a field out — ``{}``, the fresh state — is refused."""

    state_schema = {**_Defaulted.state_schema, "required": ["damage", "rounds", "turns"]}
    state_schema["properties"] = {
        **_Defaulted.state_schema["properties"],
        "damage": {"type": "integer", "minimum": 0},
    }


@pytest.mark.parametrize(
    ("test", "refused"),
    [("test_state_schema_describes_the_fresh_states",
      "an empty state: validate_state refused {}: state.damage"),
     ("test_partial_states_are_completed",
      "a state with only 'damage': validate_state refused {'damage': 0}: state.rounds")],
)  # fmt: skip
def test_a_required_field_in_the_state_schema_is_named_as_the_cause(test, refused):
    """The suite failed with the bare ``InvalidState: state.damage: is required``, not
    saying that a supplied state may leave out any field, which the schema must allow."""
    with pytest.raises(AssertionError) as failed:
        getattr(_suite(_Required()), test)()
    assert str(failed.value) == (
        f"Ana: {refused}: is required — the state schema requires fields "
        "({'state': ['damage', 'rounds', 'turns']}), but a supplied state may leave any "
        "field out, which takes the fresh state's value: remove 'required' "
        "(docs/plugins.md, 'Supplied states')"
    )


class _HarmlessDefault(_Quiet):
    """A default the fresh state holds (``damage`` 0), and a ``validate_state`` of its
    own that loses the rounds: the failure is that override's, not the default's."""

    state_schema = {
        **_Defaulted.state_schema,
        "properties": {
            **_Defaulted.state_schema["properties"],
            "damage": {"type": "integer", "minimum": 0, "default": 0},
        },
    }

    def validate_state(self, sheet, state):
        completed = super().validate_state(sheet, state)
        return {**completed, "rounds": state.get("rounds", 1)}


@pytest.mark.parametrize(
    "test", ["test_state_schema_describes_the_fresh_states", "test_partial_states_are_completed"]
)
def test_a_default_the_fresh_state_holds_is_not_blamed(test):
    """The hint named every ``default`` of the state schema as the cause ("remove
    them"), though one equal to the fresh state's value changes nothing: the author
    was sent to delete a harmless default and the fault, in validate_state, kept."""
    with pytest.raises(AssertionError, match="not completed to the fresh state") as failed:
        getattr(_suite(_HarmlessDefault()), test)()
    assert "defaults" not in str(failed.value), str(failed.value)


def _speaking(domain, **messages):
    """Tally, its narration a text of ``domain`` (declared with ``messages``)."""
    say = Messages(domain, **messages)
    said = say("said", "{name} acts")

    class Speaking(Tally):
        actions = {"hit": Tally.actions["hit"]}

        def resolve(self, context, dice):
            result = super().resolve(context, dice)
            return dataclasses.replace(result, narration=said(name="x"), steps=[])

    return Speaking()


def test_a_domain_without_a_catalogue_folder_is_told_to_declare_one():
    suite = _suite(_speaking("authorless"), locales=("cs",))
    with pytest.raises(
        AssertionError, match=r"\('authorless.said', 'cs'\).* no catalogue folder is "
        r"registered for the domain 'authorless': declare say = Messages\('authorless', "
        r"catalogs=Path\(__file__\).with_name\('locale'\)\)"
    ):  # fmt: skip
        suite.test_every_action_reads_in_every_locale()


def test_a_locale_without_a_catalogue_is_told_the_command_that_makes_it(tmp_path):
    suite = _suite(_speaking("authorfolder", catalogs=tmp_path / "locale"), locales=("de",))
    with pytest.raises(
        AssertionError, match=r"'authorfolder' has no compiled 'de' catalogue in .*locale: run "
        r"`rollbridge catalogs update .* --domain authorfolder --locale de`, translate"
    ):  # fmt: skip
        suite.test_every_action_reads_in_every_locale()


def test_the_rulesets_own_pass():
    """bandits as it is passes the same tests (it is not refused by the new checks)."""
    suite = _suite(BanditsRuleset())
    suite.test_every_action_has_an_example()
    suite.test_state_schema_describes_the_fresh_states()
    suite.test_every_action_reads_in_every_locale()


def test_a_skip_for_want_of_catalogues_says_where_the_suite_looked():
    """A plugin that declared its messages under another domain than its ruleset's id
    (``Messages("fate")`` for ``fatelike``) had its locale tests skipped with "ships
    no catalogue besides English" — though it ships some: the suite looks under the
    id. The reason now says so, and how to have them run."""
    with pytest.raises(pytest.skip.Exception) as skipped:
        _suite(_Quiet()).test_every_action_reads_in_every_locale()
    assert str(skipped.value.msg).startswith(
        "tally ships no catalogue besides English in the domain 'tally' (its id, where the "
        "suite looks): declare its messages with Messages('tally', "
        "catalogs=Path(__file__).with_name('locale')) and make the catalogues (rollbridge "
        "catalogs update YOUR_PACKAGE --domain tally --locale cs; docs/plugins.md"
    )
    assert "set locales = ('cs', ...) on this class" in skipped.value.msg


_ODDS = Messages("authorodds")
_MISS = _ODDS("odds.miss", "a miss")


class _LabelledOdds(BanditsRuleset):
    """bandits, its move's odds labelling "6-" with a text no catalogue translates."""

    def odds(self, context):
        odds = super().odds(context)
        if odds is None or "6-" not in odds.outcomes:
            return odds
        return dataclasses.replace(odds, labels={**odds.labels, "6-": _MISS()})


def test_an_odds_label_without_a_translation_fails_the_locale_test():
    """The locale test read every text of a resolution, not the labels of the odds a
    client shows before rolling: an outcome's label (``Odds(..., labels=...)``) left
    untranslated read in English to every Czech player, unseen by the suite."""
    with pytest.raises(AssertionError, match=r"\('authorodds.odds.miss', 'cs'\)"):
        _suite(_LabelledOdds(), locales=("cs",)).test_every_action_reads_in_every_locale()


_STATS = Messages("authorstats")
_MOVES = _STATS("stats.moves", "Moves made")


class _LabelledStatistics(BanditsRuleset):
    """bandits, one of its statistics' keys labelled with a text no catalogue
    translates."""

    def statistics(self):
        statistics = super().statistics()
        (key, _label), *rest = statistics.keys
        return dataclasses.replace(statistics, keys=((key, _MOVES()), *rest))


def test_a_statistics_label_without_a_translation_fails_the_locale_test():
    """The statistics test rendered each key's label in every locale but only checked
    that it was not empty: a label left untranslated read in English in every Czech
    player's statistics, unseen by the suite (whose docs said the labels "render in
    every locale")."""
    with pytest.raises(AssertionError, match=r"\('authorstats.stats.moves', 'cs'\)"):
        _suite(_LabelledStatistics(), locales=("cs",)).test_every_action_reads_in_every_locale()


_EARLY = Messages("authorearly")
_EARLY_MISS = _EARLY("odds.miss", "a miss")


class _EarlyLabelledOdds(_LabelledOdds):
    """bandits, its "6-" labelled with a text no catalogue translates, which an earlier
    test of the session rendered in Czech."""

    def odds(self, context):
        odds = super().odds(context)
        if odds is None or "6-" not in odds.labels:
            return odds
        return dataclasses.replace(odds, labels={**odds.labels, "6-": _EARLY_MISS()})


def test_a_message_an_earlier_test_read_in_english_still_fails_the_locale_test():
    """The locale test failed on what read in English *during* it (the messages noted
    since it began): one an earlier test had rendered in the same locale — the
    statistics test renders its labels in every locale, the author's own test read a
    text in Czech, another suite class of the same ruleset ran first — was noted
    already, and the test passed. Each suite of the ruleset fails on it."""
    _EARLY_MISS().render("cs")  # an earlier test read it in Czech
    for _ in range(2):  # two suite classes of the same ruleset
        with pytest.raises(AssertionError, match=r"\('authorearly.odds.miss', 'cs'\)"):
            _suite(_EarlyLabelledOdds(), locales=("cs",)).test_every_action_reads_in_every_locale()


_LATE = Messages("authorlate")
_TOO_MUCH = _LATE("too_much", "at most {limit} bonus")


class _RefusingLate(Tally):
    """Tally refusing a bonus past 100 with a text no catalogue translates."""

    actions = {"hit": Tally.actions["hit"]}

    def resolve(self, context, dice):
        if context.params.get("bonus", 0) > 100:
            raise RuleViolation(_TOO_MUCH(limit=100), code="too_much")
        return super().resolve(context, dice)


def test_a_refusal_an_earlier_test_read_in_english_still_fails_the_refusal_test():
    """The same for the refusal test: a refusal read in Czech before it began passed."""
    _TOO_MUCH(limit=100).render("cs")  # an earlier test read it in Czech
    for _ in range(2):
        with pytest.raises(
            AssertionError, match=r"^refusals without a translation .*'authorlate.too_much', 'cs'"
        ):
            _suite(_RefusingLate(), locales=("cs",)).test_every_refusal_reads_in_every_locale()


def _authors_package(tmp_path, domain):
    """A package declaring ``said`` in ``domain``, its German catalogue made (the
    message untranslated), and the suite of a ruleset saying it, requiring German."""
    from rollbridge import catalogs

    package = tmp_path / domain
    package.mkdir()
    (package / "messages.py").write_text(
        f'say = Messages("{domain}")\nSAID = say("said", "{{name}} acts")\n'
    )
    catalogs.update(package, domain, ["de"])
    return package, _suite(_speaking(domain, catalogs=package / "locale"), locales=("de",))


def test_a_message_translated_and_compiled_in_the_session_passes_the_locale_test(tmp_path):
    """The locale test fails on what an earlier test read in English: one read so
    before its catalogue was translated and compiled in the same process — which
    reads it at once (docs/plugins.md, 'Languages') — still failed it, named as
    untranslated in a catalogue that translates it. What read in English in the
    catalogues before is forgotten with them; one still missing fails again."""
    from babel.messages import pofile

    from rollbridge import catalogs

    package, suite = _authors_package(tmp_path, "authorlater")
    with pytest.raises(AssertionError, match=r"\('authorlater.said', 'de'\)"):
        suite.test_every_action_reads_in_every_locale()  # an earlier run, untranslated
    catalogs.compile_catalogues(package, "authorlater")  # compiled again, still untranslated
    with pytest.raises(AssertionError, match=r"\('authorlater.said', 'de'\)"):
        suite.test_every_action_reads_in_every_locale()
    po = package / "locale" / "de" / "LC_MESSAGES" / "authorlater.po"
    with po.open("rb") as file:
        catalogue = pofile.read_po(file, locale="de")
    catalogue.get("{name} acts", context="said").string = "{name} handelt"
    with po.open("wb") as file:
        pofile.write_po(file, catalogue)
    catalogs.compile_catalogues(package, "authorlater")
    suite.test_every_action_reads_in_every_locale()


def test_a_message_its_catalogue_lacks_is_told_where_to_translate_it(tmp_path):
    """The catalogue is there, the message untranslated (or fuzzy, which is not
    compiled): the hint names the .po, the commands, and the fuzzy flag."""
    _package, suite = _authors_package(tmp_path, "authorpo")
    with pytest.raises(
        AssertionError, match=r"\('authorpo.said', 'de'\)\] — translate them in .*authorpo.po "
        r"\(after `rollbridge catalogs update .*authorpo --domain authorpo --locale de` if "
        r"they are new; an entry marked '#, fuzzy' is not compiled: check it and delete that "
        r"line\), then run it again to compile; `rollbridge catalogs check"
    ):  # fmt: skip
        suite.test_every_action_reads_in_every_locale()


class _PlainRefusal(BanditsRuleset):
    """bandits refusing every supplied state in a plain string (every one: the
    fuzzer's first example fails, whatever it draws)."""

    def validate_state(self, sheet, state):
        raise InvalidState("no dead bandits", details={"field": "state.dead"})


class _Unnamed(BanditsRuleset):
    """bandits refusing every supplied state with a text naming no field."""

    def validate_state(self, sheet, state):
        raise InvalidState(_ODDS("refused.dead", "no dead bandits")())


@pytest.mark.parametrize(
    ("ruleset", "message"),
    [
        (_PlainRefusal, r"is refused with a plain string, 'no dead bandits': give "
                        r"InvalidState a Text of your catalogue"),
        (_Unnamed, r"is refused with details \{\}, which name no field: give "
                   r"InvalidState\(…, details=\{'field': 'state.<field>'\}\)"),
    ],
    ids=["plain-string", "no-field"],
)  # fmt: skip
def test_a_supplied_state_refused_without_a_text_or_a_field_says_how_to_refuse(ruleset,
                                                                              message):  # fmt: skip
    """An author's own ``validate_state`` check that refused in a plain string, or
    without the field, failed with "plain-string refusal: ..." or with the bare
    details dict as the message."""
    suite = _suite(ruleset(), state_examples=5)
    with pytest.raises(AssertionError, match=message):
        suite.test_supplied_states_are_refused_or_work()


class _OnlyHeals(_Quiet):
    """Tally with its heal alone: every example actor is fresh, so every heal is refused."""

    actions = {"heal": Tally.actions["heal"]}


def test_when_no_example_resolves_the_refusals_are_named():
    """The failure "no action example resolved with any seed" left the author to find which rule
    refused what: a heal example on actors that are all unhurt."""
    with pytest.raises(
        AssertionError, match=r"no action example resolved with any seed — the rules refused "
        r"each \('heal': not_hurt: Ana is not hurt\): give at least one action an "
        r"example the example actors can do fresh"
    ):  # fmt: skip
        _suite(_OnlyHeals()).test_actions_resolve_through_the_engine()


def test_a_locale_rollbridge_does_not_speak_is_named_as_such():
    """A plugin requiring French (``locales = ("fr",)``) was told to translate the
    core's schema refusals in core/locale/fr — a folder of rollbridge's, and no
    language of it."""
    with pytest.raises(
        AssertionError, match=r"\('rollbridge\.schema\.[a-z_.]+', 'fr'\).* rollbridge itself "
        r"does not speak 'fr' \(it speaks en, cs, de, ru\): its own messages, such as the "
        r"schema's refusals, read in English there"
    ):  # fmt: skip
        _suite(BanditsRuleset(), locales=("fr",)).test_every_refusal_reads_in_every_locale()


def test_a_catalogue_folder_the_tools_do_not_write_is_named(tmp_path):
    """A domain whose ``Messages(..., catalogs=...)`` is a folder not named ``locale``
    was told to run ``rollbridge catalogs update`` there — which writes to the
    package's ``locale`` folder, so the test failed the same after it."""
    suite = _suite(_speaking("authorelse", catalogs=tmp_path / "translations"), locales=("de",))
    with pytest.raises(AssertionError) as failed:
        suite.test_every_action_reads_in_every_locale()
    assert (
        f"'authorelse' reads its catalogues from {tmp_path / 'translations'}, but `rollbridge "
        f"catalogs` writes them to {tmp_path / 'locale'}: declare say = Messages('authorelse', "
        "catalogs=Path(__file__).with_name('locale'))"
    ) in str(failed.value)


@pytest.mark.parametrize(
    "test", ["test_every_action_reads_in_every_locale", "test_every_refusal_reads_in_every_locale"]
)
def test_a_ruleset_id_no_domain_can_have_is_not_told_to_declare_it(test):
    """A ruleset id may hold a hyphen (``fate-core``); a message domain may not. The
    skip told such a ruleset to "declare its messages with Messages('fate-core',
    catalogs=...)", which raises "message domain 'fate-core' must be a dotted name":
    the way that works, ``locales``, is the one to name."""
    hyphenated = type("Hyphenated", (_Quiet,), {"id": "tally-two"})()
    with pytest.raises(pytest.skip.Exception) as skipped:
        getattr(_suite(hyphenated), test)()
    reason = str(skipped.value)
    assert "Messages('tally-two'" not in reason, reason
    assert "a domain is a dotted name ('tally_two', not 'tally-two'); set locales = " in reason
    with pytest.raises(PluginError, match="must be a dotted name"):
        Messages("tally-two")


_SPECS = Messages("authorspecs")
_ARMOUR = _SPECS("armour", "{name} has armour {armour:d}")


class _MisSpecified(Tally):
    """Tally whose narration gives a float (a private one: the players' view hides it)
    where its message's spec, ``{armour:d}``, takes integers."""

    actions = {"hit": Tally.actions["hit"]}

    def resolve(self, context, dice):
        result = super().resolve(context, dice)
        target = context.targets[0]
        armour = Private(target.sheet["hp"] / 4, of=target.id, aspect="sheet")
        return dataclasses.replace(result, narration=_ARMOUR(name="x", armour=armour), steps=[])


@pytest.mark.parametrize(
    ("test", "locales"),
    [("test_texts_are_data_and_render_for_every_audience", None),
     ("test_every_action_reads_in_every_locale", ("cs",))],
)  # fmt: skip
def test_an_argument_its_spec_does_not_fit_fails_the_suite(test, locales):
    """A message whose example arguments do not fit its format spec (a float under
    ``{armour:d}``) fails the suite, naming the message, the argument and the spec —
    the author learns it in their tests; at a table it reads without the spec. Before,
    the table's request failed as a whole ("ruleset 'tally' failed"), and the suite
    with it, as an ``InternalError`` naming neither the message nor the spec."""
    suite = _suite(_MisSpecified(), locales=locales)
    with pytest.raises(
        AssertionError, match=r"arguments that do not fit their format spec \(message, "
        r"argument, spec, the value's type\): \[\('authorspecs.armour', 'armour', 'd', "
        r"'float'\)\] — at a table each reads without its spec"
    ):  # fmt: skip
        getattr(suite, test)()


_NOT_HURT = _SPECS("not_hurt", "{name} is not hurt (wounds {wounds:d})")


class _RefusedMisSpecified(Tally):
    """Tally whose ``hit`` narration fits its spec, and whose ``heal`` of an unhurt
    target (as its example is, on fresh actors) is refused with a message giving None
    where ``{wounds:d}`` takes integers."""

    actions = {"hit": Tally.actions["hit"], "heal": Tally.actions["heal"]}

    def resolve(self, context, dice):
        target = context.targets[0]
        if context.action == "heal" and target.state["damage"] == 0:
            raise RuleViolation(_NOT_HURT(name=target.name, wounds=None), code="not_hurt")
        result = super().resolve(context, dice)
        return dataclasses.replace(result, narration=_ARMOUR(name="x", armour=2), steps=[])


def test_a_refusal_its_spec_does_not_fit_fails_the_suite_naming_it():
    """An example refused with a message whose argument does not fit its spec fails
    the suite, naming that action's refusal. Before, the refusal was passed over: the
    last example refused so went unnoticed (an English-only ruleset, whose locale
    tests are skipped, passed the suite), and an earlier one failed the next example,
    named as if its narration were at fault."""
    suite = _suite(_RefusedMisSpecified())
    with pytest.raises(
        AssertionError, match=r"^heal: its refusal: arguments that do not fit their format "
        r"spec \(message, argument, spec, the value's type\): \[\('authorspecs.not_hurt', "
        r"'wounds', 'd', 'NoneType'\)\]"
    ):  # fmt: skip
        suite.test_texts_are_data_and_render_for_every_audience()


def _dropping_the_spec(folder):
    """A ruleset whose refusal of a bonus over 100 gives a float where its English
    template's ``{limit:d}`` takes integers, and whose German catalogue (compiled in
    ``folder``) translates it without the spec, as a translator may."""
    english = "a bonus of {bonus} is over {limit:d}"
    translated = "ein Bonus von {bonus} ist über {limit}"
    write_catalogue(folder, "de", "authordrops", {"too_much": (english, translated)})
    too_much = Messages("authordrops", catalogs=folder)("too_much", english)

    class Dropping(Tally):
        actions = {"hit": Tally.actions["hit"]}

        def resolve(self, context, dice):
            if context.params.get("bonus", 0) > 100:
                bonus = context.params["bonus"]
                raise RuleViolation(too_much(bonus=bonus, limit=100.0), code="too_much")
            return super().resolve(context, dice)

    return Dropping()


def test_a_refusal_misfit_only_in_english_fails_the_suite(tmp_path):
    """A refusal whose English template's spec does not fit its argument fails the
    refusal test even where the translation has no spec. Before, its English was
    rendered (when the refusal was made) before the suite began to count, and the
    German rendering fitted: the suite passed a ruleset whose English readers were
    given the argument without its spec."""
    suite = _suite(_dropping_the_spec(tmp_path / "locale"), locales=("de",))
    with pytest.raises(
        AssertionError, match=r"^hit with bonus=1000000: arguments that do not fit their "
        r"format spec \(message, argument, spec, the value's type\): "
        r"\[\('authordrops.too_much', 'limit', 'd', 'float'\)\]"
    ):  # fmt: skip
        suite.test_every_refusal_reads_in_every_locale()


_NOTE = _SPECS("note", "{n:+d} to rolls")


class _NotedMisSpecified(Tally):
    """Tally whose common state notes half the damage (a float) where its message's
    spec, ``{n:+d}``, takes integers."""

    def common_state(self, actor):
        common = super().common_state(actor)
        return dataclasses.replace(common, modifier_note=_NOTE(n=-actor.state["damage"] / 2))


def test_a_common_states_text_its_spec_does_not_fit_fails_the_suite():
    """A common state's text (a condition, the modifier's note) whose argument does not
    fit its spec fails the common state's test, naming the actor. Before, that test
    rendered it uncounted and passed; only the resolution tests failed, naming the
    action ("hit: arguments that do not fit ...") as if its narration were at fault."""
    suite = _suite(_NotedMisSpecified())
    with pytest.raises(
        AssertionError, match=r"^actor 'Ana': common state: arguments that do not fit their "
        r"format spec \(message, argument, spec, the value's type\): "
        r"\[\('authorspecs.note', 'n', '\+d', 'float'\)\]"
    ):  # fmt: skip
        suite.test_example_sheets_validate_and_states_are_json()
