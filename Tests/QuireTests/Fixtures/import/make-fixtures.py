#!/usr/bin/env python3
"""Writes the import fixtures beside this script. Run once; the output is checked in.

Everything here is made up for the tests (no real journal): Day One, jrnl and Obsidian
sources in several languages, with photos and a voice note from ../media.
"""
import hashlib, json, os, shutil, zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
MEDIA = os.path.join(HERE, "..", "media")

def media(name):
    with open(os.path.join(MEDIA, name), "rb") as f:
        return f.read()

photo, png, voice = media("photo.jpg"), media("photo.png"), media("voice.m4a")
pdf = b"%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n"
md5 = lambda b: hashlib.md5(b).hexdigest()

# Day One: entries in Tokyo, New York and Moscow (three offsets, each near midnight), a
# second journal, a photo, a voice note with its transcription, a PDF, and one photo the
# export lacks.
journal = {"metadata": {"version": "1.0"}, "entries": [
    {"uuid": "A1B2C3D4E5F60718293A4B5C6D7E8F90", "creationDate": "2024-03-10T14:30:00Z",
     "modifiedDate": "2024-03-10T15:00:00Z", "timeZone": "Asia/Tokyo", "starred": True,
     "tags": ["旅行", "夜"],
     "text": "# 東京の夜\n\n![](dayone-moment://PHOTO0001)\n\n夜の散歩\\. 桜がきれい\\! (本当に\\)\n\n1\\. この行はリストではない",
     "location": {"placeName": "渋谷スクランブル交差点", "localityName": "東京", "country": "日本",
                  "latitude": 35.6595, "longitude": 139.7005},
     "weather": {"conditionsDescription": "Clear", "temperatureCelsius": 12.4},
     "photos": [{"identifier": "PHOTO0001", "md5": md5(photo), "type": "jpeg", "orderInEntry": 0}]},
    {"uuid": "0F1E2D3C4B5A69788796A5B4C3D2E1F0", "creationDate": "2024-03-11T03:15:00Z",
     "timeZone": "America/New_York", "starred": False, "tags": ["voice"],
     "text": "Voice memo from the subway\\.\n\n![](dayone-moment:/audio/AUDIO0001)\n\n![](dayone-moment:/pdfAttachment/PDF0001)",
     "audios": [{"identifier": "AUDIO0001", "md5": md5(voice), "format": "m4a", "duration": 3.5,
                 "transcription": "Listening to the train."}],
     "pdfAttachments": [{"identifier": "PDF0001", "md5": md5(pdf), "type": "pdf"}]},
    {"uuid": "5555AAAA5555AAAA5555AAAA5555AAAA", "creationDate": "2024-01-31T21:30:00Z",
     "timeZone": "Europe/Moscow",
     "text": "Русский текст\\. Второй снимок:\n\n![](dayone-moment://PHOTO0002)\n\n\\- не список\n\n\\*звёздочки\\* остаются",
     "photos": [{"identifier": "PHOTO0002", "md5": "0123456789abcdef0123456789abcdef", "type": "png"}]},
]}
travel = {"metadata": {"version": "1.0"}, "entries": [
    {"uuid": "B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0", "creationDate": "2023-07-14T18:05:00Z",
     "modifiedDate": "2023-07-15T08:00:00Z", "timeZone": "Europe/Madrid", "tags": ["viaje"],
     "text": "Viaje a Madrid\\. ¡Qué calor\\!"},
]}
os.makedirs(os.path.join(HERE, "dayone"), exist_ok=True)
def write_zip(path, members):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in members:
            info = zipfile.ZipInfo(name, date_time=(2024, 3, 12, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
members = [
    ("Journal.json", json.dumps(journal, ensure_ascii=False, indent=2).encode()),
    ("Travel.json", json.dumps(travel, ensure_ascii=False, indent=2).encode()),
    ("photos/%s.jpeg" % md5(photo), photo),
    ("audios/%s.m4a" % md5(voice), voice),
    ("pdfs/%s.pdf" % md5(pdf), pdf),
]
write_zip(os.path.join(HERE, "dayone", "export.zip"), members)
# Hostile and damaged variants.
write_zip(os.path.join(HERE, "dayone", "escape.zip"), members[:1] + [("photos/../../evil.jpeg", photo)])
with open(os.path.join(HERE, "dayone", "export.zip"), "rb") as f:
    whole = f.read()
with open(os.path.join(HERE, "dayone", "damaged.zip"), "wb") as f:
    f.write(whole[: len(whole) // 2])
bad_date = json.loads(json.dumps(journal))
bad_date["entries"][1]["creationDate"] = "last tuesday"
write_zip(os.path.join(HERE, "dayone", "bad-date.zip"), [("Journal.json", json.dumps(bad_date).encode())] + members[2:])

# jrnl: the JSON export and the plain-text journal of the same entries.
os.makedirs(os.path.join(HERE, "jrnl"), exist_ok=True)
jrnl_entries = [
    {"title": "Morning pages.", "body": "Wrote three pages with @writing before coffee.", "date": "2024-02-29",
     "time": "07:05", "tags": ["@writing"], "starred": True},
    {"title": "Sesión de escalada.", "body": "Subí la vía azul. @deporte", "date": "2024-03-01",
     "time": "19:30", "tags": ["@deporte"], "starred": False},
    {"title": "Два события в одну минуту.", "body": "", "date": "2024-03-01", "time": "19:30", "tags": [],
     "starred": False},
]
with open(os.path.join(HERE, "jrnl", "export.json"), "w") as f:
    json.dump({"tags": {"@writing": 1, "@deporte": 1}, "entries": jrnl_entries}, f, ensure_ascii=False, indent=2)
with open(os.path.join(HERE, "jrnl", "journal.txt"), "w") as f:
    f.write("[2024-02-29 07:05] Morning pages. *\nWrote three pages with @writing before coffee.\n\n"
            "[2024-03-01 19:30] Sesión de escalada.\nSubí la vía azul. @deporte\n\n"
            "[2024-03-01 19:30] Два события в одну минуту.\n")

# Obsidian: daily notes in a folder, embeds both ways, a note without a date, a missing image.
obs = os.path.join(HERE, "obsidian")
shutil.rmtree(obs, ignore_errors=True)
os.makedirs(os.path.join(obs, "Daily"))
os.makedirs(os.path.join(obs, "assets"))
os.makedirs(os.path.join(obs, ".obsidian"))
with open(os.path.join(obs, ".obsidian", "app.json"), "w") as f:
    f.write("{}\n")
with open(os.path.join(obs, "assets", "sunset.jpg"), "wb") as f:
    f.write(photo)
with open(os.path.join(obs, "assets", "photo one.png"), "wb") as f:
    f.write(png)
with open(os.path.join(obs, "Daily", "2024-05-01.md"), "w") as f:
    f.write("---\ntags: [καλοκαίρι, \"#θάλασσα\"]\nmood: calm\n---\n# Ηλιοβασίλεμα\n\n"
            "Στην παραλία. ![[sunset.jpg|400]] #ταξίδι\n\n```\n#not-a-tag in code\n```\n")
with open(os.path.join(obs, "Daily", "2024-05-02.md"), "w") as f:
    f.write("يوم هادئ في المدينة.\n\n![صورة](../assets/photo%20one.png)\n\nSee [the site](https://example.org) #مدينة\n")
with open(os.path.join(obs, "2024-05-03 Trip.md"), "w") as f:
    f.write("---\ncreated: 2024-05-03 21:45\ntitle: Night train\n---\nOn the train. ![[missing.png]]\n")
with open(os.path.join(obs, "Ideas.md"), "w") as f:
    f.write("# Ideas\n\nNot a journal entry.\n")
print("fixtures written")
