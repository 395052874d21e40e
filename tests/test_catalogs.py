"""Localisation issue, items 1 and 5: every domain's catalogues are complete in every
language rollbridge speaks, with exactly the English placeholders, the CLDR plural
rules, and compiled .mo files that are the .po files; and every message the code
declares is one the catalogue tools can extract (no template built at run time)."""

from __future__ import annotations

import importlib
import json
import pkgutil
import re
from pathlib import Path

import pytest
from babel.messages import plurals, pofile

import rollbridge
from rollbridge import catalogs, text
from rollbridge.i18n import LOCALES

ROOT = Path(__file__).resolve().parents[1]
#: Each domain: the folders of its sources (its catalogues in the first's locale/).
DOMAINS = {
    "rollbridge": [ROOT / "core", ROOT / "adapters"],
    "sr2": [ROOT / "plugins" / "sr2"],
    "techlevel": [ROOT / "plugins" / "techlevel"],
    "bandits": [ROOT / "plugins" / "bandits"],
    "wilddie": [ROOT / "plugins" / "wilddie"],
}
TRANSLATED = [locale for locale in LOCALES if locale != "en"]


def import_everything() -> None:
    for package in ("rollbridge", "rollbridge.plugins", "rollbridge.adapters"):
        module = importlib.import_module(package)
        for info in pkgutil.walk_packages(module.__path__, f"{package}."):
            if not info.name.endswith(".__main__"):  # running it would start the CLI
                importlib.import_module(info.name)


@pytest.mark.parametrize("domain", sorted(DOMAINS))
def test_every_message_is_translated_with_the_english_placeholders(domain):
    problems = catalogs.check(DOMAINS[domain], domain, TRANSLATED)
    assert not problems, "\n".join(str(p) for p in problems)


@pytest.mark.parametrize("domain", sorted(DOMAINS))
def test_every_declared_message_can_be_extracted(domain):
    import_everything()
    extracted = catalogs.extract(DOMAINS[domain], domain)
    keys = {message.context for message in extracted if message.id}
    declared = {m.key for m in text._MESSAGES.values() if m.domain == domain}
    assert declared, f"{domain} declares no message"
    assert declared <= keys, f"declared at run time, not extractable: {sorted(declared - keys)}"
    english = {m.context: m.id for m in extracted if m.id}
    for message in text._MESSAGES.values():
        if message.domain == domain:
            wanted = message.template if message.plural is None else (
                message.template, message.plural)  # fmt: skip
            assert english[message.key] == wanted, f"{message.id}: extracted differently"


@pytest.mark.parametrize("domain", sorted(DOMAINS))
@pytest.mark.parametrize("locale", TRANSLATED)
def test_plural_rules_are_cldrs(domain, locale):
    po = DOMAINS[domain][0] / "locale" / locale / "LC_MESSAGES" / f"{domain}.po"
    with po.open("rb") as file:
        catalogue = pofile.read_po(file, locale=locale)
    expected = plurals.get_plural(locale)
    assert catalogue.num_plurals == expected.num_plurals
    assert catalogue.plural_expr == expected.plural_expr


def test_the_package_knows_where_each_domains_catalogues_are():
    from rollbridge import i18n

    import_everything()
    for domain, sources in DOMAINS.items():
        assert i18n.catalogs_of(domain) == sources[0] / "locale", domain
        assert set(LOCALES) <= i18n.locales_of(domain), domain
    assert Path(rollbridge.__file__).parent == DOMAINS["rollbridge"][0]


def test_verifys_messages_each_have_their_own_translators_comment():
    """A ``# Translators:`` comment goes with the message right below it: stacked
    above cli.verify.cannot_read, cli.verify.unreadable's went with it, telling of a
    {line} and an {error} it does not have, and left unreadable with none."""
    import re

    named = re.compile(r"\{(\w+)\}")
    extracted = {m.context: m for m in catalogs.extract(DOMAINS["rollbridge"], "rollbridge")}
    for key in ("cli.verify.cannot_read", "cli.verify.unreadable"):
        message = extracted[key]
        told = {name for comment in message.auto_comments for name in named.findall(comment)}
        assert told == set(named.findall(message.id)), (key, message.auto_comments)


def test_the_russian_texts_call_the_gm_master_throughout():
    """The GM is «мастер» in every Russian text (the web view's words, the Foundry
    module's, the catalogues); web.home called them «ведущий», another word a reader
    takes for another role."""
    for path in (ROOT / "core" / "locale" / "ru" / "LC_MESSAGES" / "rollbridge.po",
                 ROOT / "core" / "server" / "webui" / "lang" / "ru.json"):  # fmt: skip
        assert "ведущ" not in path.read_text(encoding="utf-8").lower(), path
        assert "мастер" in path.read_text(encoding="utf-8"), path


#: A translation's first word.
_FIRST_WORD = re.compile(r"^\w+")


@pytest.mark.parametrize("locale", ["cs", "ru"])
def test_a_message_that_goes_on_a_line_begins_it_in_lower_case_translated_too(locale):
    """A message of rollbridge's own whose English begins in lower case, or with a
    placeholder, goes on after something (``rollbridge: error: store_error: …``, a
    field's name): its Czech and Russian begin in lower case too (German capitalises
    its nouns). The Russian of a schema version below 0 began ``У {path} …`` where
    every other store error says ``у``. A first word in capitals (URL, API, PJ) is a
    name; an English beginning with the name rollbridge (the web view's home page)
    may be turned into a sentence."""
    po = ROOT / "core" / "locale" / locale / "LC_MESSAGES" / "rollbridge.po"
    with po.open("rb") as file:
        catalogue = pofile.read_po(file, locale=locale)
    capitalised = []
    for message in catalogue:
        english = message.id[0] if isinstance(message.id, tuple) else message.id
        if not english or not (english[0].islower() or english[0] == "{"):
            continue
        if english.startswith("rollbridge"):
            continue
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        for translated in strings:
            first = _FIRST_WORD.match(translated or "")
            word = first.group() if first else ""
            if word[:1].isupper() and not (len(word) > 1 and word.isupper()):
                capitalised.append((message.context, translated[:60]))
    assert not capitalised, capitalised


#: The one word for the GM in each language, and the words a reader would take for
#: another person (or that the other half of the texts used). The role codes (gm,
#: player, observer) a command takes stay as they are typed.
GM_WORDS = {
    "cs": ("PJ", re.compile(r"\bGM\b|(?i:pán jeskyně|vypravěč)")),
    "de": ("Spielleiter", re.compile(r"\bSL\b|Spielleitung|Meister")),
    "ru": ("мастер", re.compile(r"ведущ|\bГМ\b", re.IGNORECASE)),
}


#: The folders whose lang/*.json hold the words of a page: the web view, the Foundry module.
LANG_FOLDERS = (ROOT / "core" / "server" / "webui", ROOT / "adapters" / "foundry" / "module")


def _catalogue_texts(locale: str) -> list[tuple[str, str, str]]:
    """Each catalogue's translations in ``locale`` (every domain's): where each is, the
    English it translates (its msgid; a plural's forms joined) and the translation."""
    texts = []
    for domain, sources in DOMAINS.items():
        po = sources[0] / "locale" / locale / "LC_MESSAGES" / f"{domain}.po"
        with po.open("rb") as file:
            for message in pofile.read_po(file, locale=locale):
                ids = message.id if isinstance(message.id, tuple) else (message.id,)
                strings = message.string
                texts += [
                    (f"{domain}:{message.context}", " ".join(ids), string)
                    for string in (strings if isinstance(strings, tuple) else (strings,))
                ]
    return texts


def _lang_words(folder: Path, locale: str) -> dict[str, str]:
    """A lang folder's words in ``locale``, by where they are (``webui.ROLLBRIDGE.…``)."""
    words = {}
    stack = [(folder.name, json.loads((folder / "lang" / f"{locale}.json").read_text("utf-8")))]
    while stack:
        where, value = stack.pop()
        if isinstance(value, dict):
            stack += [(f"{where}.{key}", item) for key, item in value.items()]
        else:
            words[where] = value
    return words


def _texts_of(locale: str) -> list[tuple[str, str]]:
    """Every text a reader of ``locale`` reads: each catalogue's translations (every
    domain's) and the web view's and the Foundry module's words, with where it is."""
    texts = [(where, string) for where, _english, string in _catalogue_texts(locale)]
    for folder in LANG_FOLDERS:
        texts += _lang_words(folder, locale).items()
    return texts


@pytest.mark.parametrize("locale", sorted(GM_WORDS))
def test_the_gm_has_one_word_in_every_text_of_a_language(locale):
    """One person, one word: the German CLI, verify and the rulesets' narration said
    «die SL», the web view and the Foundry module «die Spielleitung» (some thirty
    texts each); the Czech home page and migrate said «GM» beside «PJ» everywhere else.
    The GM is «Spielleiter» in German (the German Savage Worlds editions' and Foundry's
    own German word), «PJ» in Czech and «мастер» in Russian, in the CLI, the server's
    texts, every ruleset, the web view and the Foundry module."""
    word, others = GM_WORDS[locale]
    texts = _texts_of(locale)
    assert not [(where, text) for where, text in texts if others.search(text)]
    assert any(word in text for _, text in texts)
    for where in ("webui.ROLLBRIDGE.Role.gm", "module.ROLLBRIDGE.Role.gm"):
        said = {text for at, text in texts if at == where}
        assert said == {word}, (where, said)


#: The one word for a term in each language (each ruleset's glossary, where actor is
#: rollbridge's own word), and the words the other texts used for it.
TERMS = {
    "NPC": {
        "cs": ("NPC", re.compile(r"\bCP\b|cizí postav")),
        "de": ("NSC", re.compile(r"\bNPCs?\b")),
        "ru": ("NPC", re.compile(r"\bНПС\b|\bНИП\b|неигров")),
    },
    "actor": {
        "cs": ("postav", re.compile(r"(?i)\baktér")),
        "de": ("Figur", re.compile(r"Akteur")),
        "ru": ("персонаж", re.compile(r"(?i)\bакт[её]р")),
    },
    # a track: «шкала», and sr2's condition monitors «монитор» as the seed's; never «трек»
    # (Foundry's «Трекер боя» is another thing)
    "track": {"ru": ("шкал", re.compile(r"(?i)\bтрек(?!ер)"))},
    # the web view, by the name serve prints before its address
    "web view": {"cs": ("webové zobrazení", re.compile(r"(?i)webov\w* náhled"))},
    # a segment of verifiable dice and its seed (a URL's path segment is another thing)
    "segment": {
        "cs": ("úsek", re.compile(r"(?i)ověřiteln\w* segment")),
        "de": ("Abschnitt", re.compile(r"(?:prüfbar|verifizierbar)\w* Segment|Startwert")),
        "ru": ("отрез", re.compile(r"(?i)проверяем\w* сегмент")),
    },
    # a request held for the GM's approval waits for it («ждёт одобрения», as the web
    # view and the Foundry module say); «отложенный» reads as put off, and «запрос,
    # отложенный до начала журнала» as a request put off until the log begins
    "held request": {"ru": ("ждёт одобрения", re.compile(r"(?i)отложенн"))},
    # the GM's approval of a held request and its table setting: «Freigabe» (freigeben),
    # as docs/plugins.md's glossary, the web view and the Foundry module say; verify's
    # texts said «genehmigt» and «Genehmigung» beside «Freigabe» in the others
    "approval": {"de": ("Freigabe", re.compile(r"(?i)genehmig"))},
    # a reveal of verifiable dice: «aufdecken» (aufgedeckt, Aufdeckung), as the web view,
    # the Foundry module and the event's name say; verify's texts of the GM's seed said
    # «Offenlegung» beside «Aufdeckung», the restored-segment refusals «offengelegt»
    "reveal": {"de": ("aufgedeckt", re.compile(r"(?i)offenleg|offengelegt"))},
    # the Foundry module's setting, by the name its settings page shows
    "Server URL": {
        "cs": ("URL serveru", re.compile(r"Server URL")),
        "de": ("Server-URL", re.compile(r"Server URL")),
        "ru": ("URL сервера", re.compile(r"Server URL")),
    },
}


@pytest.mark.parametrize(
    ("term", "locale"), [(term, locale) for term in sorted(TERMS) for locale in TERMS[term]]
)
def test_a_term_has_one_word_in_every_text_of_a_language(term, locale):
    """The Czech connect help and a dice refusal called an NPC «CP» (cizí postava),
    every other Czech text «NPC»; the German CLI help called an actor «Akteur» seven
    times, everything else «Figur»; three Czech bandits refusals «aktér», the rest
    «postava»; sr2's Russian refusal of a track «трек», its own texts «монитор» and
    every other ruleset «шкала»; the Czech CLI help named the web view «webový náhled»
    beside serve's «webové zobrazení», and the Foundry module's setting «Server URL» in
    English where the module's settings page says «URL serveru» («Server-URL», «URL
    сервера»); the migrate texts called a segment of verifiable dice «Segment», «segment»,
    «сегмент», every other text «Abschnitt», «úsek», «отрезок» (and German its seed
    «Startwert» twice, «Seed» twenty times); verify's Russian texts of approvals called
    a request held for the GM «отложенный» (put off: «отложенный до начала журнала»
    read as a request put off until the log begins), every other text one that waits
    for the GM's approval; verify's German texts said an event was «genehmigt» (the
    GM's approval a «Genehmigung»), every other text «Freigabe», «freigegeben»; and a
    reveal «Offenlegung» (the GM's seed of a reveal, a restored segment's refusals)
    beside «Aufdeckung» and «aufgedeckt» everywhere else. One
    word each, as the rulesets' glossaries say."""
    word, others = TERMS[term][locale]
    texts = _texts_of(locale)
    assert not [(where, text) for where, text in texts if others.search(text)]
    assert any(word in text for _, text in texts)


_RULE_SUMMARY = re.compile(r"^[A-Z]{2}-\d+: (\S+)")


@pytest.mark.parametrize("locale", ("cs", "ru"))
def test_a_rule_summary_goes_on_in_lower_case_as_the_english_does(locale):
    """After a rule number's colon a summary goes on in lower case ("WD-4: the GM gives
    chips back"); the Russian read "WD-4: Мастер возвращает фишки" beside "WD-3:
    проверка параметра". A capital stays where the English has one (a trait's name)
    and in an abbreviation (PJ)."""
    capitals = []
    for domain in ("sr2", "techlevel", "bandits", "wilddie"):
        po = DOMAINS[domain][0] / "locale" / locale / "LC_MESSAGES" / f"{domain}.po"
        with po.open("rb") as file:
            for message in pofile.read_po(file, locale=locale):
                english = _RULE_SUMMARY.match(message.id if isinstance(message.id, str) else "")
                said = _RULE_SUMMARY.match(
                    message.string if isinstance(message.string, str) else ""
                )
                if english and said and english.group(1)[0].islower():
                    word = said.group(1)
                    if word[0].isupper() and not word.isupper():
                        capitals.append((domain, message.context, message.string))
    assert not capitals, capitals


#: The German informal "du": its imperatives and pronouns (case matters: "Stelle",
#: a place, is a noun; "stelle" the imperative).
_DU = re.compile(
    r"\b(Korrigiere|korrigiere|Starte|starte|stelle|prüfe|Prüfe|gib|Gib|setze|Setze|lösche|"
    r"Lösche|warte|Warte|beende|Beende|bewahre|Bewahre|füge|Füge|tippe|Tippe|betreibe|Betreibe|"
    r"nutze|Nutze|nimm|Nimm|du|Du|dich|dir|Dir|dein|deine|deinen|deiner|deines)\b"
)


@pytest.mark.parametrize("domain", sorted(DOMAINS))
def test_german_addresses_its_reader_as_sie_throughout(domain):
    """The German catalogues say "Sie" (geben Sie, prüfen Sie: some eighty times); the
    Redis texts said "Korrigiere …, starte …", "stelle es zurück", a damaged reply
    "stelle sie … wieder her": the same operator addressed two ways."""
    po = DOMAINS[domain][0] / "locale" / "de" / "LC_MESSAGES" / f"{domain}.po"
    with po.open("rb") as file:
        catalogue = pofile.read_po(file, locale="de")
    informal = []
    for message in catalogue:
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        informal += [
            (message.context, hit.group()) for s in strings for hit in _DU.finditer(s or "")
        ]
    assert not informal, informal


def test_german_addresses_the_web_views_and_foundrys_reader_as_sie_too():
    """The Foundry module's German said "Sie" in its notices and dialogs, and "Prüfe das
    Token", "füge deines … ein", "tippe /rb …", "Betreibe rollbridge hinter TLS und
    nutze …", "Nimm … lieber wss://" in seven others: the same player addressed two
    ways on one screen. Every German text of both lang folders says "Sie"."""
    informal = [
        (where, hit.group())
        for where, text in _texts_of("de")
        if where.startswith(("webui.", "module."))
        for hit in _DU.finditer(text)
    ]
    assert not informal, informal


def _german_and_english() -> list[tuple[str, str, str]]:
    """Every German text with where it is and the English it translates: each
    catalogue's (its msgid) and the lang folders' (the same key of ``en.json``)."""
    pairs = [(where, english, german or "") for where, english, german in _catalogue_texts("de")]
    for folder in LANG_FOLDERS:
        english = _lang_words(folder, "en")
        pairs += [(at, english.get(at, ""), text) for at, text in _lang_words(folder, "de").items()]
    return pairs


def test_a_german_capital_sie_is_the_reader():
    """German's «Sie» is the reader, and «sie» a thing («they»): a capital «Sie» at a
    sentence's start is both. The Foundry module's odds said «Keine Chancen: Sie hingen
    davon ab, was der Spielleiter … verborgen hält» (the odds would depend …), among
    notices that say «Sie» to the player: it read «you would depend». A capital «Sie»
    not after the verb it goes with («Prüfen Sie») stands where the English says
    «you»."""
    they = [
        (where, german)
        for where, english, german in _german_and_english()
        for hit in re.finditer(r"\bSie\b", german)
        if not re.search(r"\w\s+$", german[: hit.start()]) and not re.search(r"(?i)\byou", english)
    ]
    assert not they, they


#: The common statuses (the damage state's ``status``), in their order.
STATUSES = ("ok", "impaired", "down", "dying", "dead")


def _translation(domain: str, locale: str, context: str) -> str:
    """The translation of the message ``context`` in ``domain``'s ``locale`` catalogue."""
    po = DOMAINS[domain][0] / "locale" / locale / "LC_MESSAGES" / f"{domain}.po"
    with po.open("rb") as file:
        catalogue = pofile.read_po(file, locale=locale)
    return next(message.string for message in catalogue if message.context == context)


def _status_words(locale: str) -> dict[str, tuple[str, ...]]:
    """Each place's words for the common statuses in ``locale``: the CLI's, sr2's and
    techlevel's (which name the status in their lines), the web view's and the
    Foundry module's."""
    keys = {"rollbridge": "cli.status.", "sr2": "status.", "techlevel": "status."}
    places = {
        domain: tuple(_translation(domain, locale, key + status) for status in STATUSES)
        for domain, key in keys.items()
    }
    lang = {
        "web": ROOT / "core" / "server" / "webui" / "lang",
        "foundry": ROOT / "adapters" / "foundry" / "module" / "lang",
    }
    for name, folder in lang.items():
        words = json.loads((folder / f"{locale}.json").read_text(encoding="utf-8"))
        places[name] = tuple(words["ROLLBRIDGE"]["ActorStatus"][s] for s in STATUSES)
    return places


@pytest.mark.parametrize("locale", TRANSLATED)
def test_each_status_reads_the_same_everywhere(locale):
    """One word per status in each language: the CLI, the server's lines, the web view
    and the Foundry module (a status named two ways reads as two states)."""
    places = _status_words(locale)
    assert len(set(places.values())) == 1, places


@pytest.mark.parametrize("locale", TRANSLATED)
def test_the_impaired_status_is_not_the_shaken_condition(locale):
    """The common status *impaired* (wounded, still acting) is another word than the
    wild die's condition Shaken: German read *angeschlagen* for both, so a wounded
    wilddie character who was not Shaken showed «angeschlagen» without the condition
    (German: *beeinträchtigt*, the editions' *Angeschlagen* kept for Shaken)."""
    shaken = _translation("wilddie", locale, "state.shaken").casefold()
    for place, words in _status_words(locale).items():
        assert words[STATUSES.index("impaired")].casefold() != shaken, place


def test_the_russian_down_is_out_of_the_fight_as_the_rulesets_say():
    """Russian said «без сознания» (unconscious) for the common status ``down``, which
    Czech and German say as "out of the fight" (mimo boj, kampfunfähig): a wilddie
    NPC out of the fight read «Guard: без сознания; состояния: Превозмогает боль, Вне
    боя», a bandits extra who «выходит из боя» (the seed) unconscious too. The status
    is the rulesets' «вне боя»; sr2's condition «Без сознания» still says when it is
    unconsciousness."""
    out = _translation("wilddie", "ru", "wounds.incapacitated")
    assert out == "вне боя" == _translation("bandits", "ru", "harm.effect.out")
    for place, words in _status_words("ru").items():
        assert words[STATUSES.index("down")] == out, place


#: A botch (all dice show 1, SR-3) in the CLI's statistics line, the web view's and the
#: Foundry module's die tags, and sr2's own lines: one word in each language.
BOTCH = {
    "cs": ("kritické neúspěchy", "kritický neúspěch"),
    "de": ("Patzer", "Patzer"),
    "ru": ("критических провалов", "критический провал"),
}


@pytest.mark.parametrize("locale", sorted(BOTCH))
def test_a_botch_is_one_word_in_the_cli_the_web_view_and_sr2(locale):
    """`table stats` said «fiaska» in Czech and «провалов» (failures, the web view's
    word for a failed die) in Russian where the web view, Foundry and sr2 say
    kritický neúspěch and «критический провал»."""
    counted, word = BOTCH[locale]
    assert f", {counted} {{botches}}," in _translation("rollbridge", locale, "cli.stats.line")
    assert _translation("sr2", locale, "test.botch") == word
    tags = {
        ROOT / "core" / "server" / "webui" / "lang": ("Web", "Dice", "Tag"),
        ROOT / "adapters" / "foundry" / "module" / "lang": ("Card", "Tag"),
    }
    for folder, path in tags.items():
        words = json.loads((folder / f"{locale}.json").read_text(encoding="utf-8"))["ROLLBRIDGE"]
        for step in path:
            words = words[step]
        assert words["botch"] == word, folder


def _cli_kinds(locale: str) -> dict[str, tuple[str, str]]:
    """The CLI's word for each kind of event (``cli.kind.*``): its English and
    ``locale``'s."""
    po = DOMAINS["rollbridge"][0] / "locale" / locale / "LC_MESSAGES" / "rollbridge.po"
    with po.open("rb") as file:
        catalogue = pofile.read_po(file, locale=locale)
    return {
        message.context: (message.id, message.string)
        for message in catalogue
        if message.context and message.context.startswith("cli.kind.")
    }


def _web_kinds(locale: str) -> dict[str, str]:
    lang = ROOT / "core" / "server" / "webui" / "lang" / f"{locale}.json"
    return json.loads(lang.read_text(encoding="utf-8"))["ROLLBRIDGE"]["Web"]["Kind"]


@pytest.mark.parametrize("locale", TRANSLATED)
def test_an_event_kind_reads_the_same_in_the_cli_and_the_web_view(locale):
    """The same event named two ways: «úprava» in `connect` and «upraveno» on the web
    page, «кости выданы» and «кости вытянуты», «Würfel aufgedeckt» and «Würfel
    offengelegt», a redo «повтор» in the CLI and «возврат» beside the web's «Вернуть»
    button. Each kind both name (by its English) reads one way."""
    english, web = _web_kinds("en"), _web_kinds(locale)
    apart = []
    for context, (word, said) in _cli_kinds(locale).items():
        for key in (key for key, en in english.items() if en == word):
            if web[key] != said:
                apart.append((context, said, web[key]))
    assert not apart, apart
