"""What users said in Mandarin and English (2026-12-06, tenth test drive) and was misread.

- The table: "name's Kevin, K E V I N, Park" kept Kevin and the turn was "I see." (the spelling and the
  surname after it are the name: Kevin Park; "Shawn, that's S E A N" is Sean); "the name is, uh, P A R K"
  read no name (a pause filled after the word of asking is no end of what is asked for).
- The table: "me, my wife and our two kids" and "me and two friends" were no party; 两个人，三个孩子 was a
  party of 2 and 我跟老婆孩子三个 of 2 (who comes is counted; a total said after them is the party; people
  said whole and more besides are added).
- The car: "turn up the fan, no I mean the volume" turned the fan up; "open the sunroof, no I mean the back
  windows" did nothing and said the sunroof was beyond it; 把空调打开，不对，是座椅加热 turned the air
  conditioning on (the command said before a slip is for the thing named after it); 在加油站停一下，不对，充电站
  kept the petrol station (the value said alone after a slip replaces the one before it); 不走高速啊，我是说不走收费
  的路 kept both (a key that holds several keeps one put right, unless the second is said as one more).
- The car: "I'm driving to Lake Tahoe" set no route; "directions to uh, it's a town called Ojai" set the route for
  "uh"; "four twenty five Mission Street" was no place; "downtown Fresno" was "downtown"; "add a rest stop" and
  "one more notch" (after the fan went up) were "I see."
- The car: 那个风量小一点，太吵了 turned the volume down too (noise beside another command is its reason).
- The table: "I'm looking for a thai place, something not too expensive" was "Hi! What can I do for you?" and "I want
  italian" was "Noted: Italian cuisine. What can I do for you?" (a kind of place looked for is the task); "can you
  find me a sushi place downtown" asked to drop the sushi (the food a place is sought for is asked about last) and
  "sure" then asked the day with no place named; "a group of like eight" was 8 pm; "let's do Pier 9" (Pier 9
  Oyster Bar) was "not something I can do".
- Customer service: "a hundred and twenty dollars" was $20; "call me at 4 1 5 5 5 5 6 6 7 2" was a call at 4 pm;
  "t kim 88 at yahoo dot com" was 88@yahoo.com; "hi yeah I got my order and the blender was broken" and "my package
  never showed up" noted nothing for the ticket.
- The car: 还是去吧，就刚才那个地方 after the route was called off was "嗯，明白。"; 中途停一下，我想买杯咖啡
  added no stop.
- The table in Chinese: 这个月二十号 was no date; 有个朋友不吃海鲜 kept the wish "有个朋友不吃" beside no seafood.
- Customer service in Chinese: 短信通知我就行 was a note, 电话联系我 and 邮件吧 nothing.
- The car: "uh a little more" while the temperature was asked was "I didn't quite get what you need"; "no I mean
  Santa Monica Pier" just after the route was set asked "should I change it?". The table: "the fancy one please" named
  no fancier place.
- The car: "turn on the radio, ninety eight point five FM" played no station; "open the sunroof instead and close
  the windows" closed nothing; 大概几点能到？ was "这个我不太确定". Customer service in Chinese: 电饭煲开不了机了 noted
  nothing; 还少发了一个盖子 asked for a sum; 把多扣的钱退给我 noted "把多扣的钱". Long-term recall: a query with
  今天 and nothing today recalled itself until Python stopped it.
- A review of these fixes found them too wide; these must stay as they were: an apology between two values of a key
  that holds several adds the second ("no nuts, sorry, no pork"); "the name is, uh, let me think" names nobody; a word
  after a spelling that says something else (Friday, Italian) is no surname; 我跟老婆，孩子不去 is two; "me and my wife
  and two clients" says no size; "my family of five can't make it" is no party of five; "the Four Seasons" keeps its
  name; "she's driving to Reno tonight" sets no route; 我已经邮件联系过你们了 says no way to be reached; "I fancy some
  Italian" says no price; "sorry to bother you, …" is no correction; 温度还是按原来的吧 takes no route up again.
- Every domain: "okay go", 走吧, "ok" once the route was set or the table booked were "That's all set; anything
  else I can do?": what stands is said back.
"""

from __future__ import annotations

from typing import Any

import pytest

from fakes import policy_replies, rules_read


async def _chat(language: str, lines: list[str], domain: str) -> list[Any]:
    return await policy_replies(language, lines, domain)


# --- names spelled ----------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "expected"), [
    ("name's Kevin, K E V I N, Park", "Kevin Park"),
    ("my name is Shawn, that's S E A N", "Sean"),
    ("the name is, uh, P A R K", "Park"),
    ("the name's Siobhan, S I O B H A N, last name Kelly, K E L L Y", "Siobhan Kelly"),
    ("put it under Nguyen, N-G-U-Y-E-N, and it's for 4", "Nguyen"),
    ("name's Kevin, K E V I N, thanks", "Kevin"),       # no surname: a word that ends a turn
    ("name's Kevin, I think", "Kevin"),                  # "I" spells nothing
    ("名字是，呃，王磊", "王磊"),
])
def test_a_name_is_read_as_spelled(text: str, expected: str) -> None:
    assert rules_read("restaurant", text)["guest_name"] == [expected]


async def test_a_spelled_name_given_at_the_offer_is_taken() -> None:
    replies = await _chat("en", ["table for 2 tonight at 8", "name's Kevin, K E V I N, Park"], "restaurant")
    assert "under the name Kevin Park" in replies[-1].text


@pytest.mark.parametrize(("domain", "text", "key", "expected"), [
    ("in_car", "play, um, some Adele", "music_choice", "Adele"),
    ("in_car", "play, like, Drake", "music_choice", "Drake"),
])
def test_a_pause_filled_after_the_cue_is_no_end(domain: str, text: str, key: str, expected: str) -> None:
    assert rules_read(domain, text)[key] == [expected]


def test_a_filler_alone_is_asked_for_nothing() -> None:
    assert "music_choice" not in rules_read("in_car", "play, like, something chill")


# --- a party said as who comes ---------------------------------------------------------------------

@pytest.mark.parametrize(("text", "expected"), [
    ("it'll be me, my wife and our two kids", 4),
    ("me and two friends", 3),
    ("my husband, me, and my parents", 4),
    ("just me and my wife", 2),
    ("book a table for me and my best friend", 2),
    ("我和我老婆", 2),
    ("我跟老婆孩子三个", 3),
    ("我和老婆还有两个孩子", 4),
    ("我跟我爸妈", 3),
    ("两个人，三个孩子", 5),
    ("三个人带两个孩子", 5),
    ("two people and three kids", 5),
    # the party said whole, then its parts
    ("我们三个人，两个大人一个孩子", 3),
    ("三个人，两个孩子", 3),
    ("four people, two adults and two kids", 4),
])
def test_a_party_said_as_who_comes_is_counted(text: str, expected: int) -> None:
    assert rules_read("restaurant", text)["party_size"] == [expected]


@pytest.mark.parametrize("text", ["me, my wife and our kids", "me and the kids", "my wife is vegetarian",
                                  "我老婆不吃辣"])
def test_a_party_not_counted_is_no_size(text: str) -> None:
    assert "party_size" not in rules_read("restaurant", text)


async def test_a_party_said_as_who_comes_is_booked_for() -> None:
    replies = await _chat("en", ["I need a table for saturday at 7 for me, my wife and our two kids"], "restaurant")
    assert "for 4 people" in replies[-1].text


async def test_people_and_kids_besides_are_booked_for() -> None:
    replies = await _chat("zh", ["订周六晚上六点的位子，两个人，三个孩子"], "restaurant")
    assert "5个人" in replies[-1].text


# --- a slip in what a command is for ---------------------------------------------------------------

@pytest.mark.parametrize(("language", "text", "key", "expected"), [
    ("en", "turn up the fan, no I mean the volume", "volume", "up"),
    ("en", "open the sunroof, no I mean the back windows", "window", "open"),
    ("en", "turn on the heated seats, no wait, the AC", "air_conditioning", "on"),
    ("zh", "把空调打开，不对，是座椅加热", "seat_heating", "on"),
    ("zh", "打开天窗，不对，是后车窗", "window", "open"),
])
def test_the_command_before_a_slip_is_for_the_thing_meant(language: str, text: str, key: str,
                                                         expected: str) -> None:
    read = rules_read("in_car", text)
    assert read == {key: [expected]}


@pytest.mark.parametrize(("text", "key", "expected"), [
    ("turn the volume up, no I mean down", "volume", "down"),
    ("set it to 22, sorry, 23", "temperature", 23),
])
def test_a_value_put_right_is_not_a_thing_put_right(text: str, key: str, expected: object) -> None:
    assert rules_read("in_car", text, {"temperature": 21})[key] == [expected]


@pytest.mark.parametrize(("language", "lines", "expected", "not_expected"), [
    ("en", ["take me to Union Station", "turn up the fan, no I mean the volume"], "volume up", "fan"),
    ("en", ["take me to Union Station", "open the sunroof, no I mean the back windows"], "windows down",
     "sunroof"),
    ("en", ["take me to Union Station", "call my wife, and turn on the AC, no wait, the heated seats"],
     "seat heating", "air conditioning"),
    ("zh", ["去国家图书馆", "打开天窗，不对，是后车窗"], "车窗已经打开", "天窗"),
])
async def test_the_driver_hears_the_thing_meant_done(language: str, lines: list[str], expected: str,
                                                     not_expected: str) -> None:
    replies = await _chat(language, lines, "in_car")
    assert expected in replies[-1].text and not_expected not in replies[-1].text


@pytest.mark.parametrize(("language", "text", "held", "expected"), [
    ("zh", "在加油站停一下，不对，充电站", {}, {"stops": ["charging"]}),
    ("en", "stop at a pharmacy, no wait, a gas station", {}, {"stops": ["fuel"]}),
    ("zh", "那个，不走高速啊，我是说不走收费的路", {}, {"route_preference": ["avoid_tolls"]}),
    ("en", "avoid highways, I mean avoid tolls", {}, {"route_preference": ["avoid_tolls"]}),
])
def test_a_value_put_right_after_a_slip_replaces_it(language: str, text: str, held: dict[str, object],
                                                    expected: dict[str, list[object]]) -> None:
    assert rules_read("in_car", text, held) == expected


@pytest.mark.parametrize("text", ["不走高速，我是说也不走收费的路", "avoid highways, I mean and avoid tolls too"])
def test_one_more_value_after_a_slip_is_kept_beside_it(text: str) -> None:
    assert sorted(str(v) for v in rules_read("in_car", text)["route_preference"]) == ["avoid_highways", "avoid_tolls"]


@pytest.mark.parametrize(("text", "expected"), [
    ("hey I'm driving to Lake Tahoe, I wanna take the scenic route", "Lake Tahoe"),
    ("I'm on my way to Fresno", "Fresno"),
])
def test_driving_to_a_place_sets_the_route(text: str, expected: str) -> None:
    assert rules_read("in_car", text)["destination"] == [expected]


# --- a go-ahead once it is done -----------------------------------------------------------------------

@pytest.mark.parametrize(("language", "domain", "lines", "expected"), [
    ("en", "in_car", ["take me to Palo Alto, take the highway", "okay go"],
     "All set: I've set the route for Palo Alto, taking the highway this time."),
    ("zh", "in_car", ["导航去望京SOHO", "嗯，走吧"], "设好了路线：去望京SOHO"),
    ("en", "restaurant", ["book Chili House for 2 tonight at 8", "yes", "ok"],
     "All set: I've booked Chili House today at 8 pm for 2 people."),
])
async def test_a_go_ahead_once_done_hears_what_stands(language: str, domain: str, lines: list[str],
                                                      expected: str) -> None:
    replies = await _chat(language, lines, domain)
    assert expected in replies[-1].text


async def test_thanks_once_done_is_no_read_back() -> None:
    replies = await _chat("en", ["take me to Palo Alto", "thanks"], "in_car")
    assert "Palo Alto" not in replies[-1].text


# --- noise said as the reason for another command ----------------------------------------------------

@pytest.mark.parametrize(("language", "text", "expected"), [
    ("zh", "那个风量小一点，太吵了", {"fan_speed": ["down"]}),
    ("en", "turn the fan down, it's too loud", {"fan_speed": ["down"]}),
    ("zh", "太吵了，把窗户关上", {"window": ["closed"]}),
    # the volume named as well is turned down too; noise alone is the volume's
    ("en", "close the windows, and turn the music down, too loud", {"window": ["closed"], "volume": ["down"]}),
    ("zh", "把窗户关上，音乐也小点声，太吵了", {"window": ["closed"], "volume": ["down"]}),
    ("zh", "太吵了", {"volume": ["down"]}),
    ("en", "it's too loud", {"volume": ["down"]}),
])
def test_noise_beside_another_command_is_its_reason(language: str, text: str,
                                                    expected: dict[str, list[object]]) -> None:
    assert rules_read("in_car", text) == expected


# --- places said as people say them ---------------------------------------------------------------

@pytest.mark.parametrize(("text", "expected"), [
    ("um I need directions to uh, it's a town called Ojai, O J A I", "Ojai"),
    ("take me to uh Ojai", "Ojai"),
    ("take me to a restaurant called Nobu", "Nobu"),
    ("I need to get to four twenty five Mission Street, San Francisco", "425 Mission Street"),
    ("take me to twelve hundred Market Street", "1200 Market Street"),
    ("take me to one oh one Elm Street", "101 Elm Street"),
    ("take me to downtown Fresno please", "downtown Fresno"),
    ("take me to 42 Baker Street", "42 Baker Street"),
])
def test_a_place_is_read_past_a_pause_and_in_number_words(text: str, expected: str) -> None:
    assert rules_read("in_car", text)["destination"] == [expected]


async def test_an_address_in_number_words_is_driven_to() -> None:
    replies = await _chat("en", ["I need to get to four twenty five Mission Street, San Francisco",
                                 "okay then avoid tolls"], "in_car")
    assert "route for 425 Mission Street, no tolls" in replies[-1].text


@pytest.mark.parametrize(("language", "text"), [("en", "I'm kinda tired, add a rest stop along the way"),
                                                ("zh", "路上找个服务区休息一下")])
def test_a_rest_stop_is_a_stop(language: str, text: str) -> None:
    assert rules_read("in_car", text)["stops"] == ["rest_area"]


@pytest.mark.parametrize("again", ["one more notch", "uh one more notch", "another notch"])
async def test_one_more_notch_says_the_command_again(again: str) -> None:
    replies = await _chat("en", ["fan up a notch", again], "in_car")
    assert "turned the fan up" in replies[-1].text


# --- the table: looking for a place -------------------------------------------------------------------

@pytest.mark.parametrize(("lines", "expected"), [
    # a kind of place looked for is the task: a place that fits is named
    (["hi um I'm looking for a thai place, something not too expensive"], "Bangkok Garden, Thai, Uptown"),
    (["we're a group of like eight, looking for mexican food"], "Casa Lupita, Mexican, Uptown"),
    (["I want italian"], "What day would you like to go?"),
    # none fits: the place is asked to go before the food, and "sure" names the one that fits then
    (["can you find me a sushi place downtown"], "could we drop Downtown?"),
    (["can you find me a sushi place downtown", "sure"], "Sakura, Japanese, Riverside, would suit you."),
    (["book a table for 2 friday 7pm, korean food in chinatown", "ok drop chinatown"], "Seoul Kitchen"),
    # a name said without the kind of place it ends with
    (["seafood on the waterfront for my anniversary", "let's do Pier 9 then"], "What day would you like to go?"),
])
async def test_a_place_looked_for_is_found(lines: list[str], expected: str) -> None:
    replies = await _chat("en", lines, "restaurant")
    assert expected in replies[-1].text


async def test_a_lasting_preference_alone_starts_no_booking() -> None:
    replies = await _chat("en", ["my price range is moderate now"], "restaurant")
    assert "Noted: moderate price range." in replies[-1].text


@pytest.mark.parametrize(("text", "expected"), [
    ("we're a group of like eight, looking for mexican food", {"party_size": [8], "cuisine": ["mexican"]}),
    ("party of about 6", {"party_size": [6]}),
    ("we're a family of five", {"party_size": [5]}),
])
def test_a_group_of_so_many_is_the_party_not_the_hour(text: str, expected: dict[str, list[object]]) -> None:
    assert rules_read("restaurant", text) == expected


def test_at_around_eight_is_still_the_hour() -> None:
    assert rules_read("restaurant", "at around eight") == {"time": ["20:00"]}


# --- customer service: numbers and addresses said aloud -----------------------------------------------

@pytest.mark.parametrize(("text", "key", "expected"), [
    ("it was like a hundred and twenty dollars, charged two times", "amount", 120),
    ("call me at 4 1 5 5 5 5 6 6 7 2", "contact_phone", "4155556672"),
    ("email's fine, it's t kim 88 at yahoo dot com", "contact_email", "tkim88@yahoo.com"),
    ("it's jen 88 at gmail dot com", "contact_email", "jen88@gmail.com"),
    ("m j johnson at outlook dot com", "contact_email", "mjjohnson@outlook.com"),
])
def test_what_a_caller_says_aloud_is_written_right(text: str, key: str, expected: object) -> None:
    assert rules_read("customer_service", text)[key] == [expected]


@pytest.mark.parametrize(("text", "expected"), [("call me at 4", "16:00"), ("call me at 4 pm", "16:00")])
def test_an_hour_to_call_is_still_an_hour(text: str, expected: str) -> None:
    assert rules_read("customer_service", text)["contact_time"] == [expected]


def test_a_word_before_a_name_is_no_initial() -> None:
    assert rules_read("customer_service", "send it to a jen at gmail dot com")["contact_email"] == ["jen@gmail.com"]


@pytest.mark.parametrize(("text", "expected"), [
    ("hi yeah I got my order and the blender was broken when it arrived",
     "I got my order and the blender was broken when it arrived"),
    ("my package never showed up, it says delivered but it's not here", "my package never showed up"),
    ("hey so my order is like a week late", "my order is like a week late"),
])
def test_what_went_wrong_is_noted_for_the_ticket(text: str, expected: str) -> None:
    assert expected in rules_read("customer_service", text)["problem_details"]


def test_being_late_for_work_is_no_problem_with_an_order() -> None:
    assert "problem_details" not in rules_read("customer_service", "I'm late for work")


# --- the car: a place given up, taken up again; a stop said with what to buy --------------------------

@pytest.mark.parametrize(("language", "lines", "expected"), [
    ("zh", ["导航到奥林匹克森林公园南门", "算了，不去了，取消导航吧", "嗯……还是去吧，就刚才那个地方"],
     "去奥林匹克森林公园南门"),
    ("en", ["take me to the Getty Center", "cancel the navigation",
            "actually let's go after all, same place as before"], "route for Getty Center"),
])
async def test_the_route_given_up_is_taken_up_again(language: str, lines: list[str], expected: str) -> None:
    replies = await _chat(language, lines, "in_car")
    assert expected in replies[-1].text


@pytest.mark.parametrize("text", ["中途停一下，我想买杯咖啡", "我想买杯咖啡"])
def test_a_coffee_to_buy_on_the_way_is_a_stop(text: str) -> None:
    assert rules_read("in_car", text)["stops"] == ["coffee"]


def test_a_coffee_bought_is_no_stop() -> None:
    assert "stops" not in rules_read("in_car", "我刚买了杯咖啡")


@pytest.mark.parametrize(("text", "expected"), [("这个月二十号中午", "day 20"), ("本月20号", "day 20")])
def test_a_day_of_this_month_is_a_date(text: str, expected: str) -> None:
    assert rules_read("restaurant", text)["date"] == [expected]


def test_the_verb_of_a_value_is_no_wish() -> None:
    assert rules_read("restaurant", "呃，有个朋友不吃海鲜") == {"dietary": ["seafood"]}


@pytest.mark.parametrize(("text", "expected"), [
    ("电话联系我", "phone"), ("短信通知我就行", "text"), ("邮件吧", "email"), ("用短信联系我", "text"),
    ("别打电话，短信吧", "text"),
])
def test_how_to_be_reached_is_read_with_the_word_after_it(text: str, expected: str) -> None:
    assert rules_read("customer_service", text)["contact_method"] == [expected]


# --- asked again, offered again, put right at once ------------------------------------------------

async def test_a_little_more_after_the_heat_cranked_up_is_another_step() -> None:
    replies = await _chat("en", ["it's freezing in here, can you crank the heat up", "uh a little more"], "in_car")
    assert "a degree warmer" in replies[0].text and "a degree warmer" in replies[-1].text   # (eleventh drive)


async def test_the_fancy_one_offers_the_fancy_one() -> None:
    replies = await _chat("en", ["um do you know any good indian restaurants",
                                 "the fancy one please, it's a celebration"], "restaurant")
    assert "Saffron Court" in replies[-1].text


@pytest.mark.parametrize(("lines", "expected"), [
    (["navigate to Dodger Stadium", "no I mean Santa Monica Pier"], "route for Santa Monica Pier"),
    (["navigate to 1600 Amphitheatre Parkway in Mountain View", "oh hold on, I mean Palo Alto, University Avenue"],
     "route for Palo Alto, University Avenue"),
])
async def test_a_place_put_right_at_once_is_set_not_asked_about(lines: list[str], expected: str) -> None:
    replies = await _chat("en", lines, "in_car")
    assert expected in replies[-1].text


# --- long-term recall with a time word it cannot strip ----------------------------------------------

def test_recall_for_today_with_nothing_today_falls_back_once(tmp_path: Any) -> None:
    from monologue.memory.longterm.retrieval import Retriever
    from monologue.memory.longterm.stream import MemoryStream
    from monologue.memory.stores.memories import SqlMemoryStore

    from fakes import Clock, bag_of_words

    clock = Clock(1_800_000_000.0)
    stream = MemoryStream(SqlMemoryStore(tmp_path / "m.db"), "ann", embed=bag_of_words, clock=clock)
    stream.add("我喜欢走高速", session_id="s1")
    clock.advance(3)
    # (今天 names a window with nothing in it; the query once recalled itself until Python stopped it.)
    result = Retriever(stream).retrieve("今天赶时间，走高速没关系", k=3)
    assert [hit.record.text for hit in result.memories] == ["我喜欢走高速"]


# --- the car: a station by its frequency; the sunroof beside the windows; arrival asked ---------------

@pytest.mark.parametrize(("language", "text", "expected"), [
    ("en", "turn on the radio, ninety eight point five FM", "98.5 FM"),
    ("en", "one oh one point one fm please", "101.1 FM"),
    ("zh", "调频97.4", "FM 97.4"),
])
def test_a_station_by_its_frequency_is_played(language: str, text: str, expected: str) -> None:
    read = rules_read("in_car", text)
    assert read["music_choice"] == [expected] and read["media"] == ["playing"]


@pytest.mark.parametrize("text", ["wake me at eight am", "meet at 7 am"])
def test_an_hour_with_its_half_of_the_day_is_no_station(text: str) -> None:
    assert "music_choice" not in rules_read("in_car", text)


@pytest.mark.parametrize(("text", "expected"), [
    ("no wait, open the sunroof instead and close the windows", {"window": ["closed"]}),
    ("打开天窗，然后把车窗关上", {"window": ["closed"]}),
])
def test_the_sunroof_asked_beside_the_windows_leaves_the_windows_their_command(
        text: str, expected: dict[str, list[object]]) -> None:
    assert rules_read("in_car", text, {"window": "open"}) == expected


async def test_when_we_arrive_asked_in_chinese_is_answered() -> None:
    replies = await _chat("zh", ["我要去颐和园北宫门", "大概几点能到？"], "in_car")
    assert "看不到行程时间" in replies[-1].text


# --- customer service in Chinese: what went wrong -------------------------------------------------

@pytest.mark.parametrize(("text", "expected"), [
    ("电饭煲开不了机了", ["电饭煲开不了机了"]),
    ("收到的杯子碎了一个，还少发了一个盖子", ["收到的杯子碎了一个", "还少发了一个盖子"]),
    ("你们多扣了我五十块钱，扣了两次", ["扣了两次"]),
])
def test_what_went_wrong_is_noted_in_chinese(text: str, expected: list[str]) -> None:
    assert rules_read("customer_service", text)["problem_details"] == expected


def test_things_missing_are_no_sum_and_the_object_of_a_refund_no_note() -> None:
    assert "amount" not in rules_read("customer_service", "还少发了一个盖子")
    assert "problem_details" not in rules_read("customer_service", "把多扣的钱退给我")
    assert rules_read("customer_service", "多扣了45元")["amount"] == [45]


@pytest.mark.parametrize("go", ["go", "ok hit it", "start it"])
async def test_go_alone_once_the_route_is_set_hears_it_stands(go: str) -> None:
    replies = await _chat("en", ["navigate to Golden Gate Park", go], "in_car")
    assert "set the route for Golden Gate Park" in replies[-1].text


# --- a review of these fixes found them too wide; these must stay as they were ------------------------

@pytest.mark.parametrize(("domain", "text", "expected"), [
    # an apology between two values of a key that holds several adds the second
    ("restaurant", "my daughter has a nut allergy, sorry, my husband doesn't eat pork", {"dietary": ["pork", "nuts"]}),
    ("restaurant", "no seafood, sorry I should have said earlier, no nuts either", {"dietary": ["seafood", "nuts"]}),
    ("in_car", "avoid highways, sorry to be picky, avoid tolls",
     {"route_preference": ["avoid_tolls", "avoid_highways"]}),
    # one more after a slip's words is no slip
    ("in_car", "turn up the fan please, sorry, and the volume", {"fan_speed": ["up"]}),
    # a hesitation after a pause is nothing asked for yet
    ("restaurant", "the name is, uh, let me think", {}),
    ("restaurant", "名字是，嗯，我想想", {}),
    ("in_car", "play, uh, never mind", {"media": ["playing"]}),
    # a word after a spelling that says something else is no surname
    ("restaurant", "name's Kevin, K E V I N, Friday", {"date": ["friday"], "guest_name": ["Kevin"]}),
    ("restaurant", "book it under Amy, A M Y, Italian", {"guest_name": ["Amy"], "cuisine": ["italian"]}),
    ("restaurant", "the name is Lee, L E E, L-E-E", {"guest_name": ["Lee"]}),
    # who does not come, or more people than were counted
    ("restaurant", "我跟老婆，孩子不去", {"party_size": [2]}),
    ("restaurant", "just me and my wife, the kids are with grandma", {"party_size": [2]}),
    ("restaurant", "me and my wife and two clients", {}),
    ("restaurant", "me and my wife and our baby", {"party_size": [3], "access_needs": ["high_chair"]}),
    ("restaurant", "four people, and two kids among them", {"party_size": [4]}),
    ("restaurant", "my family of five can't make it, so just a table for 2", {"party_size": [2]}),
    # places
    ("in_car", "take me to the hospital John is hurt", {"destination": ["hospital"]}),
    ("in_car", "take me to the Four Seasons", {"destination": ["Four Seasons"]}),
    ("in_car", "drive to Palo Alto, Main Street has traffic so avoid it", {"destination": ["Palo Alto"]}),
    ("in_car", "she's driving to Reno tonight", {"trip_date": ["today"]}),
    ("in_car", "我刚买杯咖啡洒了", {}),
    # noise beside a louder command is still the volume's
    ("in_car", "turn the fan up, it's too loud in here", {"volume": ["down"], "fan_speed": ["up"]}),
    # customer service: what was done is no request
    ("customer_service", "我已经邮件联系过你们了", {}),
    ("customer_service", "快递员电话联系我说放门口了", {}),
    ("customer_service", "two hundred and 50 dollars", {"amount": [250]}),
])
def test_what_must_stay_as_it_was(domain: str, text: str, expected: dict[str, list[object]]) -> None:
    read = rules_read(domain, text)
    assert {k: v for k, v in read.items() if k not in ("wishes",)} == expected


@pytest.mark.parametrize(("text", "expected"), [("I fancy some Italian tonight", "italian")])
def test_fancying_some_food_says_no_price(text: str, expected: str) -> None:
    read = rules_read("restaurant", text)
    assert read["cuisine"] == [expected] and "price_range" not in read


async def test_sorry_to_bother_you_is_no_correction() -> None:
    replies = await _chat("en", ["take me to Union Station", "sorry to bother you, I might go to the airport tomorrow"],
                          "in_car")
    assert "should I change it" in replies[-1].text


async def test_the_route_given_up_is_not_taken_up_by_another_keys_words() -> None:
    replies = await _chat("zh", ["导航去望京SOHO", "改去三里屯", "把温度调到22度", "温度还是按原来的吧"], "in_car")
    assert "望京SOHO" not in replies[-1].text


async def test_a_sum_changed_keeps_its_cents() -> None:
    # (found by the simulated users: "change the amount to 95.99 dollars" had held $95)
    replies = await _chat("en", ["I want to complain about an order. I'd prefer an exchange. The total was $125.50.",
                                 "Can we change the amount to 95.99 dollars?", "Here it is: A382360."],
                          "customer_service")
    assert "$95.99" in replies[-1].text
