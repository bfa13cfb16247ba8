"""Build the Chinese restaurant catalogue (configs/catalogues/beijing_restaurants.yaml) from
CrossWOZ's restaurant database: 951 Beijing restaurants with their dishes, price per person,
rating, address, opening hours and phone.

CrossWOZ (https://github.com/thu-coai/CrossWOZ) is Apache-2.0; its licence is copied beside
the catalogue (configs/catalogues/LICENSE.crosswoz) and named in the YAML's header. Only this
derived catalogue is committed, never the raw database.

What maps onto the restaurant domain's keys (configs/domains/restaurant.yaml), and how:
- name: the database's Chinese name, as `zh`. No English name is invented: an English
  session falls back to the Chinese name, which is what the sign, the map and the phone
  number's owner say (pinyin would be a name nobody in Beijing uses, and no ASR hears back).
- price_range from 人均消费 (yuan per person): under 50 cheap, 50-149 moderate, 150-399
  pricey, 400 and up ultra_high_end. A quick meal in Beijing costs under 50; the database's
  own quartiles are 51, 74 and 105, so a quarter is cheap and 150 marks the top tenth.
  The amount itself is kept as `price_per_person`, not as `budget`: a user's 预算 may be for
  the whole party. The catalogue's `amounts` says a budget is read against it, per head
  (一共五百 for five is 100 a head; memory/domain/catalogue.py `per_item`).
- location: the district (朝阳区, 海淀区 …) the address names, else one that a landmark in the
  address lies in (王府井 → 东城区, 中关村 → 海淀区; the table below). Left out when neither
  says: an unknown attribute never breaks a condition.
- cuisine: only from words in the name that say it (火锅 → hotpot, 川菜 → sichuan …), with
  the domain's own enum values; left out otherwise, never guessed from a dish list.
- described: the database's tags among its recommended dishes (老字号, 深夜营业, 景观餐厅 …), so a
  wish ("想找个老字号") ranks the places it describes first.
- said: the brand a chain goes by (四季民福 for 四季民福烤鸭店, 海底捞 for 海底捞火锅), found with jieba
  (`add_brands`).
- dishes (the first few real dishes), rating (评分, when given), address, hours (营业时间, without
  the closures of February 2018 it lists), phone, subway: kept for the agent to say.

Items are sorted by rating, best first (unrated last): the first that fit are offered first.

Usage: python scripts/build_beijing_catalogue.py [DB_JSON] [--out PATH]
"""

from __future__ import annotations

import argparse
import importlib
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import yaml

DEFAULT_DB = Path("/work/shared/data/crosswoz/restaurant_db.json")
ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = ROOT / "configs" / "catalogues" / "beijing_restaurants.yaml"

# 人均消费 (yuan) → the domain's price_range: (the lowest price of the range, value).
PRICE_RANGES = ((400, "ultra_high_end"), (150, "pricey"), (50, "moderate"), (0, "cheap"))

DISTRICTS = ("东城", "西城", "朝阳", "海淀", "丰台", "石景山", "门头沟", "房山", "通州", "顺义", "昌平", "大兴",
             "怀柔", "平谷", "密云", "延庆")
_DISTRICT = re.compile(r"(" + "|".join(DISTRICTS) + r")(?:区|县)")
# Landmarks an address names without its district, each wholly inside one district.
LANDMARKS = {
    "东城区": ("王府井", "前门", "南锣鼓巷", "鼓楼", "东四", "东直门", "崇文门", "灯市口", "簋街", "雍和宫", "天坛",
             "鲜鱼口", "北新桥", "交道口", "东单", "金宝街", "新世界", "安定门", "和平里", "广渠门", "磁器口"),
    "西城区": ("西单", "什刹海", "后海", "护国寺", "新街口", "西四", "金融街", "牛街", "西直门", "复兴门", "大栅栏",
             "宣武门", "月坛", "德胜门", "阜成门", "琉璃厂", "广安门", "菜市口", "陶然亭", "北海"),
    "朝阳区": ("三里屯", "国贸", "望京", "建国门外", "工体", "工人体育场", "亮马桥", "朝阳门", "双井", "大望路",
             "蓝色港湾", "燕莎", "亚运村", "奥林匹克", "劲松", "潘家园", "十里堡", "酒仙桥", "798", "团结湖", "三元桥",
             "呼家楼", "东大桥", "朝外", "光华路", "CBD"),
    "海淀区": ("中关村", "五道口", "魏公村", "公主坟", "五棵松", "学院路", "知春路", "苏州街", "颐和园", "圆明园",
             "清华", "北大", "海淀黄庄", "紫竹院", "大钟寺", "甘家口", "万寿路", "上地"),
    "丰台区": ("丽泽", "方庄", "草桥", "六里桥", "卢沟桥", "宋家庄"),
    "大兴区": ("亦庄", "经济技术开发区"),
    "昌平区": ("回龙观", "天通苑", "沙河", "十三陵", "居庸关", "八达岭"),
    "延庆区": ("延庆",),
    "密云区": ("古北水镇", "司马台"),
    "怀柔区": ("慕田峪", "雁栖"),
    "通州区": ("通州",),
    "顺义区": ("顺义",),
}

# Words in a name that say the cuisine, onto the domain's enum values (most specific first).
CUISINES = (
    ("hotpot", ("火锅", "涮肉", "涮羊肉", "呷哺", "海底捞")),
    ("roast_duck", ("烤鸭", "全聚德", "便宜坊", "大董", "四季民福")),
    ("beijing", ("北京菜", "京菜", "老北京", "炸酱面", "卤煮", "爆肚", "护国寺小吃")),
    ("sichuan", ("川菜", "四川", "蜀", "眉州", "巴国布衣", "重庆")),
    ("cantonese", ("粤菜", "广东菜", "港式", "茶餐厅", "潮汕", "早茶")),
    ("japanese", ("日本料理", "日料", "寿司", "拉面", "居酒屋", "铁板烧")),
    ("korean", ("韩国", "韩式", "韩餐")),
    ("thai", ("泰国", "泰式", "泰餐")),
    ("indian", ("印度",)),
    ("italian", ("意大利", "比萨", "披萨", "意式")),
    ("french", ("法国", "法式", "法餐")),
    ("american", ("牛排", "汉堡", "麦当劳", "肯德基", "美式")),
    ("vegetarian", ("素食", "素菜")),
    ("seafood", ("海鲜",)),
)

# Tags among the database's 推荐菜 that are not dishes: they describe the place.
TAGS = {"老字号", "当地口味", "其他", "美食林风味", "美食林臻选", "特色小吃", "深夜营业", "老建筑餐厅", "名人光顾",
        "景观餐厅", "下午茶", "网红店", "必吃榜", "情侣约会", "朋友聚餐", "家庭聚会", "商务宴请", "有包间", "可以刷卡",
        "免费停车", "无线上网", "24小时营业", "有景观位", "有露天位", "有表演", "米其林"}
DISHES_KEPT = 4

HEADER = """\
# Beijing restaurants, in Chinese: a Chinese session's catalogue for the restaurant domain.
# Built by scripts/build_beijing_catalogue.py from CrossWOZ's restaurant database
# (thu-coai/CrossWOZ, https://github.com/thu-coai/CrossWOZ), licensed under the Apache
# License 2.0: see LICENSE.crosswoz beside this file. Changes from the original: fields
# renamed onto the restaurant domain's keys, price_range, location and cuisine derived (the
# script says how), tags split from dishes, dishes cut to the first few, sorted by rating.
# Do not edit by hand: rebuild with the script.
"""


def price_range(per_person: int) -> str:
    return next(value for lowest, value in PRICE_RANGES if per_person >= lowest)


def district(address: str) -> str | None:
    found = _DISTRICT.search(address)
    if found:
        return found.group(1) + "区"
    for name, landmarks in LANDMARKS.items():
        if any(landmark in address for landmark in landmarks):
            return name
    return None


def cuisine(name: str) -> str | None:
    return next((value for value, words in CUISINES if any(w in name for w in words)), None)


def item(row: dict[str, Any]) -> dict[str, Any]:
    name = str(row["名称"])
    out: dict[str, Any] = {"name": {"zh": name}}
    kind = cuisine(name)
    if kind:
        out["cuisine"] = kind
    per_person = row.get("人均消费")
    if isinstance(per_person, (int, float)):
        out["price_range"] = price_range(int(per_person))
        out["price_per_person"] = int(per_person)
    area = district(str(row.get("地址") or ""))
    if area:
        out["location"] = area
    if row.get("评分") is not None:
        out["rating"] = float(row["评分"])
    listed = [str(d) for d in row.get("推荐菜") or []]
    tags = [d for d in listed if d in TAGS and d != "其他"]
    if tags:
        out["described"] = {"zh": "，".join(tags)}
    dishes = [d for d in listed if d not in TAGS][:DISHES_KEPT]
    if dishes:
        out["dishes"] = dishes
    for key, field in (("address", "地址"), ("hours", "营业时间"), ("phone", "电话"), ("subway", "地铁")):
        if row.get(field):
            out[key] = str(row[field])
    if "hours" in out:
        # The database's closures ("非营业时段 2018-02-15至2018-02-21 全天") were one holiday in 2018:
        # read out today, they are noise (and their dates were said as 2018到02到15).
        out["hours"] = re.sub(r"\s*非营业时段.*$", "", out["hours"]).strip()
        if not out["hours"]:
            del out["hours"]
    return out


def build(rows: list[Any]) -> dict[str, Any]:
    items = [item(row[1] if isinstance(row, list) else row) for row in rows]
    items.sort(key=lambda i: -i.get("rating", 0.0))
    add_brands(items)
    return {"details": ["cuisine", "location"], "name_key": "restaurant_name",
            "amounts": {"budget": {"attribute": "price_per_person", "heads": "party_size"}}, "items": items}


# A kind of place said at a name's end by this many names or more (餐厅, 火锅, 烤鸭店 …).
KIND_WORD_NAMES = 4


def add_brands(items: list[dict[str, Any]]) -> None:
    """`said`: the name a place goes by without the kind of place its name ends with: 四季民福 for
    四季民福烤鸭店, 海底捞 for 海底捞火锅 (how people say them). Kinds are the last words (jieba's, two
    characters or more) that end at least KIND_WORD_NAMES names; a brand is kept when it has three
    characters or more, belongs to a chain (two places or more: a single place is called by its name,
    and a short form of one is too often an ordinary phrase, 太熟悉 for 太熟悉餐厅), begins no other
    chain's name (老北京 begins several) and is not a place (a subway station is named so: 五棵松)."""
    jieba = importlib.import_module("jieba")     # the zh extra (untyped)
    jieba.setLogLevel(60)
    bases: dict[str, list[dict[str, Any]]] = {}
    for entry in items:
        base = re.sub(r"\s*[（(][^）)]*[）)]\s*$", "", str(entry["name"]["zh"])).strip()
        if re.fullmatch(r"[\u4e00-\u9fff]+", base):
            bases.setdefault(base, []).append(entry)
    words = {base: jieba.lcut(base) for base in bases}
    ends = Counter(w[-1] for w in words.values() if len(w) > 1 and len(w[-1]) >= 2)
    kinds = {word for word, count in ends.items() if count >= KIND_WORD_NAMES}
    brands: dict[str, set[str]] = {}
    for base, parts in words.items():
        keep = len(parts)
        while keep > 1 and parts[keep - 1] in kinds:
            keep -= 1
        brand = "".join(parts[:keep])
        if brand != base and len(brand) >= 3:
            brands.setdefault(brand, set()).add(base)
    # A brand that names a place as well (五棵松饭店: 五棵松 is a part of Beijing) would find that place
    # in every turn about the area: left out when a subway station is named so. (Not addresses: they
    # name chains as landmarks, 便宜坊大厦.)
    places = " ".join(str(entry.get("subway", "")) for entry in items)
    for brand, own in brands.items():
        branches = sum(len(bases[base]) for base in own)
        if branches < 2 or any(base.startswith(brand) and base not in own for base in bases) or brand in places:
            continue
        for base in sorted(own):
            for entry in bases[base]:
                entry["said"] = [brand]


# What a user may ask about an offered place, and how the answer is said (memory/domain/catalogue.py
# `Catalogue.answer`). The cues are words of the question, not whole questions: 人均多少, 这家贵不贵.
FACTS: dict[str, dict[str, Any]] = {
    "price_per_person": {"cues": {"zh": ["人均", "多少钱", "贵不贵", "价格", "消费"],
                                  "en": ["how much", "price", "expensive", "per person", "cost"]},
                         "say": {"zh": "{name}人均{value}元。", "en": "{name} is about {value} yuan a head."}},
    "cuisine": {"cues": {"zh": ["什么菜系", "哪个菜系", "做什么菜", "哪种菜", "什么口味", "什么类型的菜"],
                         "en": ["what kind of food", "what sort of food", "what type of food", "what cuisine",
                                "what do they serve"]},
                "say": {"zh": "{name}是{value}。", "en": "{name} serves {value} food."}},
    "rating": {"cues": {"zh": ["评分", "几分", "口碑", "评价"], "en": ["rating", "rated", "reviews"]},
               "say": {"zh": "{name}的评分是{value}分。", "en": "{name} is rated {value} out of 5."}},
    "dishes": {"cues": {"zh": ["推荐菜", "招牌", "特色菜", "拿手菜", "什么好吃", "吃什么", "有什么菜"],
                        "en": ["dishes", "menu", "what's good", "specialty", "speciality"]},
               "say": {"zh": "{name}的推荐菜有{value}。", "en": "At {name} people like {value}."}},
    "address": {"cues": {"zh": ["地址", "在哪", "哪儿", "位置", "怎么走"], "en": ["address", "where is it", "located"]},
                "say": {"zh": "{name}在{value}。", "en": "{name} is at {value}."}},
    "hours": {"cues": {"zh": ["营业", "开门", "关门", "几点开", "几点关", "开到几点"],
                       "en": ["open", "close", "hours"]},
              "say": {"zh": "{name}的营业时间是{value}。", "en": "{name} is open {value}."}},
    "phone": {"cues": {"zh": ["电话"], "en": ["phone"]},
              "say": {"zh": "{name}的电话是{value}。", "en": "{name}'s phone number is {value}."}},
    "subway": {"cues": {"zh": ["地铁"], "en": ["subway", "metro"]},
               "say": {"zh": "{name}离{value}最近。", "en": "The nearest subway to {name} is {value}."}},
}


def write(catalogue: dict[str, Any], out: Path) -> None:
    lines = [HEADER, f"details: {json.dumps(catalogue['details'], ensure_ascii=False)}",
             f"name_key: {catalogue['name_key']}",
             f"amounts: {json.dumps(catalogue['amounts'], ensure_ascii=False)}", "facts:"]
    lines += [f"  {key}: {json.dumps(fact, ensure_ascii=False)}" for key, fact in FACTS.items()]
    lines += ["items:"]
    # One item a line, as JSON (which YAML reads): a diff of a rebuild shows which places changed.
    lines += [f"  - {json.dumps(i, ensure_ascii=False)}" for i in catalogue["items"]]
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("db", nargs="?", type=Path, default=DEFAULT_DB, help=f"CrossWOZ restaurant_db.json "
                        f"(default {DEFAULT_DB})")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="the catalogue YAML to write")
    args = parser.parse_args()
    catalogue = build(json.loads(args.db.read_text(encoding="utf-8")))
    write(catalogue, args.out)
    loaded = yaml.safe_load(args.out.read_text(encoding="utf-8"))
    items = loaded["items"]
    print(f"{len(items)} restaurants → {args.out}")
    for key in ("location", "cuisine", "price_range", "rating", "dishes", "hours"):
        print(f"  {key}: {sum(1 for i in items if key in i)}")


if __name__ == "__main__":
    main()
