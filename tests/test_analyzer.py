"""The text analyzer: scripts, identifiers, compounds, filler, stemming, determinism."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nika.analyzer import STOP_WORDS, SUBWORD_MARK, subwords, terms, tokenize, words

# --- identifiers and Latin text ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("mcp:github/create_issue", ["mcp", "github", "creat", "issu"]),
        ("nika:read", ["nika", "read"]),
        ("a.b_c:e/f", []),  # one-letter tokens carry no signal
        ("getHTTPResponse", ["http", "respons"]),  # "get" is filler
        ("HTTPServer", ["http", "server"]),
        ("listS3Buckets", ["list", "s3", "bucket"]),
        ("oauth2Token ec2 utf8", ["oauth2", "token", "ec2", "utf8"]),  # digits: no stemming
        ("ISSUE_ID issue_id IssueId", ["issu", "id", "issu", "id", "issu", "id"]),
        ("line 42 of the file.txt", ["line", "file", "txt"]),  # bare numbers, stop words
        ("", []),
    ],
)
def test_identifiers_split_and_stem(text: str, expected: list[str]) -> None:
    assert tokenize(text) == expected


def test_inflections_meet_their_stem() -> None:
    assert tokenize("restaurants booking searched") == tokenize("restaurant book search")
    assert tokenize("Reservations") == tokenize("reservation")


def test_nfkc_and_casefold() -> None:
    assert tokenize("ＧｉｔＨｕｂ") == tokenize("GitHub") == ["git", "hub"]
    assert tokenize("STRASSE") == tokenize("Straße") == tokenize("straße")  # casefold: ß is ss
    assert tokenize("ﬁle") == tokenize("file")  # the fi ligature folds


# --- compounds and filler -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("to-do list", ["todo", "list"]),  # "to" and "do" are filler: only the compound stays
        ("e-mail", ["mail", "email"]),
        ("check-in", ["check", "checkin"]),
        ("ToDo items", ["todo", "item"]),
        ("real-time", ["real", "time"]),  # no filler part: just split
        ("create-pull-request-now", ["creat", "pull", "request"]),
        ("covid-19", ["covid"]),  # a number part: no join
    ],
)
def test_hyphenated_compounds(text: str, expected: list[str]) -> None:
    assert tokenize(text) == expected


def test_todo_written_three_ways_matches() -> None:
    assert "todo" in tokenize("to-do") and "todo" in tokenize("todo") and "todo" in tokenize("ToDo")


def test_chat_filler_is_dropped() -> None:
    assert tokenize("hey, could you please help me with how many of my things, thanks!") == []
    assert {"please", "help", "how", "many", "my", "thanks", "do"} <= STOP_WORDS
    assert tokenize("please book a table") == ["book", "tabl"]


# --- scripts ----------------------------------------------------------------------------------


def test_cjk_runs_become_bigrams_with_filler_cut_out() -> None:
    # 帮我 (help me) and 一下 (a bit) are filler; the single 查 stays a unigram.
    assert tokenize("请帮我查一下北京的天气") == ["查", "北京", "京的", "的天", "天气"]
    assert tokenize("谢谢") == []
    assert tokenize("東京の天気を教えてください") == ["東京", "京の", "の天", "天気", "気を"]


def test_a_script_change_splits_an_unspaced_run() -> None:
    assert tokenize("查询github上的issue状态") == ["查询", "github", "上的", "issu", "状态"]


def test_hangul_is_bigrammed() -> None:
    assert tokenize("서울 날씨를 알려주세요") == ["서울", "날씨", "씨를", "알려"]


def test_thai_is_bigrammed_without_marks() -> None:
    got = tokenize("ช่วยดูพยากรณ์อากาศหน่อยครับ")  # help / a bit / polite particle: filler
    assert got[:3] == ["ดพ", "พย", "ยา"]
    assert "ชว" not in got and "ครบ" not in "".join(got)
    # The same word with and without its tone and vowel marks meets itself.
    assert set(tokenize("พยากรณ์อากาศ")) <= set(got)


def test_arabic_words_are_normalised_and_stemmed() -> None:
    got = tokenize("من فضلك ابحث عن رحلات إلى لندن")  # please / about / to: filler
    assert got == ["ابحث", "رحلا", "لند"]
    assert tokenize("رِحْلَات") == tokenize("رحلات")  # harakat are dropped


def test_cyrillic_and_greek_stem_in_their_language() -> None:
    assert tokenize("погода погоды") == ["погод", "погод"]
    assert len(set(tokenize("καιρός καιρού"))) == 1


# --- subwords and words -------------------------------------------------------------------------


def test_arabic_root_forms_meet_through_subword_bigrams() -> None:
    # The imperative "convert" and the noun "conversion": different stems, one root.
    imperative, noun = tokenize("حول"), tokenize("تحويل")
    assert set(imperative).isdisjoint(noun)
    assert set(subwords(imperative)) & set(subwords(noun)) == {"#حو"}
    assert all(term.startswith(SUBWORD_MARK) for term in subwords(noun))


@pytest.mark.parametrize(
    "text", ["rent rentals", "s3 bucket", "北京天气", "พยากรณ์อากาศ", "naïve façade", ""]
)
def test_latin_cjk_and_thai_terms_have_no_subwords(text: str) -> None:
    assert subwords(tokenize(text)) == []


def test_subwords_cover_other_spaced_scripts_and_lone_letters() -> None:
    assert subwords(["мир", "ש"]) == ["#ми", "#ир", "#ש"]
    assert subwords(["абв2"]) == []  # identifiers with digits keep their spelling only


def test_words_split_identifiers_and_keep_everything_else() -> None:
    assert words("api/v1/cars/searchCarRentals (Search Car Rentals) the_v2 HTTPServer") == [
        "api", "v1", "cars", "search", "car", "rentals", "search", "car", "rentals", "the",
        "v2", "http", "server",
    ]  # fmt: skip
    assert words("Ｓｅａｒｃｈ_Hotels") == ["search", "hotels"]


def test_words_can_keep_their_case() -> None:
    text = "the Search Airport API, searchCarRentals, HTTPServer"
    kept = words(text, fold=False)
    assert kept == ["the", "Search", "Airport", "API", "search", "Car", "Rentals", "HTTP",
                    "Server"]
    assert [w.casefold() for w in kept] == words(text)


# --- terms and determinism -------------------------------------------------------------------

_ALPHABET = "aZé9_-:/. \nxYQq0北京天气のを서울ช่วยالبحثـ\u0301ＧẞLlC"


@given(st.text(alphabet=st.sampled_from(_ALPHABET), max_size=60))
def test_terms_is_the_set_of_tokens(text: str) -> None:
    assert terms(text) == set(tokenize(text))


_SCRIPT = """
import json
from nika.agent.config import AgentConfig
from nika.agent.router import RouteContext, ToolRouter
from nika.agent.seams import ToolDefinition, ToolName
words = ["weather", "天气预报", "날씨", "พยากรณ์อากาศ", "الطقس", "restaurant", "レストラン", "to-do"]
tools = [ToolDefinition(ToolName(f"mcp:s{i % 5}/tool_{i}"),
                        " ".join(words[j % len(words)] for j in range(i, i + 1 + i % 3)), {}, "mcp")
         for i in range(80)]
router = ToolRouter(tools, AgentConfig())
for text in ("北京天气预报", "서울 날씨", "พยากรณ์อากาศ", "الطقس", "restaurants to-do"):
    print(json.dumps(router.rank(RouteContext(text, "", (), frozenset()))))
"""


def test_rankings_are_identical_across_processes_and_hash_seeds() -> None:
    outputs = []
    for seed in ("0", "1", "4242"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run(
            [sys.executable, "-c", _SCRIPT], capture_output=True, env=env, check=True
        )
        outputs.append(done.stdout)
    assert outputs[0] == outputs[1] == outputs[2]
    assert outputs[0].count(b"mcp:") >= 5 * 10
