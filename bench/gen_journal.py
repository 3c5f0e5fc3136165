#!/usr/bin/env python3
"""Writes a synthetic journal as interchange JSON lines: N entries in five languages
(English, Russian, Spanish, Arabic, Japanese), words drawn from a 5,000-word vocabulary per
language with a Zipf distribution, as real text has. Also writes OUT.queries: words of rank
10, 100 and 1000 of each language, one per line, for the search benchmark.
Usage: gen_journal.py N OUT.jsonl   (deterministic: the same N gives the same files)"""
import itertools, json, random, sys

SYLLABLES = {
    "en": "ba be bi bo bu ca ce co da de di do fa fe fi ga go ha he hi ka ke la le li lo ma me mi mo na ne ni no pa pe pi ra re ri ro sa se si so ta te ti to va ve wa we ya yo".split(),
    "ru": "ба бе би бо бу ва ве ви во га ге го да де ди до жа же за зе зи ка ке ки ко ла ле ли ло ма ме ми мо на не ни но па пе пи по ра ре ри ро са се си со та те ти то".split(),
    "es": "ba be bi bo ca ce ci co da de di do fa fe fi ga ge gi la le li lo ma me mi mo na ne ni ño pa pe pi ra re rí ro sa se si so ta te ti to ca có".split(),
    "ar": "با بي بو تا تي تو سا سي سو دا دي دو را ري رو كا كي كو لا لي لو ما مي مو نا ني نو ها هي هو".split(),
    "ja": "あ い う え お か き く け こ さ し す せ そ た ち つ て と な に ぬ ね の は ひ ふ へ ほ ま み む め も 日 月 山 川 田 本 人 大 小 中 上 下 花 雨 雪 空 海 道 駅 朝 夜 町 家".split(),
}
VOCABULARY = 5000
OFFSETS = ["+00:00", "+03:00", "+05:30", "-09:30", "+09:00", "-03:00", "Z"]

def vocabulary(rnd, syllables):
    words = set()
    while len(words) < VOCABULARY:
        words.add("".join(rnd.choice(syllables) for _ in range(rnd.randint(2, 4))))
    # Shuffled from their sorted order: a set's own order follows Python's string hashes,
    # which change with every run (PYTHONHASHSEED), and so did the words' ranks and queries.
    return sorted(sorted(words), key=lambda w: rnd.random())

def main():
    n, out = int(sys.argv[1]), sys.argv[2]
    rnd = random.Random(42)
    vocab = {lang: vocabulary(rnd, s) for lang, s in SYLLABLES.items()}
    weights = list(itertools.accumulate(1 / (rank + 1) ** 1.07 for rank in range(VOCABULARY)))
    langs = list(vocab)
    with open(out, "w", encoding="utf-8") as f:
        for i in range(n):
            lang = rnd.choice(langs)
            sep = "" if lang == "ja" else " "
            def text(k):
                words = rnd.choices(vocab[lang], cum_weights=weights, k=k)
                return sep.join(words) if lang != "ja" else "".join(w + rnd.choice(["は", "を", "に", "で", "、", "。"]) for w in words)
            body = "\n\n".join(text(rnd.randint(20, 60)) for _ in range(rnd.randint(1, 3)))
            day, month, year = i % 28 + 1, (i // 28) % 12 + 1, 2000 + i // (28 * 12)
            line = {
                "journal": rnd.choice(["Journal", "Dreams", "Travel"]),
                "created": f"{year:04d}-{month:02d}-{day:02d}T{rnd.randint(0,23):02d}:{rnd.randint(0,59):02d}:{rnd.randint(0,59):02d}.{rnd.randint(0,999):03d}{rnd.choice(OFFSETS)}",
                "title": text(3),
                "body": body,
                "tags": sorted(set(rnd.choices(vocab[lang][:50], k=rnd.randint(0, 3)))),
            }
            f.write(json.dumps(line, ensure_ascii=False) + "\n")
    with open(out + ".queries", "w", encoding="utf-8") as f:
        for lang in langs:
            for rank in (10, 100, 1000):
                f.write(vocab[lang][rank] + "\n")

main()
