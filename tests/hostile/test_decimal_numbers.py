"""Numbers with a fraction read in their reader's language.

Czech, German and Russian write a decimal comma ("0,5") and group digits with a
no-break space or a point; a percentage takes a no-break space before its sign
("13,9 %"). Before, a message's float argument, the terminal's odds and statistics
and the HTTP rate's refusal kept Python's English point in every language: a German
operator read "0.1 pro Sekunde", a Czech GM "13.8889%".
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from babel.numbers import format_decimal, format_percent, get_decimal_symbol

from rollbridge import i18n
from rollbridge.cli.odds import render_odds
from rollbridge.odds import distribution
from rollbridge.server.address_rates import TOO_FAST
from rollbridge.text import Messages, render
from tests.hostile.wire import http_get

NBSP = "\u00a0"


def test_each_language_writes_its_decimal_point_and_percent_as_cldr_says():
    assert set(i18n.DECIMAL_SEPARATORS) == set(i18n.LOCALES) == set(i18n.PERCENT_SIGNS)
    for locale in i18n.LOCALES:
        assert i18n.DECIMAL_SEPARATORS[locale] == get_decimal_symbol(locale), locale
        # the language's own percent pattern: "50%" or "50 %" (a no-break space)
        assert format_percent(0.5, locale=locale) == "50" + i18n.PERCENT_SIGNS[locale], locale


@pytest.mark.parametrize("locale", i18n.LOCALES)
@pytest.mark.parametrize(
    ("value", "spec", "pattern"),
    [(-12345.678, ",.3f", "#,##0.000"), (0.5, ".1f", "0.0"), (1234567.25, ",.2f", "#,##0.00"),
     (2.0, ".2f", "0.00")],
)  # fmt: skip
def test_a_number_reads_as_babel_writes_it(locale, value, spec, pattern):
    assert i18n.number(value, spec, locale) == format_decimal(value, pattern, locale=locale)


def test_a_region_or_an_unknown_language_is_read_by_its_language():
    assert i18n.number(0.5, locale="de-AT") == "0,5"
    assert i18n.number(0.5, locale="ru_RU.UTF-8") == "0,5"
    assert i18n.number(1234.5, ",", "xx") == "1,234.5"  # not spoken: as English
    assert i18n.percent(0.138889, ".4f", "cs") == f"13,8889{NBSP}%"
    assert i18n.percent(0.138889, ".4f", "en") == "13.8889%"


def test_a_float_argument_of_a_text_reads_in_the_readers_language():
    say = Messages("decimal_tests")
    line = say("decimals", "{plain} and {fixed:.2f} of {many:,.1f}; {count} ({big:,})")
    shown = line(plain=0.5, fixed=2.25, many=12345.5, count=3, big=1234567)
    assert render(shown, locale="en") == "0.5 and 2.25 of 12,345.5; 3 (1,234,567)"
    # untranslated here: the English template, with the language's symbols
    assert render(shown, locale="de") == "0,5 and 2,25 of 12.345,5; 3 (1.234.567)"
    assert render(shown, locale="cs") == f"0,5 and 2,25 of 12{NBSP}345,5; 3 (1{NBSP}234{NBSP}567)"
    no_spec = say("decimal_plain", "try again in {seconds} s")
    assert render(no_spec(seconds=0.25), locale="ru") == "try again in 0,25 s"
    assert render(no_spec(seconds=0.25), locale="en") == "try again in 0.25 s"


def test_the_http_rate_refusal_reads_in_the_readers_language():
    refusal = TOO_FAST(rate=0.5, burst=5, seconds=1.25)
    english = render(refusal, locale="en")
    assert "takes 0.5 a second, 5 at once" in english and "in 1.25 s" in english
    german = render(refusal, locale="de")
    assert "0,5 pro Sekunde an, 5 auf einmal" in german and "in 1,25 s" in german, german


def test_the_terminals_odds_read_in_the_readers_language():
    odds = distribution("2d6+1d3")
    english = "\n".join(render_odds(odds, "en"))
    assert "13.8889%" in english and "(about 9)" in english
    for locale in ("cs", "de", "ru"):
        shown = "\n".join(render_odds(odds, locale))
        assert f"13,8889{NBSP}%" in shown, shown
        assert "13.8889" not in shown
    halves = "\n".join(render_odds(distribution("1d2/2"), "de"))  # a total that is a fraction
    assert "1/2 (≈0,5)" in halves, halves
    assert "(etwa 0,75)" in halves, halves  # the mean's decimal
    assert Fraction(3, 4) == distribution("1d2/2").mean


async def test_a_served_http_refusal_reads_in_the_language_asked_for(serve):
    served = serve("--trusted-proxy", "127.0.0.1", "--http-rate-per-address", "0.1")
    flooder = {"X-Forwarded-For": "203.0.113.9", "Accept-Language": "de-DE,de;q=0.9"}
    statuses = [(await http_get(served.port, "/healthz", flooder))[0] for _ in range(3)]
    assert statuses.count(429) >= 2, statuses
    status, _, body = await http_get(served.port, "/healthz", flooder)
    assert status == 429
    message = json.loads(body)["message"]
    assert "0,1 pro Sekunde an, 1 auf einmal" in message, message


def test_the_terminals_odds_reply_keeps_its_percent_column_in_every_language():
    """``connect``'s odds lines padded percentages to 9 characters: "100,0000 %" (10
    in Czech, German and Russian) pushed its row one character out of line."""
    from rollbridge.cli.odds import odds_reply_lines

    reply = {"distribution": {"formula": "1d2", "depth": 10, "truncated": "0",
                              "outcomes": [{"total": 1, "probability": "1"},
                                           {"total": 2, "probability": "1/20"}]}}  # fmt: skip
    for locale in ("en", "cs"):
        rows = [line for line in odds_reply_lines(reply, locale) if line.endswith("%")]
        assert len(rows) == 2 and len({len(line) for line in rows}) == 1, rows


@pytest.mark.parametrize(
    ("wait", "said", "told"),
    [(0.2501, "0,251 s", 0.251), (9.9981, "9,999 s", 9.999), (598.0131, "599 s", 598.014),
     (10.0, "10 s", 10.0)],
)  # fmt: skip
def test_a_long_wait_is_said_in_whole_seconds_and_kept_to_the_millisecond(wait, said, told):
    """A wrong-token lockout of ten minutes read "598,014 s" in German: a wait of
    minutes said to the millisecond. From 10 s on the message says whole seconds,
    rounded up (the client is let through then); ``retry_after`` keeps the
    millisecond a program waits by."""
    from rollbridge.protocol.connection import wrong_tokens_refusal
    from rollbridge.protocol.limits import TokenRefusal

    refused = wrong_tokens_refusal(TokenRefusal(wait))
    assert refused.details["retry_after"] == told
    assert refused.text is not None and f"Tokens; {said} lang wird" in refused.text.render("de")
