"""What users said in English and Mandarin (2026-12-07, seventeenth test drive) and was misread.

- "Italian or Sichuan, either is fine", "we'd like Italian or maybe Mexican" kept the last named: of values
  said as alternatives, one is enough, the one the option on offer already has, else the first said.
- Seventeenth drive (r23), held out: "sounds good. what's the address of the place?" booked the table; 嗯，你刚才
  记下时间了吗？ confirmed every value; "will the money go back to my card?" went back to the exchange given up (or
  got "I see"); "I want to exchange order 48231" noted "exchange order 48231"; the size of a swap stayed noted on
  a refund; "my brother's coming too" added no one; "do you guys know any good sushi places" offered Sichuan;
  嗯……朝阳那边有没有川菜馆啊？ got "菜系还没定"; 我跟我媳妇儿，再加俩孩子 booked for 3; 不想做饭 became a wish;
  好的，菜系烤鸭店;
  换成43码的 was not noted; 能换大一码吗 noted 换大一码吗; 鞋码买小了，穿着挤脚 noted nothing; 能退吗 set
  nothing; 快递现在在哪 and 钱退到哪儿 got "不太确定"; 那边好停车吗 and 走哪条路最快 were answered as a search or
  "路线偏好还没定";
  来点周杰伦的 played 周杰伦的; 换首歌，这个太吵了 also lowered the volume; 行了，就这样，谢谢 read the route back;
  "take me home first" made home the destination; "something chill, like jazz" played nothing in particular.
"""

from __future__ import annotations

import pytest

from fakes import policy_replies, rules_read

# --- alternatives ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("said", "cuisine"), [
    ("Italian or Sichuan, either is fine", "italian"),
    ("we'd like Italian or maybe Mexican", "italian"),
    ("either Thai or Indian, whatever's easier", "thai"),
    ("川菜或者粤菜都可以", "sichuan"),
    ("Italian, or no, Mexican", "mexican"),
])
def test_of_values_said_as_alternatives_one_is_kept(said: str, cuisine: str) -> None:
    assert rules_read("restaurant", said, {"date": "tomorrow", "party_size": 2}).get("cuisine") == [cuisine]


async def test_an_alternative_the_offered_place_has_keeps_the_offer() -> None:
    replies = await policy_replies("en", ["a table for two tomorrow at 7", "Italian or Sichuan, either is fine",
                                          "yes please"], "restaurant")
    assert "Chili House" in replies[0].text and "Chili House" in replies[-1].text


# --- a place said alone after the held one is refused ---------------------------------------------------------


@pytest.mark.parametrize(("said", "read"), [
    ("别火车站了，家吧", ["home"]), ("家吧", ["home"]), ("这家吧", None), ("大家都饿了", None), ("家里冷不冷", None),
])
def test_home_said_alone_is_where_to_go(said: str, read: list[str] | None) -> None:
    assert rules_read("in_car", said, {"destination": "station"}).get("destination") == read


async def test_a_place_wanted_after_the_held_one_is_refused_is_a_change() -> None:
    replies = await policy_replies("zh", ["导航去火车站", "别火车站了，家吧"], "in_car")
    assert "家" in replies[-1].text and "取消" not in replies[-1].text and "要改成" not in replies[-1].text


@pytest.mark.parametrize("said", ["不要退款了，给我换个大一号的", "I don't want a refund, a size up would be great"])
def test_a_resolution_refused_leaves_room_for_the_one_wanted(said: str) -> None:
    read = rules_read("customer_service", said, {"order_id": "A12345", "resolution": "refund"})
    assert read.get("resolution") == ["exchange"]


# --- a stop taken off the route -------------------------------------------------------------------------------


@pytest.mark.parametrize("said", ["forget about the stop, it does not matter", "skip the stop", "cancel the stop",
                                  "we don't need that stop anymore", "no need to stop anymore", "中途不用停了",
                                  "不用停了"])
def test_a_stop_taken_back_in_the_singular_or_by_not_stopping(said: str) -> None:
    from fakes import rules_ops
    assert ("withdraw", "stops") in rules_ops("in_car", said, {"destination": "school", "stops": "charging"})


def test_no_need_to_stop_with_music_and_no_stop_held_is_still_the_music() -> None:
    from fakes import rules_ops
    assert ("withdraw", "media") in rules_ops("in_car", "不用停了", {"destination": "school", "media": "playing"})


@pytest.mark.parametrize(("language", "lines", "said", "not_said"), [
    ("en", ["navigate to school, arriving by 11:30, with a stop at a charging station",
            "forget about the stop, it does not matter"], "The route is now for school, arriving by 11:30 am", "Done"),
    ("zh", ["导航去学校，中途在充电站停一下", "中途不用停了"], "路线现在是：去学校", "途经充电站"),
])
async def test_the_route_is_set_again_without_the_stop_taken_off(language: str, lines: list[str], said: str,
                                                                 not_said: str) -> None:
    replies = await policy_replies(language, lines, "in_car")
    assert said in replies[-1].text and not_said not in replies[-1].text


@pytest.mark.parametrize(("language", "lines", "said"), [
    ("en", ["navigate to school, arriving by 11:30, with a stop at a charging station", "what route do you have?"],
     ["school", "11:30", "charging"]),
    ("zh", ["导航去学校，十一点半前到，中途在充电站停一下", "路线是怎么设的？"], ["学校", "11点半", "充电站"]),
])
async def test_a_question_about_the_route_says_all_of_it(language: str, lines: list[str], said: list[str]) -> None:
    replies = await policy_replies(language, lines, "in_car")
    assert all(word in replies[-1].text for word in said)


# --- one more coming; a question of "you guys" ---------------------------------------------------------------


@pytest.mark.parametrize("said", ["my brother's coming too", "actually my brother's gonna tag along too",
                                  "my sister will join us", "my wife's coming along",
                                  "oh and my dad is gonna come as well"])
def test_one_more_coming_in_everyday_words(said: str) -> None:
    assert rules_read("restaurant", said, {"date": "friday", "party_size": 2, "time": "20:00"}).get(
        "party_size") == [3]


@pytest.mark.parametrize("said", ["is my brother coming?", "my brother's coming to pick us up"])
def test_someone_coming_for_another_reason_is_no_one_more(said: str) -> None:
    assert "party_size" not in rules_read("restaurant", said, {"date": "friday", "party_size": 2, "time": "20:00"})


@pytest.mark.parametrize(("said", "place"), [("do you guys know any good italian places?", "Luigi's Trattoria"),
                                             ("hi, do you guys know any good sushi places around here?", "Sakura"),
                                             ("do y'all have any Thai places?", "Bangkok Garden")])
async def test_a_question_asked_of_you_guys_asks_for_a_place(said: str, place: str) -> None:
    replies = await policy_replies("en", [said], "restaurant")
    assert place in replies[-1].text


# --- a nod that opens a question ------------------------------------------------------------------------------


async def test_a_nod_then_a_question_books_nothing_and_answers() -> None:
    replies = await policy_replies("en", ["table for two on friday at eight please",
                                          "sounds good. what's the address of the place?"], "restaurant")
    assert "booked" not in replies[-1].text and "Downtown" in replies[-1].text


def test_a_nod_then_a_question_confirms_nothing() -> None:
    from fakes import rules_ops
    ops = rules_ops("restaurant", "嗯，你刚才记下时间了吗？", {"date": "tomorrow", "time": "12:00", "party_size": 5})
    assert ("confirm", "") not in ops


# --- a ticket's questions and notes ---------------------------------------------------------------------------


async def test_a_question_about_the_refund_keeps_it_and_says_who_can_tell() -> None:
    replies = await policy_replies("en", ["I want to exchange order 48231", "actually just refund me instead",
                                          "yes go ahead", "will the money go back to my card?"], "customer_service")
    assert "the team handling the ticket will tell you" in replies[-1].text and "exchange" not in replies[-1].text


async def test_another_question_it_cannot_answer_is_not_read_back_as_a_check() -> None:
    replies = await policy_replies("zh", ["订单JD88213还没到，帮我查查到哪儿了", "钱退到哪儿？原路返回吗？",
                                          "你能看到快递现在在哪吗？"], "customer_service")
    assert "看不到实时物流" in replies[-1].text and not replies[-1].text.startswith("再确认一下")


@pytest.mark.parametrize(("said", "note"), [
    ("I want to exchange order 48231", None),
    ("order 48231, I'd like to swap the jacket for a large", ["swap the jacket for a large"]),
    ("能换大一码吗？", ["换大一码"]),
    ("鞋码买小了，穿着挤脚，能退吗", ["鞋码买小了", "穿着挤脚"]),
    ("the boots are too small, can I return them", ["the boots are too small"]),
])
def test_what_an_exchange_is_for_and_a_size_that_does_not_fit_are_noted(said: str, note: list[str] | None) -> None:
    assert rules_read("customer_service", said, {"order_id": "48231"}).get("problem_details") == note


@pytest.mark.parametrize(("said", "resolution"), [("能退吗", "refund"), ("可以退吗", "refund"), ("能换吗", "exchange")])
def test_can_it_be_returned_asks_for_it(said: str, resolution: str) -> None:
    assert rules_read("customer_service", said, {"order_id": "A20391"}).get("resolution") == [resolution]


async def test_a_refund_drops_the_size_of_the_swap_given_up() -> None:
    replies = await policy_replies("en", ["order 48231, I'd like to swap the jacket for a large",
                                          "actually just refund me instead"], "customer_service")
    assert "a refund" in replies[-1].text and "large" not in replies[-1].text


async def test_the_size_said_again_replaces_the_one_noted() -> None:
    replies = await policy_replies("zh", ["订单A20391的鞋想换个大一码的", "换成43码的"], "customer_service")
    assert "换成43码的" in replies[-1].text and "大一码" not in replies[-1].text


# --- the party and the place ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("said", "held", "size"), [
    ("我跟我媳妇儿，再加俩孩子", {}, 4), ("我跟我老婆，还有两个孩子", {}, 4),
    ("me and my wife plus our two kids", {}, 4), ("再加俩孩子", {"party_size": 2}, 4),
])
def test_a_party_said_as_who_comes(said: str, held: dict[str, object], size: int) -> None:
    assert rules_read("restaurant", said, held).get("party_size") == [size]


async def test_a_question_for_a_place_after_a_filler_asks_for_one() -> None:
    replies = await policy_replies("zh", ["你好，我想订个饭店", "嗯……朝阳那边有没有川菜馆啊？"], "restaurant")
    assert "川菜" in replies[-1].text and "朝阳区" in replies[-1].text and "还没定" not in replies[-1].text


@pytest.mark.parametrize("said", ["哎，今天累死了，不想做饭", "I'm too tired to cook tonight"])
def test_why_the_user_eats_out_is_no_wish(said: str) -> None:
    assert "wishes" not in rules_read("restaurant", said, {})


@pytest.mark.parametrize(("lines", "said", "not_said"), [
    (["你好，我想订个饭店", "我想吃烤鸭"], "好的，烤鸭店。", "菜系烤鸭店"),
    (["你好，我想订个饭店", "海淀有没有川菜馆"], "没找到同时满足", "这些条件"),
])
async def test_the_kind_of_place_said_plainly_in_chinese(lines: list[str], said: str, not_said: str) -> None:
    replies = await policy_replies("zh", lines, "restaurant")
    assert said in replies[-1].text and not_said not in replies[-1].text


# --- the car --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("language", "lines", "said"), [
    ("zh", ["导航去望京SOHO", "那边好停车吗？"], "停车情况我这里看不到"),
    ("zh", ["导航去首都机场", "走哪条路最快？"], "没法比较哪条路更快"),
    ("en", ["take me to the airport", "which way is fastest?"], "can't tell which way is faster"),
])
async def test_parking_and_the_fastest_way_are_what_it_cannot_see(language: str, lines: list[str], said: str) -> None:
    replies = await policy_replies(language, lines, "in_car")
    assert said in replies[-1].text


@pytest.mark.parametrize(("said", "music"), [("放点歌吧，来点周杰伦的", ["周杰伦"]), ("来点轻松的", ["轻松的"]),
                                             ("can you put some music on? something chill, like jazz", ["jazz"]),
                                             ("turn on the music, maybe some Beatles please", ["Beatles"])])
def test_the_music_asked_for_is_what_is_named(said: str, music: list[str]) -> None:
    read = rules_read("in_car", said, {})
    assert read.get("music_choice") == music and "wishes" not in read


@pytest.mark.parametrize(("said", "volume"), [("换首歌，这个太吵了", None), ("next song, this one's too loud", None),
                                              ("next song, and turn it down, it's too loud", ["down"]),
                                              ("关窗吧，太吵了，音乐也小点", ["down"])])
def test_a_song_skipped_for_its_noise_leaves_the_volume(said: str, volume: list[str] | None) -> None:
    assert rules_read("in_car", said, {}).get("volume") == volume


@pytest.mark.parametrize(("language", "lines", "said"), [("zh", ["导航去首都机场", "行了，就这样，谢谢"], "不客气"),
                                                         ("en", ["take me to the airport", "ok that's it, thanks"],
                                                          "welcome")])
async def test_thanks_when_all_is_done_is_a_goodbye(language: str, lines: list[str], said: str) -> None:
    replies = await policy_replies(language, lines, "in_car")
    assert said in replies[-1].text and "?" not in replies[-1].text and "？" not in replies[-1].text


@pytest.mark.parametrize(("said", "stops", "destination"), [
    ("oh wait, I forgot my passport, take me home first actually", ["home"], None),
    ("swing by home first", ["home"], None), ("go home first... no, forget it, stick with the airport", None, None),
])
def test_a_place_to_go_first_is_a_stop_on_the_way(said: str, stops: list[str] | None,
                                                  destination: list[str] | None) -> None:
    read = rules_read("in_car", said, {"destination": "airport"})
    assert read.get("stops") == stops and read.get("destination") == destination


def test_tolls_are_said_as_toll_roads_in_chinese() -> None:
    from monologue.memory.domain.schema import load_schema
    assert load_schema("in_car").key("route_preference").value_words("avoid_tolls", "zh")[0] == "不走收费路"


@pytest.mark.parametrize("said", ["wait no, sorry, it's Maple Avenue Dental, not street",
                                  "I meant Maple Avenue Dental"])
def test_a_place_name_put_right(said: str) -> None:
    read = rules_read("in_car", said, {"destination": "Maple Street Dental"})
    assert read.get("destination") == ["Maple Avenue Dental"]


@pytest.mark.parametrize("said", ["it's cold in here", "it's Jim by the way"])
def test_its_is_no_place_put_right_unless_a_place_is_named(said: str) -> None:
    assert "destination" not in rules_read("in_car", said, {"destination": "Maple Street Dental"})


@pytest.mark.parametrize(("language", "lines", "said"), [
    ("en", ["where's my order 770512? it was supposed to come Tuesday",
            "no that's all for now, you've been really helpful"], "I won't open a ticket"),
    ("zh", ["订单JD88213还没到，帮我查一下", "不用了，谢谢，再见"], "先不提交工单"),
])
async def test_leaving_after_turning_the_ticket_down_says_it_is_not_opened(language: str, lines: list[str],
                                                                          said: str) -> None:
    replies = await policy_replies(language, lines, "customer_service")
    assert said in replies[-1].text


@pytest.mark.parametrize(("said", "note"), [("it came cracked", ["it came cracked"]),
                                            ("it arrived broken", ["it arrived broken"]), ("it came yesterday", None)])
def test_how_it_came_is_noted(said: str, note: list[str] | None) -> None:
    assert rules_read("customer_service", said, {"order_id": "770512"}).get("problem_details") == note


async def test_a_bare_on_beside_music_asked_for_is_the_musics() -> None:
    replies = await policy_replies("en", ["set the temperature to 21",
                                          "the kids want Taylor Swift, can you put some on"], "in_car")
    assert "Taylor Swift" in replies[-1].text and "air conditioning" not in replies[-1].text


@pytest.mark.parametrize(("said", "control"), [("play some jazz and turn on the AC", "air_conditioning"),
                                               ("put on some Adele and open the window", "window")])
def test_a_control_named_beside_music_is_still_commanded(said: str, control: str) -> None:
    assert control in rules_read("in_car", said, {})


# --- r24 ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("said", "size"), [("actually two people just dropped out", 4),
                                            ("two people can't make it", 4), ("so one fewer... no wait, two fewer", 4),
                                            ("one more, sorry, two more", 8), ("actually make it five", 5)])
def test_how_many_come_or_go_moves_the_party(said: str, size: int) -> None:
    assert rules_read("restaurant", said, {"party_size": 6, "date": "tomorrow", "time": "20:00"}).get(
        "party_size") == [size]


@pytest.mark.parametrize(("said", "read"), [("something Italian maybe, or Thai, whatever you have", ["italian"]),
                                            ("湘菜或者川菜都行", ["sichuan"]), ("川菜都行", ["sichuan"])])
def test_a_kind_said_as_one_of_several_is_taken(said: str, read: list[str]) -> None:
    assert rules_read("restaurant", said, {"party_size": 2}).get("cuisine") == read


@pytest.mark.parametrize("lines", [["周六晚上七点，四个人，想吃海淀的川菜"],
                                   ["周六晚上七点两个人，西城区", "湘菜或者川菜都行"]])
async def test_no_place_of_unknown_area_is_offered_for_an_area_asked(lines: list[str]) -> None:
    replies = await policy_replies("zh", lines, "restaurant")
    assert "顺义" not in replies[-1].text and "没找到同时满足" in replies[-1].text


async def test_home_wanted_after_the_station_refused_once_all_is_done() -> None:
    replies = await policy_replies("zh", ["出租车的目的地是火车站。", "好，就这么定。", "别火车站了，家吧。"], "in_car")
    assert "去家里" in replies[-1].text and "要改成" not in replies[-1].text


@pytest.mark.parametrize(("said", "yes"), [("那个，没问题。", True), ("没问题。", True), ("没问题吗？", None)])
def test_no_problem_is_a_yes(said: str, yes: bool | None) -> None:
    from monologue.memory.language.cues import yes_or_no
    assert yes_or_no(said) is yes


async def test_that_sounds_a_bit_fancy_chooses_nothing() -> None:
    replies = await policy_replies("en", ["table for 3 on Saturday at 12:30, we're vegetarian",
                                          "hmm, is there anything cheaper? that sounds a bit fancy",
                                          "do they have outdoor seating?"], "restaurant")
    assert "Green Table" in replies[1].text and "doesn't fit" not in replies[1].text
    assert replies[2].text.startswith("Yes: Green Table has outdoor seating.")


@pytest.mark.parametrize(("language", "lines", "said"), [
    ("en", ["book a table for four on Friday at 7", "what have you got so far?"],
     "and the place I've suggested is Chili House"),
    ("zh", ["周五晚上七点，六个人，朝阳区火锅", "现在都给我订了啥？"], "我推荐的是黄门老灶火锅工体直营店"),
])
async def test_what_is_held_says_the_place_on_offer(language: str, lines: list[str], said: str) -> None:
    replies = await policy_replies(language, lines, "restaurant")
    assert said in replies[-1].text


async def test_a_question_for_a_milder_place_is_no_question_about_the_state() -> None:
    replies = await policy_replies("zh", ["订个周六晚上七点的位子，四个人，川菜", "有没有不太辣的？我老婆吃不了太辣"],
                                   "restaurant")
    assert "还没定" not in replies[-1].text


@pytest.mark.parametrize(("said", "fan"), [("窗户关上吧，风太大了", None), ("关窗，风量也调小一点", ["down"]),
                                           ("close the window, the fan's way too strong", ["down"])])
def test_too_much_wind_met_by_the_window_closed_leaves_the_fan(said: str, fan: list[str] | None) -> None:
    read = rules_read("in_car", said, {})
    assert read.get("window") == ["closed"] and read.get("fan_speed") == fan


@pytest.mark.parametrize(("said", "music"), [("放点歌吧，周杰伦的", ["周杰伦"]), ("放点歌吧，好的", None),
                                             ("play some music, Taylor Swift", ["Taylor Swift"]),
                                             ("play some music, please", None)])
def test_whose_music_said_after_asking_for_music(said: str, music: list[str] | None) -> None:
    assert rules_read("in_car", said, {}).get("music_choice") == music


@pytest.mark.parametrize(("language", "lines", "said", "not_said"), [
    ("zh", ["订单A2398714，鞋小了想换货", "好的", "我还有一个单子，一直没发货，帮我查下物流", "订单号 B5567021"],
     "确认一下：订单B5567021，查件", "工单改成"),
    ("en", ["My headphones are broken, order 44718, I want a refund", "yes", "another order never showed up"],
     "What's the order number?", "delivery date"),
])
async def test_another_order_once_the_ticket_is_opened_is_a_new_task(language: str, lines: list[str], said: str,
                                                                     not_said: str) -> None:
    replies = await policy_replies(language, lines, "customer_service")
    assert said in replies[-1].text and not_said not in replies[-1].text


async def test_the_letters_of_a_code_stay_when_its_digits_are_put_right() -> None:
    replies = await policy_replies("en", ["My headphones are broken, I want a refund",
                                          "the order number is, uh, B as in boy, 4 4 7 1 9... sorry, 4 4 7 1 8"],
                                   "customer_service")
    assert "order B44718" in replies[-1].text


def test_when_the_user_gets_off_work_is_no_delivery_date() -> None:
    read = rules_read("customer_service", "call me on 415 555 0188 after 5, I get off earlier on fridays",
                      {"order_id": "55102", "resolution": "refund"})
    assert "delivery_date" not in read and read.get("contact_phone") == ["4155550188"]


@pytest.mark.parametrize("said", ["one of us is gluten free, is that ok?", "we need gluten-free food"])
def test_gluten_free_refuses_gluten(said: str) -> None:
    from fakes import rules_ops
    assert ("set", "dietary") in rules_ops("restaurant", said, {"party_size": 4, "date": "friday"})


@pytest.mark.parametrize(("said", "degrees"), [("too hot, down two degrees", 20), ("down two degrees", 20),
                                               ("up 2 degrees please", 24), ("turn it down", 21)])
def test_up_or_down_so_many_degrees(said: str, degrees: int) -> None:
    assert rules_read("in_car", said, {"temperature": 22}).get("temperature") == [degrees]
