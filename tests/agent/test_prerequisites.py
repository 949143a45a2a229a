"""Prerequisite tools: a parameter description that names another tool of the same server."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from nika.agent._prerequisites import prerequisites, server_of
from nika.agent.seams import ToolDefinition, ToolName


def _tool(name: str, **params: str) -> ToolDefinition:
    properties: dict[str, Any] = {
        key: {"type": "string", "description": text} for key, text in params.items()
    }
    return ToolDefinition(ToolName(name), "A tool.", {"type": "object", "properties": properties})


SEARCH = _tool("mcp:cars/Search_Car_Rentals", query="A city or an airport.")
BY_COORDINATES = _tool("mcp:cars/searchCarRentalsByCoordinates", lat="Latitude.")


def test_a_tool_named_in_a_parameter_description_is_a_prerequisite() -> None:
    details = _tool(
        "mcp:cars/Vehicle_Details",
        vehicle_id="Retrieved from `api/v1/cars/searchCarRentals`**(Search Car Rentals)**.",
    )
    assert prerequisites([details, SEARCH]) == {
        "mcp:cars/Vehicle_Details": ("mcp:cars/Search_Car_Rentals",)
    }


def test_any_spelling_that_splits_into_the_name_words_counts() -> None:
    for text in ("use search_car_rentals first", "see searchCarRentals", "SEARCH CAR RENTALS"):
        assert prerequisites([_tool("mcp:cars/book", id=text), SEARCH]) == {
            "mcp:cars/book": ("mcp:cars/Search_Car_Rentals",)
        }, text


def test_the_longest_name_at_a_position_wins() -> None:
    book = _tool("mcp:cars/book", id="From Search Car Rentals By Coordinates, not the other.")
    assert prerequisites([book, SEARCH, BY_COORDINATES]) == {
        "mcp:cars/book": ("mcp:cars/searchCarRentalsByCoordinates",)
    }


def test_several_names_keep_the_order_of_parameters_then_text() -> None:
    book = _tool(
        "mcp:cars/book",
        z_id="Search Car Rentals",
        a_id="Search car rentals by coordinates, or search car rentals.",
    )
    assert prerequisites([book, SEARCH, BY_COORDINATES])["mcp:cars/book"] == (
        "mcp:cars/searchCarRentalsByCoordinates", "mcp:cars/Search_Car_Rentals"
    )  # fmt: skip


def test_only_the_same_server_one_word_names_and_unambiguous_phrases_count() -> None:
    other_server = _tool("mcp:fx/exchange_rate")
    translate = _tool("mcp:cars/translate")
    twin_a, twin_b = _tool("mcp:cars/get_quote"), _tool("mcp:cars/v2/get_quote")
    twin_c = _tool("mcp:cars/getQuote")
    uses = _tool(
        "mcp:cars/pay",
        a="In this case EXCHANGE_RATE.",  # another server's tool: a coincidence
        b="Translate the label.",  # a one-word name is an ordinary word
        c="The id from get quote.",  # two tools of this server read "get quote"
    )
    assert prerequisites([uses, other_server, translate, twin_a, twin_b, twin_c]) == {}
    assert server_of("mcp:cars/v2/get_quote") == "mcp:cars/v2"
    assert server_of("nika:read") == "nika"
    assert server_of("search_hotels") == server_of("get_hotel") == ""
    bare = _tool("get_hotel", hotel_id="The id from search hotels.")
    assert prerequisites([bare, _tool("search_hotels")]) == {"get_hotel": ("search_hotels",)}


def test_a_sibling_is_named_without_the_family_name_when_written_as_a_name() -> None:
    airport = _tool("mcp:api/SkyScrapperSearchAirport")
    location = _tool("mcp:api/TripadvisorSearchLocation")
    offers = _tool("mcp:api/Product_Search_Product_Offers")
    flights = _tool(
        "mcp:api/SkyScrapperFlightSearch",
        origin="The code can be extracted from the Search Airport API in the Flights collection.",
    )
    hotels = _tool("mcp:api/TripadvisorSearchHotels", geo="From the Search Location API.")
    found = prerequisites([airport, location, offers, flights, hotels])
    assert found == {
        "mcp:api/SkyScrapperFlightSearch": ("mcp:api/SkyScrapperSearchAirport",),
        # shared: tripadvisor search; the short name keeps two words (search location)
        "mcp:api/TripadvisorSearchHotels": ("mcp:api/TripadvisorSearchLocation",),
    }
    # Lower case is prose, not a name; a one-word rest is an ordinary word; a tool of another
    # family (no shared first word) is never named short.
    prose = _tool("mcp:api/Product_Search_Details", sort="Sort product offers by price.")
    short = _tool("mcp:api/TripadvisorSearchRestaurants", geo="The Location of the city.")
    stranger = _tool("mcp:api/Weather_Now", q="A city, or an airport from Search Airport.")
    assert prerequisites([offers, prose, location, short, airport, stranger]) == {}


def test_a_full_name_wins_over_a_family_short_name() -> None:
    # "Search Location" is the full name of one tool and a short name of a sibling.
    plain = _tool("mcp:api/Search_Location")
    sibling = _tool("mcp:api/Trip_Search_Location")
    hotels = _tool("mcp:api/Trip_Hotels", geo="From Search Location.")
    assert prerequisites([plain, sibling, hotels]) == {
        "mcp:api/Trip_Hotels": ("mcp:api/Search_Location",)
    }


def test_a_tool_naming_itself_or_nothing_requires_nothing() -> None:
    itself = _tool("mcp:cars/Search_Car_Rentals", page="Next page of search car rentals.")
    assert prerequisites([itself]) == {}
    assert prerequisites([ToolDefinition(ToolName("mcp:cars/a_b"), "x", {"properties": 3})]) == {}


@given(st.permutations(range(4)))
def test_the_result_does_not_depend_on_universe_order(order: list[int]) -> None:
    tools = [
        SEARCH,
        BY_COORDINATES,
        _tool("mcp:cars/Vehicle_Details", id="from Search Car Rentals"),
        _tool("mcp:cars/Get_Packages", id="Vehicle Details, or search car rentals by coordinates"),
    ]
    assert prerequisites([tools[i] for i in order]) == prerequisites(tools)
