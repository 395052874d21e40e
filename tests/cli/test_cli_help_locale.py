"""``--help`` and argparse's own words in the operator's language (cli11): every
command's help in cs, de and ru, argparse's words ("usage:", "options", its usage
errors) with them; ``--locale`` read wherever it stands, else the environment."""

from __future__ import annotations

import argparse
import subprocess
import sys

import pytest

from rollbridge.cli import build_parser, main

LOCALE_VARIABLES = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")
LOCALES = ("cs", "de", "ru")


@pytest.fixture
def environment(monkeypatch):
    """No locale variable set; the test sets the ones it needs."""
    for variable in LOCALE_VARIABLES:
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("COLUMNS", "100")
    return monkeypatch


def commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    """Every command's and sub-command's path (``("table", "create")``) and parser."""
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from commands(sub, (*path, name))


def helped(parser: argparse.ArgumentParser):
    """Each action's help as argparse expands it (its ``%(default)s`` filled in), and
    the option or argument it belongs to: what must not read in English."""
    formatter = parser._get_formatter()
    yield "description", parser.description or ""
    for group in parser._action_groups:
        yield "section", group.title or ""
    for action in parser._actions:
        for shown in getattr(action, "_choices_actions", []):  # the sub-commands' lines
            yield shown.dest, formatter._expand_help(shown)
        if action.help and action.help is not argparse.SUPPRESS:
            yield (action.option_strings or [action.dest])[0], formatter._expand_help(action)


def flat(text: str) -> str:
    return " ".join(text.split())


def usage(capsys, *argv: str) -> tuple[int, str, str]:
    """Run the CLI as a usage error or a help stops it: exit status, stdout, stderr."""
    with pytest.raises(SystemExit) as stopped:
        main(list(argv))
    out, err = capsys.readouterr()
    return stopped.value.code, out, err


ALL = list(commands(build_parser()))


@pytest.mark.parametrize("locale", LOCALES)
@pytest.mark.parametrize(("path", "parser"), ALL, ids=[" ".join(p) or "rollbridge" for p, _ in ALL])
def test_every_help_reads_in_the_language(capsys, environment, locale, path, parser):
    english = flat(usage(capsys, *path, "--help")[1])
    environment.setenv("LANGUAGE", locale)
    code, out, err = usage(capsys, *path, "--help")
    assert code == 0 and not err
    said = flat(out)
    assert said != english
    left = [  # longer than a name with its help ("table id" after the argument table)
        (name, text)
        for name, text in helped(parser)
        if len(text) > len("table id") and flat(text) in said
    ]
    assert left == [], f"untranslated in {' '.join(path)} ({locale})"
    assert "%(" not in said and "usage:" not in said


@pytest.mark.parametrize(
    ("locale", "words"),
    [("cs", ("--out SLOŽKA", "--unpacked SLOŽKA", "(výchozí dist/foundry)")),
     ("de", ("--out ORDNER", "--unpacked ORDNER", "(Standard dist/foundry)")),
     ("ru", ("--out ПАПКА", "--unpacked ПАПКА", "(по умолчанию dist/foundry)"))],
)  # fmt: skip
def test_foundry_releases_options_read_in_the_language(capsys, environment, locale, words):
    """``foundry-release``'s options (the Foundry adapter's release script's) kept
    English help and metavars (``DIR``, ``BASE_URL``) in every language, and the
    command took no ``--locale``."""
    code, out, err = usage(capsys, "foundry-release", "--help", "--locale", locale)
    said = flat(out)
    assert code == 0 and not err
    assert all(word in said for word in words), said
    assert "DIR" not in said and "BASE_URL" not in said and "the zip's URL" not in said
    code, _, err = usage(capsys, "foundry-release", "--unpacked", "--locale", locale)
    assert code == 2 and "--unpacked" in err and "usage:" not in err and "expected" not in err


def test_the_release_scripts_own_help_follows_the_environment(capsys, environment):
    """``python -m rollbridge.adapters.foundry.release --help`` (the script alone)."""
    from rollbridge.cli import release

    environment.setenv("LANGUAGE", "de")
    with pytest.raises(SystemExit) as stopped:
        release.main(["--help"])
    out = capsys.readouterr().out
    assert stopped.value.code == 0
    assert out.startswith("Aufruf: python -m rollbridge.adapters.foundry.release")
    assert "--out ORDNER" in out and "Build the Foundry" not in out


def test_the_defaults_are_filled_in(capsys, environment):
    out = flat(usage(capsys, "serve", "--help", "--locale", "cs")[1])
    assert "(výchozí 1000)" in out  # --retain's %(default)s
    assert "(výchozí 10000)" in out or "'busy' (výchozí" in out  # --max-pending
    out = flat(usage(capsys, "connect", "--help", "--locale", "de")[1])
    assert "(Standard 300, 0 bis 3600; 0: nie)" in out  # --reconnect-for's {default}


def test_a_usage_error_in_czech_exits_2(capsys, environment):
    code, out, err = usage(capsys, "resolve", "--locale", "cs")
    assert code == 2 and out == ""
    assert err == (
        "rollbridge resolve: error: chybí tyto povinné argumenty: ruleset, action "
        "(viz rollbridge resolve --help)\n"
    )


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (("reslve", "--locale", "cs"),
         "rollbridge: error: argument PŘÍKAZ: neplatná volba: 'reslve'"),
        (("resolve", "sr2", "attack", "--as", "gx", "--locale", "de"),
         "rollbridge resolve: error: Argument --as: ungültige Auswahl: 'gx'"),
        (("roll", "1d6", "--bogus", "--locale=ru"),
         "rollbridge: error: нераспознанные аргументы: --bogus (см. rollbridge --help)"),
        (("odds", "1d6", "--depth", "x", "--loc", "cs"),
         "rollbridge odds: error: argument --depth: neplatná hodnota typu int: 'x'"),
        (("serve", "--port", "x", "--locale", "cs"),
         "rollbridge serve: error: argument --port: očekává se port od 0 do 65535, ne 'x'"),
        (("serve", "--max-event-size", "-1", "--locale", "de"),
         "Argument --max-event-size: erwartet wird eine ganze Zahl über 0, nicht '-1'"),
        (("resolve", "sr2", "attack", "--params", "--locale", "ru"),
         "аргумент --params: ожидается один аргумент"),
        (("table", "--locale=cs"),
         "rollbridge table: error: chybí tyto povinné argumenty: AKCE (viz rollbridge table"),
        (("--locale=ru",), "rollbridge: error: требуются следующие аргументы: КОМАНДА"),
        (("roll", "1d6", "ACTION", "--locale", "cs"), "nerozpoznané argumenty: ACTION "),
    ],
)  # fmt: skip
def test_argparse_and_the_options_words_in_the_language(capsys, environment, argv, said):
    code, _, err = usage(capsys, *argv)
    assert code == 2 and said in err and err.count("\n") == 1


def test_a_json_usage_error_in_the_language(capsys, environment):
    code, out, err = usage(capsys, "resolve", "sr2", "attack", "--json=1", "--locale", "cs")
    assert code == 2 and err == ""
    assert '"message": "argument --json: hodnota \'1\' zde není dovolena' in out


def test_lang_is_honoured(capsys, environment):
    environment.setenv("LANG", "de_DE.UTF-8")
    out = usage(capsys, "serve", "--help")[1]
    assert out.startswith("Aufruf: rollbridge serve")
    assert "Optionen:" in out and "diese Hilfe anzeigen und beenden" in out
    environment.setenv("LC_ALL", "C")  # C before LANG: English
    assert usage(capsys, "serve", "--help")[1].startswith("usage: rollbridge serve")


@pytest.mark.parametrize(
    "argv",
    [
        ("table", "create", "--help", "--locale", "ru"),
        ("table", "create", "--locale", "ru", "--help"),
        ("table", "create", "--locale=ru", "--help"),
        ("table", "--help", "create", "--locale", "ru"),
    ],
)
def test_locale_anywhere_on_the_line(capsys, environment, argv):
    environment.setenv("LANGUAGE", "de")  # --locale wins
    out = usage(capsys, *argv)[1]
    assert out.startswith("использование: rollbridge table")


def test_an_unknown_locale_leaves_the_environments(capsys, environment):
    environment.setenv("LANGUAGE", "de")
    assert usage(capsys, "roll", "--help", "--locale", "xx")[1].startswith("Aufruf:")


def test_catalogs_locale_names_catalogues_not_the_language(capsys, environment):
    out = usage(capsys, "catalogs", "update", "--locale", "cs", "--help")[1]
    assert out.startswith("usage: rollbridge catalogs update")
    environment.setenv("LANGUAGE", "cs")
    out = usage(capsys, "catalogs", "update", "--locale", "de", "--help")[1]
    assert out.startswith("použití: rollbridge catalogs update")


def test_outside_the_command_line_the_help_is_english(environment):
    environment.setenv("LANGUAGE", "cs")
    parser = dict(ALL)[("table", "create")]
    assert parser.format_help().startswith("usage: rollbridge table create")


# -- argparse's words: every lookup argparse makes has its message --------------------

#: Command lines that make argparse look up its words: a help, and each kind of usage
#: error it has for these parsers.
LOOKUPS = [
    ("serve", "--help"),
    ("resolve",),
    ("reslve",),
    ("roll", "1d6", "--bogus"),
    ("resolve", "sr2", "attack", "--params"),
    ("resolve", "sr2", "attack", "--as", "gx"),
    ("resolve", "sr2", "attack", "--json=1"),
    ("odds", "1d6", "--depth", "x"),
    ("serve", "--lo", "x"),
    ("table", "create", "--ruleset"),
]


def test_every_word_argparse_looks_up_is_translated(capsys, environment):
    from rollbridge.cli import argparse_words

    asked: list[str] = []
    declared = argparse_words.gettext

    def spy(msgid: str, locale: str) -> str:
        asked.append(msgid)
        return declared(msgid, locale)

    environment.setattr(argparse_words, "gettext", spy)
    for argv in LOOKUPS:
        usage(capsys, *argv, "--locale", "cs")
    missing = sorted({msgid for msgid in asked if msgid not in argparse_words.WORDS})
    assert asked and missing == [], f"argparse of Python {sys.version_info[:2]} asks for {missing}"


@pytest.mark.parametrize("locale", LOCALES)
def test_a_plural_of_argparse_in_the_language(environment, locale):
    from rollbridge.cli import argparse_words

    for count, words in ((1, "1"), (2, "2"), (5, "5")):
        said = argparse_words.ngettext("expected %s argument", "expected %s arguments", count,
                                       locale) % count  # fmt: skip
        assert words in said and "%" not in said and "expected" not in said
    cs = [argparse_words.ngettext("expected %s argument", "", n, "cs") for n in (1, 3, 5)]
    if locale == "cs":
        assert cs == ["očekává se 1 argument", "očekávají se 3 argumenty",
                      "očekává se 5 argumentů"]  # fmt: skip


# -- the cost: a command that parses looks up nothing -------------------------------


def test_a_command_that_parses_reads_no_word_of_argparse():
    probe = (
        "import sys; from rollbridge.cli import main;"
        "main(['roll', '2d6', '--seed', '1', '--locale', 'cs']);"
        "print('LOADED', 'rollbridge.cli.argparse_words' in sys.modules)"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "LOADED False" in result.stdout


# -- argparse's words are swapped in only for the command line being parsed ----------


def _argparse_own() -> bool:
    import gettext

    return argparse._ is gettext.gettext and argparse.ngettext is gettext.ngettext


def test_argparse_gets_its_own_words_back_however_parsing_ends(capsys, environment):
    usage(capsys, "roll", "--help", "--locale", "cs")  # SystemExit(0)
    assert _argparse_own()
    usage(capsys, "roll", "--locale", "cs")  # a usage error: SystemExit(2)
    assert _argparse_own()
    assert main(["roll", "1d6", "--seed", "1", "--locale", "cs"]) == 0
    assert _argparse_own()
    capsys.readouterr()


def test_threads_each_parse_in_their_own_language(environment):
    """Two command lines parsed in two threads, the first to begin ending first: each
    reads its own language meanwhile, a third thread's argparse reads its own words,
    and argparse has its own back after both (before: the second kept the first's
    lookups as argparse's "own" and put them back for good, and each thread read the
    language of the last to begin)."""
    import threading

    from rollbridge.cli.helps import help_locale, speaking

    first_in, second_in, first_out = threading.Event(), threading.Event(), threading.Event()
    seen: dict[str, str] = {}

    def first() -> None:
        with speaking(["roll", "--locale", "cs"]):
            first_in.set()
            second_in.wait()
            seen["first"] = help_locale()
        first_out.set()

    def second() -> None:
        first_in.wait()
        with speaking(["roll", "--locale", "de"]):
            second_in.set()
            first_out.wait()
            seen["second"] = help_locale()
            parser = argparse.ArgumentParser(prog="x")  # not rollbridge's: its own words
            other = threading.Thread(target=lambda: seen.update(other=parser.format_usage()))
            other.start()
            other.join()

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert seen == {"first": "cs", "second": "de", "other": "usage: x [-h]\n"}
    assert _argparse_own()


@pytest.mark.parametrize(
    ("argv", "head"),
    [
        (("roll", "--lo", "cs"), "rollbridge roll: error: chybí tyto povinné argumenty"),
        (("roll", "--l=de", "--help"), "Aufruf: rollbridge roll"),
        (("table", "create", "--lo", "ru", "--help"), "использование: rollbridge table"),
        # table has no --locale of its own: only --loc and longer count there
        (("table", "--l", "cs"), "rollbridge table: error: argument ACTION"),
        # serve's --lo could be --log-level too: argparse refuses it, in English
        (("serve", "--lo", "cs", "--help"), "rollbridge serve: error: ambiguous option: --lo"),
    ],
)
def test_locale_abbreviated_as_the_commands_parser_takes_it(capsys, environment, argv, head):
    """``roll 1d6 --lo cs`` printed in Czech (argparse takes ``--lo`` where no other
    option begins so), but its help and usage errors were English: only ``--loc``
    and longer were read before parsing, whatever the command."""
    _, out, err = usage(capsys, *argv)
    assert (out or err).startswith(head), out or err


def test_another_threads_command_line_leaves_json_errors_json(environment):
    """``--json`` makes usage errors JSON for its own command line, whatever another
    thread parses meanwhile (before, the flag was the parser class's: another
    thread's command line, without ``--json``, parsed meanwhile turned it off, and
    the usage error of the one with ``--json`` came as text on stderr)."""
    import contextlib
    import io
    import threading

    from rollbridge import cli

    json_in, other_done = threading.Event(), threading.Event()
    real = cli.speaking

    @contextlib.contextmanager
    def paused(argv, parser=None):
        if "--json" in argv:  # the --json command line waits while the other parses
            json_in.set()
            other_done.wait()
        with real(argv, parser):
            yield

    environment.setattr(cli, "speaking", paused)

    def other() -> None:
        json_in.wait()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            main(["roll", "1d6", "--seed", "1"])
        other_done.set()

    thread = threading.Thread(target=other)
    thread.start()
    out, err = io.StringIO(), io.StringIO()
    stopped = pytest.raises(SystemExit)
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), stopped:
        main(["roll", "--json"])  # no formula: a usage error, as JSON
    thread.join()
    assert err.getvalue() == ""
    assert '"code": "invalid_request"' in out.getvalue()
