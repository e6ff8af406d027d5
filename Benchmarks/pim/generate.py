#!/usr/bin/env python3
"""Fills a pim store (made by pim itself, see generate.sh) with years of use.

The rows copy the shapes pim writes (seen in a store pim made: table and column names, entity
numbers, Z_OPT, UUIDs as 16-byte blobs, dates as seconds since 2001, join tables, Z_FOK_ order
columns, Z_PRIMARYKEY maxima), so that pim reads them as its own. The undo journal is written by
pim itself afterwards (generate.sh runs real commands).

usage: generate.py STORE [--contacts 5000] [--tasks 20000] [--events 3000] [--repeating 200]
"""
import argparse, random, sqlite3, uuid

p = argparse.ArgumentParser()
p.add_argument("store")
p.add_argument("--contacts", type=int, default=5000)
p.add_argument("--tasks", type=int, default=20000)
p.add_argument("--events", type=int, default=3000)
p.add_argument("--repeating", type=int, default=200)
p.add_argument("--seed", type=int, default=42)
a = p.parse_args()
rnd = random.Random(a.seed)

NOW = 795344400.0          # 2026-03-16T09:00:00Z in seconds since 2001-01-01 (PIM_NOW)
DAY = 86400.0
YEARS = 5
T0 = NOW - YEARS * 365 * DAY

db = sqlite3.connect(a.store)
c = db.cursor()
ent = {n: e for e, n in c.execute("SELECT Z_ENT, Z_NAME FROM Z_PRIMARYKEY")}

def u():
    return uuid.UUID(int=rnd.getrandbits(128), version=4).bytes

def nextpk(table):
    return (c.execute(f"SELECT COALESCE(MAX(Z_PK),0) FROM {table}").fetchone()[0]) + 1

def nextnum(table):
    return (c.execute(f"SELECT COALESCE(MAX(ZNUMBER),0) FROM {table}").fetchone()[0]) + 1

given = ["Ada", "Alan", "Grace", "Émile", "Zoë", "Bjørn", "Chen", "Fatima", "Kwame", "Lucía", "Mateo", "Noor", "Olga",
         "Pierre", "Quinn", "Rahul", "Sofia", "Tomás", "Uma", "Viktor", "Wen", "Xavier", "Yuki", "Zara", "Hannah", "Ivan"]
family = ["Lovelace", "Turing", "Hopper", "Müller", "Nakamura", "García", "Okafor", "Svensson", "Dubois", "Kowalski",
          "Rossi", "Haddad", "Novak", "O'Brien", "Petrov", "Singh", "Tanaka", "Schmidt", "Jensen", "Moreau", "Silva"]
words = ["report", "invoice", "slides", "garden", "groceries", "taxes", "review", "deploy", "backup", "call", "email",
         "dentist", "car", "budget", "draft", "plan", "fix", "bug", "release", "meeting", "notes", "book", "flight"]
projects = ["work", "work.ops", "work.sales", "home", "home.garden", "home.repairs", "health", "finance", "oss.pim",
            "oss.docs", "travel", "learning", "family", "car", "side"] + [f"client{i}" for i in range(15)]
tagnames = ["next", "urgent", "waiting", "phone", "errand", "email", "computer", "someday", "read", "write",
            "office", "home", "quick", "deep", "review", "followup", "idea", "bug", "doc", "meeting", "money",
            "health", "kids", "weekend", "travel"]

# ---- contacts: persons and organizations, emails, phones, addresses, groups
cpk = nextpk("ZCONTACT"); cnum = nextnum("ZCONTACT")
epk = nextpk("ZEMAILADDRESS"); ppk = nextpk("ZPHONENUMBER"); apk = nextpk("ZPOSTALADDRESS")
contacts = []
for i in range(a.contacts):
    created = T0 + rnd.random() * (NOW - T0 - DAY)
    if i % 12 == 0:
        e = ent["Organization"]; name = f"{rnd.choice(family)} {rnd.choice(['GmbH', 'Ltd', 'Inc', 'SA', 'Labs'])} {i}"
        row = dict(ZUNIT=rnd.choice([None, "Sales", "R&D"]))
    else:
        e = ent["Person"]; g = rnd.choice(given); f = rnd.choice(family)
        name = f"{g} {f} {i}"
        row = dict(ZGIVENNAME=g, ZFAMILYNAME=f, ZORGANIZATION=rnd.choice([None, None, "Acme", "Initech", "Globex"]),
                   ZJOBTITLE=rnd.choice([None, None, "Engineer", "Manager"]),
                   ZBIRTHDAY=(rnd.randint(-20000, 9000) * DAY if rnd.random() < 0.3 else None),
                   ZNICKNAME=rnd.choice([None] * 9 + ["Bee"]))
    row.update(Z_PK=cpk, Z_ENT=e, Z_OPT=1, ZCREATED=created, ZMODIFIED=created, ZNAME=name, ZNUMBER=cnum, ZUUID=u(),
               ZNOTES=rnd.choice([None, None, None, "met at a conference"]))
    cols = ",".join(row); c.execute(f"INSERT INTO ZCONTACT ({cols}) VALUES ({','.join('?' * len(row))})", list(row.values()))
    slug = name.lower().replace(" ", ".").replace("'", "")
    c.execute("INSERT INTO ZEMAILADDRESS VALUES (?,?,1,?,?,?,1,?)", (epk, ent["EmailAddress"], f"{slug}@example.org", cpk, e, "work")); epk += 1
    if rnd.random() < 0.3:
        c.execute("INSERT INTO ZEMAILADDRESS VALUES (?,?,1,?,?,?,2,?)", (epk, ent["EmailAddress"], f"{slug}@home.example", cpk, e, "home")); epk += 1
    if rnd.random() < 0.6:
        c.execute("INSERT INTO ZPHONENUMBER VALUES (?,?,1,?,?,1,?,?)", (ppk, ent["PhoneNumber"], cpk, e, "mobile", f"+44 7700 {rnd.randint(100000, 999999)}")); ppk += 1
    if rnd.random() < 0.2:
        c.execute("INSERT INTO ZPOSTALADDRESS (Z_PK,Z_ENT,Z_OPT,ZCONTACT,Z_CONTACT_ENT,Z_FOK_CONTACT,ZCOUNTRY,ZLABEL,ZLOCALITY,ZPOSTALCODE,ZSTREET) VALUES (?,?,1,?,?,1,?,?,?,?,?)",
                  (apk, ent["PostalAddress"], cpk, e, "UK", "home", "London", "N1 9GU", f"{rnd.randint(1, 200)} High St")); apk += 1
    contacts.append((cpk, e)); cpk += 1; cnum += 1

gpk = nextpk("ZGROUP"); gnum = nextnum("ZGROUP")
for name in ["family", "friends", "work", "book club", "football", "neighbours", "clients", "suppliers", "school", "board"]:
    c.execute("INSERT INTO ZGROUP (Z_PK,Z_ENT,Z_OPT,ZCREATED,ZMODIFIED,ZNAME,ZNUMBER,ZUUID) VALUES (?,?,1,?,?,?,?,?)",
              (gpk, ent["Group"], T0, T0, name, gnum, u()))
    for pk, _ in rnd.sample(contacts, min(60, len(contacts))):
        c.execute("INSERT INTO Z_1GROUPS VALUES (?,?)", (pk, gpk))
    gpk += 1; gnum += 1

# ---- tags
tags = {}
for n in tagnames:
    row = c.execute("SELECT Z_PK FROM ZTAG WHERE ZNAME = ?", (n,)).fetchone()
    if row: tags[n] = row[0]
    else:
        pk = nextpk("ZTAG"); c.execute("INSERT INTO ZTAG VALUES (?,?,1,?)", (pk, ent["Tag"], n)); tags[n] = pk

# ---- events: single events over the years, and repeating ones started years ago
vpk = nextpk("ZEVENT"); vnum = nextnum("ZEVENT")
events = []
rules = (["FREQ=WEEKLY"] * 110 + ["FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR"] * 30 + ["FREQ=DAILY"] * 30
         + ["FREQ=WEEKLY;INTERVAL=2"] * 10 + ["FREQ=MONTHLY"] * 10 + ["FREQ=YEARLY"] * 10)
for i in range(a.events):
    repeating = i < a.repeating
    allday = False; rule = None; exdates = None
    if repeating:
        rule = rules[i % len(rules)]
        start = T0 + rnd.random() * (4 * 365 * DAY)            # started 1 to 5 years ago, never ends
        start = start - start % 900
        if rule == "FREQ=YEARLY":                             # birthdays and anniversaries: all-day
            allday = True; start = start - start % DAY
        length = DAY if allday else rnd.choice([900, 1800, 3600])
        if i % 10 == 0:                                       # a few skipped occurrences
            exdates = ",".join(f"2025{m:02d}15T000000Z" for m in range(1, 4))
    else:
        start = T0 + rnd.random() * (NOW - T0 + 180 * DAY)      # up to half a year ahead
        start = start - start % 900
        allday = rnd.random() < 0.05
        if allday: start = start - start % DAY
        length = DAY if allday else rnd.choice([1800, 3600, 5400])
    created = min(start, NOW) - rnd.random() * 30 * DAY
    c.execute("""INSERT INTO ZEVENT (Z_PK,Z_ENT,Z_OPT,ZALLDAY,ZCALENDAR,ZCREATED,ZEND,ZEXCEPTIONDATES,ZLOCATION,ZMODIFIED,
                 ZNUMBER,ZRECURRENCERULE,ZSTART,ZSTATUS,ZTIMEZONE,ZTITLE,ZUUID) VALUES (?,?,1,?,?,?,?,?,?,?,?,?,?,?,?,?,?)""",
              (vpk, ent["Event"], int(allday), rnd.choice(["default", "work", "family"]), created, start + length, exdates,
               rnd.choice([None, None, "Room 1", "Zoom", "Café"]), created, vnum, rule, start, "confirmed", "Etc/UTC",
               f"{rnd.choice(words).capitalize()} {rnd.choice(words)} {i}", u()))
    if rnd.random() < 0.1:
        for pk, _ in rnd.sample(contacts, 3):
            c.execute("INSERT INTO Z_1ATTENDEDEVENTS VALUES (?,?)", (pk, vpk))
    events.append(vpk); vpk += 1; vnum += 1

# ---- tasks: mostly done over five years, about a thousand open
tpk = nextpk("ZTASK"); tnum = nextnum("ZTASK")
opened = []
for i in range(a.tasks):
    created = T0 + (NOW - T0) * i / a.tasks
    r = rnd.random()
    status = "done" if r < 0.92 else "cancelled" if r < 0.95 else "started" if r < 0.955 else "pending"
    if created > NOW - 60 * DAY and rnd.random() < 0.5: status = "pending"
    due = created + rnd.randint(1, 40) * DAY if rnd.random() < 0.6 else None
    completed = created + rnd.random() * 20 * DAY if status in ("done", "cancelled") else None
    if completed and completed > NOW: completed = NOW
    wait = NOW + rnd.randint(1, 30) * DAY if status == "pending" and rnd.random() < 0.05 else None
    assignee = rnd.choice(contacts) if rnd.random() < 0.05 else (None, None)
    event = rnd.choice(events) if rnd.random() < 0.02 else None
    c.execute("""INSERT INTO ZTASK (Z_PK,Z_ENT,Z_OPT,ZASSIGNEE,Z_ASSIGNEE_ENT,ZCOMPLETED,ZCREATED,ZDUE,ZEVENT,ZMODIFIED,ZNOTES,
                 ZNUMBER,ZPERCENTCOMPLETE,ZPRIORITY,ZPROJECT,ZSCHEDULED,ZSTARTED,ZSTATUS,ZTITLE,ZUUID,ZWAIT)
                 VALUES (?,?,?,?,?,?,?,?,?,?,?,?,0,?,?,?,?,?,?,?,?)""",
              (tpk, ent["Task"], 2 if completed else 1, assignee[0], assignee[1], completed, created, due, event,
               completed or created, rnd.choice([None] * 5 + ["see the thread"]), tnum,
               rnd.choice([0, 0, 0, 1, 5, 9]), rnd.choice(projects + [None] * 10), None,
               created + DAY if status == "started" else None, status,
               f"{rnd.choice(words).capitalize()} the {rnd.choice(words)} {i}", u(), wait))
    for t in rnd.sample(tagnames, rnd.choice([0, 0, 1, 1, 2])):
        c.execute("INSERT INTO Z_10TASKS VALUES (?,?)", (tags[t], tpk))
    if status in ("pending", "started"): opened.append(tpk)
    tpk += 1; tnum += 1
for _ in range(min(150, len(opened) // 4)):                  # dependencies among open tasks
    x, y = rnd.sample(opened, 2)
    c.execute("INSERT OR IGNORE INTO Z_11DEPENDENCIES VALUES (?,?)", (x, y))

# ---- key maxima, as the store keeps them per root table
for table, name in [("ZCONTACT", "Contact"), ("ZEMAILADDRESS", "EmailAddress"), ("ZEVENT", "Event"), ("ZGROUP", "Group"),
                    ("ZPHONENUMBER", "PhoneNumber"), ("ZPOSTALADDRESS", "PostalAddress"), ("ZTAG", "Tag"), ("ZTASK", "Task"),
                    ("ZJOURNALENTRY", "JournalEntry")]:
    c.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = (SELECT COALESCE(MAX(Z_PK),0) FROM " + table + ") WHERE Z_NAME = ?", (name,))
db.commit()
for t in ["ZCONTACT", "ZEMAILADDRESS", "ZPHONENUMBER", "ZPOSTALADDRESS", "ZGROUP", "ZEVENT", "ZTASK", "ZTAG", "Z_10TASKS", "Z_11DEPENDENCIES", "Z_1GROUPS", "Z_1ATTENDEDEVENTS", "ZJOURNALENTRY"]:
    print(t, c.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0])
print("open tasks", c.execute("SELECT COUNT(*) FROM ZTASK WHERE ZSTATUS IN ('pending','started')").fetchone()[0])
print("repeating events", c.execute("SELECT COUNT(*) FROM ZEVENT WHERE ZRECURRENCERULE IS NOT NULL").fetchone()[0])
