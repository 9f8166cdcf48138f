"""Interop check: Django, SQLAlchemy and peewee read back what Strata wrote.

    python interop.py prepare DIR   # each tool builds its database with three rows (+ DIR/before.json)
    python interop.py verify DIR    # after Strata ran: each tool reads every row back and checks it

Strata's part (Tests/StrataTests/Interop/InteropTests.swift) renames `alpha`, saves the unchanged `gamma`,
deletes `beta` and inserts `strata-new`. `verify` checks the values through each tool's own ORM, and the
stored bytes of every column Strata was not asked to change.
"""
import datetime as dt
import enum
import json
import os
import sqlite3
import sys
import tempfile
import uuid
from decimal import Decimal

UTC = dt.timezone.utc
SEED = [
    dict(name="alpha", created_at=dt.datetime(2001, 2, 3, 4, 5, 6, 789000, UTC), released_on=dt.date(1999, 12, 31),
         uid=uuid.UUID("0f8fad5b-d9cb-469f-a165-70867728950e"), active=True, counter=10, weight=1.5, notes="first",
         seen_at=dt.datetime(2020, 1, 2, 3, 4, 5, tzinfo=UTC)),
    dict(name="beta", created_at=dt.datetime(2010, 6, 7, 8, 9, 10, tzinfo=UTC), released_on=None,
         uid=uuid.UUID("7c9e6679-7425-40de-944b-e07fc1f90ae7"), active=False, counter=20, weight=2.25, notes=None,
         seen_at=dt.datetime(2021, 1, 1, tzinfo=UTC)),
    dict(name="gamma", created_at=dt.datetime(2024, 2, 29, 23, 59, 59, 1, UTC), released_on=dt.date(2024, 2, 29),
         uid=uuid.UUID("16fd2706-8baf-433b-82eb-8c7f5044235d"), active=True, counter=30, weight=-0.5,
         notes="третий ✓", seen_at=dt.datetime(2024, 2, 29, 12, tzinfo=UTC)),
]
NEW = dict(name="strata-new", created_at=dt.datetime(2024, 5, 6, 7, 8, 9, 123456, UTC), released_on=dt.date(2024, 5, 6),
           uid=uuid.UUID("12345678-1234-5678-1234-567812345678"), active=True, counter=7, weight=2.5,
           notes="from strata", seen_at=dt.datetime(2024, 5, 6, 7, 8, 9, tzinfo=UTC))
# Events (InteropTests.events): a whole second, the same plus 0.25 s, and Python's datetime.max.
EVENT_WHOLE = dt.datetime(2024, 1, 4, 3, 4, 5, tzinfo=UTC)
EVENT_FRACTION = dt.datetime(2024, 1, 4, 3, 4, 5, 250000, tzinfo=UTC)
EVENT_STAMP = dt.datetime(2024, 1, 2, 3, 4, 5, 250000)      # peewee's seed, naive UTC
EVENT_NEW_STAMP = dt.datetime(2024, 1, 4, 3, 4, 5, 500000)   # what Strata writes
FIELDS = ["name", "created_at", "released_on", "uid", "active", "counter", "weight", "notes"]
TABLES = {"django": "interop_item", "sqlalchemy": "items", "peewee": "item"}
# JSON, decimals and floats (InteropTests.docs): Strata changes a key of `one`'s JSON, `two`'s decimal and its
# float (to 0.1), leaves `three` alone (finding it by its JSON) and inserts `strata`.
DOC_FIELDS = ["name", "data", "scores", "price", "ratio"]
DOC_TABLES = {"django": "interop_doc", "sqlalchemy": "docs", "peewee": "doc"}
DOC_SEED = [
    dict(name="one", data={"title": "café ✓", "tags": ["a", "ü"], "nested": {"x": 1.5, "ys": [1.0, 2.5],
         "deep": {"flag": True, "note": "naïve 😀"}}, "whole": 2.0, "count": 3}, scores=[1.5, 2.0, 3],
         price=Decimal("12.30"), ratio=1.25),
    dict(name="two", data={"title": "zwei", "tags": [], "nested": {"x": -0.5, "ys": [], "deep": {"flag": False, "note": ""}},
         "whole": 10.0, "count": 0}, scores=[], price=Decimal("0.10"), ratio=3.0),
    dict(name="three", data={"title": "drei ✓", "tags": ["x"], "nested": {"x": 0.1, "ys": [3.0],
         "deep": {"flag": True, "note": "ß"}}, "whole": 1e20, "count": -1}, scores=[0.1], price=Decimal("7.00"), ratio=-2.5),
]
DOC_NEW = dict(name="strata", data={"title": "neu ✓ 😀", "tags": ["é"], "nested": {"x": 2.5, "ys": [1.5, 2.0],
               "deep": {"flag": True, "note": "strata"}}, "whole": 4.0, "count": 7}, scores=[0.5, 2.0],
               price=Decimal("12.30"), ratio=0.1)
# Other field types (InteropTests.kinds): each tool seeds k1..k3 and `tool-new`; Strata changes one property of
# k1 (KIND_CHANGED), saves k2 unchanged and inserts `strata-new` with tool-new's values, which must be stored
# byte for byte as the tool stored them.
KIND_TABLES = {"django": "interop_kind", "sqlalchemy": "kinds", "peewee": "kind"}
KIND_CHANGED = {"django": "span", "sqlalchemy": "span", "peewee": "ts_ms"}
KIND_SEED = {
    "django": [
        dict(name="k1", amount=Decimal("12.30"), span=dt.timedelta(days=1, seconds=2, microseconds=3), at_time=dt.time(13, 14, 15, 123456),
             doc={"a": [1, 2], "b": "é"}, blob=b"\x00\x01\xff", ip="2001:db8::1", small=7, flag=None, at=dt.datetime(2024, 1, 2, 3, 4, 5, 600000, UTC)),
        dict(name="k2", amount=Decimal("0.10"), span=dt.timedelta(seconds=1.5), at_time=dt.time(1, 2, 3), doc=None, blob=b"",
             ip="10.0.0.1", small=0, flag=True, at=dt.datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC)),
        dict(name="k3", amount=Decimal("-7"), span=dt.timedelta(days=-1), at_time=dt.time(0, 0), doc={"x": None}, blob=b"abc",
             ip="::ffff:1.2.3.4", small=32767, flag=False, at=dt.datetime(1999, 12, 31, 23, 59, 59, 999999, UTC)),
    ],
    "sqlalchemy": [
        dict(name="k1", amount=Decimal("12.30"), span=dt.timedelta(days=1, seconds=2, microseconds=3), at_time=dt.time(13, 14, 15, 123456),
             doc={"a": [1, 2], "b": "é"}, blob=b"\x00\x01\xff", color="red", shade="green", flag=None, at=dt.datetime(2024, 1, 2, 3, 4, 5, 600000, UTC)),
        dict(name="k2", amount=Decimal("0.10"), span=dt.timedelta(seconds=1.5), at_time=dt.time(1, 2, 3), doc=None, blob=b"",
             color="green", shade="red", flag=True, at=dt.datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC)),
        dict(name="k3", amount=Decimal("-7"), span=dt.timedelta(days=-1), at_time=dt.time(0, 0), doc={"x": None}, blob=b"abc",
             color="red", shade="red", flag=False, at=dt.datetime(1999, 12, 31, 23, 59, 59, 999999, UTC)),
    ],
    "peewee": [
        dict(name="k1", ts_ms=dt.datetime(2024, 1, 2, 3, 4, 5, 678000), amount=Decimal("12.30"), at_time=dt.time(13, 14, 15, 123456),
             blob=b"\x00\x01\xff", flag=None, at=dt.datetime(2024, 1, 2, 3, 4, 5, 600000)),
        dict(name="k2", ts_ms=dt.datetime(2024, 1, 2, 3, 4, 5), amount=Decimal("0.10"), at_time=dt.time(1, 2, 3), blob=b"",
             flag=True, at=dt.datetime(2024, 1, 2, 3, 4, 5)),
        dict(name="k3", ts_ms=dt.datetime(1999, 12, 31, 23, 59, 59, 999000), amount=Decimal("-7"), at_time=dt.time(0, 0), blob=b"abc",
             flag=False, at=dt.datetime(1999, 12, 31, 23, 59, 59, 999999)),
    ],
}
KIND_NEW = {
    "django": dict(amount=Decimal("5.50"), span=dt.timedelta(days=2, microseconds=7), at_time=dt.time(8, 9, 10, 500000),
                   doc={"a": [3], "b": "ü ✓"}, blob=b"", ip="::1", small=65535, flag=False, at=dt.datetime(2024, 5, 6, 7, 8, 9, tzinfo=UTC)),
    "sqlalchemy": dict(amount=Decimal("5.50"), span=dt.timedelta(seconds=90, microseconds=250000), at_time=dt.time(8, 9, 10),
                       doc={"a": [3], "b": "ü ✓"}, blob=b"", color="green", shade="red", flag=False, at=dt.datetime(2024, 5, 6, 7, 8, 9, tzinfo=UTC)),
    "peewee": dict(ts_ms=dt.datetime(2024, 5, 6, 7, 8, 9, 123000), amount=Decimal("5.50"), at_time=dt.time(8, 9, 10, 500000), blob=b"",
                   flag=False, at=dt.datetime(2024, 5, 6, 7, 8, 9, 123456)),
}
# What Strata sets in k1 (the one property it changes).
KIND_UPDATE = {"django": dt.timedelta(days=-2, seconds=3, microseconds=250000), "sqlalchemy": dt.timedelta(hours=-1, microseconds=5),
               "peewee": dt.datetime(2024, 7, 8, 9, 10, 11, 250000)}

# peewee's ManyToManyField between UUID-keyed notes and labels; its through table starts empty.
NOTES = {"todo": uuid.UUID("3f2504e0-4f89-41d3-9a0c-0305e82c3301"), "done": uuid.UUID("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11")}
LABELS = {"work": uuid.UUID("550e8400-e29b-41d4-a716-446655440000"), "home": uuid.UUID("c9bf9e57-1685-4c89-bafb-ff5af830be8a")}


# ---- Django ---------------------------------------------------------------------------------------------

def django_setup(path):
    import django
    from django.conf import settings
    if not settings.configured:
        app = tempfile.mkdtemp(prefix="interop-django-")
        os.makedirs(os.path.join(app, "interop", "migrations"))
        open(os.path.join(app, "interop", "__init__.py"), "w").close()
        open(os.path.join(app, "interop", "migrations", "__init__.py"), "w").close()
        with open(os.path.join(app, "interop", "models.py"), "w") as f:
            f.write(
                "from django.db import models\n"
                "class Item(models.Model):\n"
                "    name = models.CharField(max_length=100)\n"
                "    created_at = models.DateTimeField()\n"
                "    released_on = models.DateField(null=True)\n"
                "    uid = models.UUIDField(unique=True)\n"
                "    active = models.BooleanField()\n"
                "    counter = models.IntegerField()\n"
                "    weight = models.FloatField()\n"
                "    notes = models.TextField(null=True)\n"
                "class Price(models.Model):\n"
                "    item = models.ForeignKey(Item, on_delete=models.CASCADE)\n"
                "    amount = models.DecimalField(max_digits=12, decimal_places=2)\n"
                "class Event(models.Model):\n"
                "    at = models.DateTimeField()\n"
                "class Tag(models.Model):\n"
                "    id = models.UUIDField(primary_key=True)\n"
                "    name = models.CharField(max_length=50)\n"
                "class Owner(models.Model):\n"
                "    id = models.UUIDField(primary_key=True)\n"
                "    name = models.CharField(max_length=50)\n"
                "    tags = models.ManyToManyField(Tag)\n"
                "class Pet(models.Model):\n"
                "    name = models.CharField(max_length=50)\n"
                "    owner = models.ForeignKey(Owner, on_delete=models.CASCADE)\n"
                "class Doc(models.Model):\n"
                "    name = models.CharField(max_length=50)\n"
                "    data = models.JSONField()\n"
                "    scores = models.JSONField()\n"
                "    price = models.DecimalField(max_digits=10, decimal_places=2)\n"
                "    ratio = models.FloatField()\n"
                "class Kind(models.Model):\n"
                "    name = models.CharField(max_length=50)\n"
                "    amount = models.DecimalField(max_digits=10, decimal_places=2)\n"
                "    span = models.DurationField()\n"
                "    at_time = models.TimeField()\n"
                "    doc = models.JSONField(null=True)\n"
                "    blob = models.BinaryField()\n"
                "    ip = models.GenericIPAddressField()\n"
                "    small = models.PositiveSmallIntegerField()\n"
                "    flag = models.BooleanField(null=True)\n"
                "    at = models.DateTimeField()\n"
                "class Memo(models.Model):\n"
                "    data = models.JSONField()\n")
        sys.path.insert(0, app)
        settings.configure(
            DATABASES={"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": path}},
            INSTALLED_APPS=["interop"], USE_TZ=True, TIME_ZONE="UTC",
            DEFAULT_AUTO_FIELD="django.db.models.AutoField")
        django.setup()
    from interop.models import Item
    return Item


def django_prices(path):
    """The Price rows as (item name, amount): a ForeignKey and a DecimalField, which Strata maps as a
    @Reference (by Django's `item_id` column) and a Decimal."""
    django_setup(path)
    from interop.models import Price
    return sorted((p.item.name, str(p.amount)) for p in Price.objects.select_related("item"))


def django_events(path):
    """The Event rows Strata inserted into the table Django left empty, and the one Django's equality
    filter finds for the whole second."""
    django_setup(path)
    from interop.models import Event
    found = [e.id for e in Event.objects.filter(at=EVENT_WHOLE)]
    return [(e.id, normal(e.at)) for e in Event.objects.order_by("id")], found


# UUID primary keys (char(32), 32 hex digits): a ForeignKey and a ManyToManyField to them.
OWNERS = {"ann": uuid.UUID("0f8fad5b-d9cb-469f-a165-70867728950e"), "bob": uuid.UUID("7c9e6679-7425-40de-944b-e07fc1f90ae7")}
TAGS = {"red": uuid.UUID("16fd2706-8baf-433b-82eb-8c7f5044235d"), "blue": uuid.UUID("6ba7b810-9dad-11d1-80b4-00c04fd430c8")}


def django_uuid_prepare():
    from interop.models import Owner, Pet, Tag
    owners = {name: Owner.objects.create(id=key, name=name) for name, key in OWNERS.items()}
    tags = {name: Tag.objects.create(id=key, name=name) for name, key in TAGS.items()}
    Pet.objects.create(name="rex", owner=owners["ann"])
    Pet.objects.create(name="tom", owner=owners["bob"])
    owners["ann"].tags.add(tags["red"])


def django_uuid_relations(path):
    """Pets with their owner's name, and each owner's pets and tags, through Django's own joins (which
    find only keys stored as Django stores them); and whether any key column holds a dash."""
    django_setup(path)
    from interop.models import Owner, Pet
    pets = sorted((p.name, p.owner.name) for p in Pet.objects.select_related("owner"))
    owners = sorted((o.name, sorted(p.name for p in o.pet_set.all()), sorted(t.name for t in o.tags.all()))
                    for o in Owner.objects.all())
    con = sqlite3.connect(path)
    dashed = con.execute("SELECT (SELECT count(*) FROM interop_pet WHERE owner_id LIKE '%-%')"
                         " + (SELECT count(*) FROM interop_owner_tags WHERE owner_id LIKE '%-%' OR tag_id LIKE '%-%')").fetchone()[0]
    con.close()
    return pets, owners, dashed


def django_prepare(path):
    from django.core.management import call_command
    Item = django_setup(path)
    call_command("makemigrations", "interop", verbosity=0)
    call_command("migrate", verbosity=0)
    from interop.models import Price
    from decimal import Decimal
    for row in SEED:
        item = Item.objects.create(**{k: row[k] for k in FIELDS})
        if row["name"] in ("alpha", "gamma"):
            Price.objects.create(item=item, amount=Decimal("19.99") if row["name"] == "alpha" else Decimal("0.10"))
    django_uuid_prepare()
    from interop.models import Doc, Kind
    for row in DOC_SEED:
        Doc.objects.create(**{k: row[k] for k in DOC_FIELDS})
    for row in KIND_SEED["django"] + [KIND_NEW["django"] | {"name": "tool-new"}]:
        Kind.objects.create(**row)


MEMO = {"a": [3, 4], "b": "ü ✓"}   # what Strata writes into Django's empty Memo table (InteropTests.djangoMemo)


def django_memos(path):
    """Django's Memo rows, and those its exact JSON lookup (text equality with json.dumps's output) finds."""
    django_setup(path)
    from interop.models import Memo
    con = sqlite3.connect(path)
    stored = [r[0] for r in con.execute("SELECT data FROM interop_memo ORDER BY id")]
    con.close()
    return [m.data for m in Memo.objects.order_by("id")], [m.id for m in Memo.objects.filter(data=MEMO)], stored


def django_kinds(path):
    """Every Kind row as Django reads it, by name, and what its equality filters on tool-new's values find."""
    django_setup(path)
    from interop.models import Kind
    fields = [f for f in KIND_NEW["django"]]
    rows = {k.name: {f: (bytes(getattr(k, f)) if f == "blob" else getattr(k, f)) for f in fields} for k in Kind.objects.all()}
    new = KIND_NEW["django"]
    found = sorted(k.name for k in Kind.objects.filter(**{f: new[f] for f in ["amount", "span", "at_time", "ip", "small", "flag", "at"]}))
    return rows, found


def django_docs(path):
    """Every Doc row as the ORM reads it, by name, and what Django's own lookups find: a key of the JSON
    (`data__title`), the decimal and the float Strata wrote."""
    django_setup(path)
    from interop.models import Doc
    rows = {d.name: {k: getattr(d, k) for k in DOC_FIELDS} | {"id": d.id} for d in Doc.objects.all()}
    found = {"title": sorted(d.name for d in Doc.objects.filter(data__title=DOC_NEW["data"]["title"])),
             "price": sorted(d.name for d in Doc.objects.filter(price=Decimal("12.30"))),
             "ratio": sorted(d.name for d in Doc.objects.filter(ratio=0.1))}
    return rows, found


def django_rows(path):
    Item = django_setup(path)
    rows = {i.name: {k: getattr(i, k) for k in FIELDS} | {"id": i.id} for i in Item.objects.all()}
    new = Item.objects.get(uid=NEW["uid"]).name if Item.objects.filter(uid=NEW["uid"]).exists() else None
    return rows, new


# ---- SQLAlchemy -----------------------------------------------------------------------------------------

def sqlalchemy_model():
    from sqlalchemy import JSON, Boolean, Date, DateTime, Enum, Float, Integer, Interval, LargeBinary, Numeric, String, Text, Time, Uuid
    from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

    class Base(DeclarativeBase):
        pass

    class Item(Base):
        __tablename__ = "items"
        id: Mapped[int] = mapped_column(Integer, primary_key=True)
        name: Mapped[str] = mapped_column(String(100))
        created_at: Mapped[dt.datetime] = mapped_column(DateTime)
        released_on: Mapped[dt.date | None] = mapped_column(Date, nullable=True)
        uid: Mapped[uuid.UUID] = mapped_column(Uuid, unique=True)
        active: Mapped[bool] = mapped_column(Boolean)
        counter: Mapped[int] = mapped_column(Integer)
        weight: Mapped[float] = mapped_column(Float)
        notes: Mapped[str | None] = mapped_column(Text, nullable=True)

    class Event(Base):
        __tablename__ = "events"
        id: Mapped[int] = mapped_column(Integer, primary_key=True)
        at: Mapped[dt.datetime] = mapped_column(DateTime)

    class Doc(Base):
        __tablename__ = "docs"
        id: Mapped[int] = mapped_column(Integer, primary_key=True)
        name: Mapped[str] = mapped_column(String(50))
        data: Mapped[dict] = mapped_column(JSON)
        scores: Mapped[list] = mapped_column(JSON)
        price: Mapped[Decimal] = mapped_column(Numeric(10, 2))
        ratio: Mapped[float] = mapped_column(Float)

    class Color(enum.Enum):   # a native Enum stores the names
        red = 1
        green = 2

    class Shade(enum.Enum):   # a non-native Enum with a CHECK, storing the values
        red = "r"
        green = "g"

    class Kind(Base):
        __tablename__ = "kinds"
        id: Mapped[int] = mapped_column(Integer, primary_key=True)
        name: Mapped[str] = mapped_column(String(50))
        amount: Mapped[Decimal] = mapped_column(Numeric(10, 2))
        span: Mapped[dt.timedelta] = mapped_column(Interval)
        at_time: Mapped[dt.time] = mapped_column(Time)
        doc: Mapped[dict | None] = mapped_column(JSON, nullable=True)
        blob: Mapped[bytes] = mapped_column(LargeBinary)
        color: Mapped[Color] = mapped_column(Enum(Color))
        shade: Mapped[Shade] = mapped_column(Enum(Shade, native_enum=False, create_constraint=True,
                                                  values_callable=lambda e: [m.value for m in e]))
        flag: Mapped[bool | None] = mapped_column(Boolean, nullable=True)
        at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True))

    Item.Event = Event
    Item.Doc = Doc
    Item.Kind, Item.Color, Item.Shade = Kind, Color, Shade
    return Base, Item


def sqlalchemy_prepare(path):
    from sqlalchemy import create_engine
    from sqlalchemy.orm import Session
    Base, Item = sqlalchemy_model()
    engine = create_engine(f"sqlite:///{path}")
    Base.metadata.create_all(engine)
    with Session(engine) as session:
        for row in SEED:   # naive UTC datetimes: SQLAlchemy's DateTime on SQLite has no zone
            session.add(Item(**{k: row[k] for k in FIELDS} | {"created_at": row["created_at"].replace(tzinfo=None)}))
        session.add(Item.Event(at=dt.datetime.max))   # "never": Strata copies it, and adds a whole second
        for row in DOC_SEED:
            session.add(Item.Doc(**{k: row[k] for k in DOC_FIELDS}))
        for row in KIND_SEED["sqlalchemy"] + [KIND_NEW["sqlalchemy"] | {"name": "tool-new"}]:
            session.add(Item.Kind(**sqlalchemy_kind(Item, row)))
        session.commit()


def sqlalchemy_kind(Item, row):
    """A Kind row's values as SQLAlchemy takes them: enum members, and a datetime with its zone (which
    SQLAlchemy's SQLite DateTime drops: UTC here)."""
    return row | {"color": Item.Color[row["color"]], "shade": Item.Shade[row["shade"]]}


def sqlalchemy_kinds(path):
    from sqlalchemy import create_engine, select
    from sqlalchemy.orm import Session
    _, Item = sqlalchemy_model()
    Kind = Item.Kind
    with Session(create_engine(f"sqlite:///{path}")) as session:
        rows = {k.name: {f: getattr(k, f) for f in KIND_NEW["sqlalchemy"]} | {"color": k.color.name, "shade": k.shade.name}
                for k in session.scalars(select(Kind))}
        new = sqlalchemy_kind(Item, KIND_NEW["sqlalchemy"])
        found = sorted(k.name for k in session.scalars(select(Kind).where(
            *[getattr(Kind, f) == new[f] for f in ["span", "at_time", "color", "shade", "flag", "at"]])))
        return rows, found


def sqlalchemy_docs(path):
    from sqlalchemy import create_engine, select
    from sqlalchemy.orm import Session
    _, Item = sqlalchemy_model()
    Doc = Item.Doc
    with Session(create_engine(f"sqlite:///{path}")) as session:
        rows = {d.name: {k: getattr(d, k) for k in DOC_FIELDS} | {"id": d.id} for d in session.scalars(select(Doc))}
        found = {"title": sorted(d.name for d in session.scalars(select(Doc).where(Doc.data["title"].as_string() == DOC_NEW["data"]["title"]))),
                 "price": sorted(d.name for d in session.scalars(select(Doc).where(Doc.price == Decimal("12.30")))),
                 "ratio": sorted(d.name for d in session.scalars(select(Doc).where(Doc.ratio == 0.1)))}
        return rows, found


def sqlalchemy_events(path):
    from sqlalchemy import create_engine, select
    from sqlalchemy.orm import Session
    _, Item = sqlalchemy_model()
    Event = Item.Event
    with Session(create_engine(f"sqlite:///{path}")) as session:
        rows = [(e.id, e.at) for e in session.scalars(select(Event).order_by(Event.id))]
        never = [e.id for e in session.scalars(select(Event).where(Event.at == dt.datetime.max))]
        whole = [e.id for e in session.scalars(select(Event).where(Event.at == EVENT_WHOLE.replace(tzinfo=None)))]
        return rows, never, whole


def sqlalchemy_rows(path):
    from sqlalchemy import create_engine, select
    from sqlalchemy.orm import Session
    _, Item = sqlalchemy_model()
    with Session(create_engine(f"sqlite:///{path}")) as session:
        rows = {i.name: {k: getattr(i, k) for k in FIELDS} | {"id": i.id} for i in session.scalars(select(Item))}
        found = session.scalars(select(Item).where(Item.uid == NEW["uid"])).first()
        return rows, found.name if found else None


# ---- peewee ---------------------------------------------------------------------------------------------

def peewee_model(path):
    import peewee as pw
    db = pw.SqliteDatabase(path)

    class Item(pw.Model):
        name = pw.CharField(max_length=100)
        created_at = pw.DateTimeField()
        released_on = pw.DateField(null=True)
        uid = pw.UUIDField(unique=True)
        active = pw.BooleanField()
        counter = pw.IntegerField()
        weight = pw.FloatField()
        notes = pw.TextField(null=True)
        seen_at = pw.TimestampField(utc=True)

        class Meta:
            database = db
            table_name = "item"

    class Event(pw.Model):
        at = pw.DateTimeField(null=True)
        stamp_us = pw.TimestampField(resolution=10**6, utc=True)

        class Meta:
            database = db
            table_name = "event"

    class PythonJSON(pw.TextField):
        """A TextField holding `json.dumps` text (Python's layout), as many peewee apps declare JSON."""
        def db_value(self, value):
            return None if value is None else json.dumps(value)

        def python_value(self, value):
            return None if value is None else json.loads(value)

    JSONField = getattr(pw, "JSONField", None)
    if JSONField is None:   # peewee 3: the SQLite extension's (also stored through SQLite's json())
        from playhouse.sqlite_ext import JSONField

    class Doc(pw.Model):
        name = pw.CharField(max_length=50)
        data = JSONField()          # json(json.dumps(v)): SQLite's minified text, \u escapes kept
        scores = PythonJSON()
        price = pw.DecimalField(max_digits=10, decimal_places=2, auto_round=True)
        ratio = pw.FloatField()

        class Meta:
            database = db
            table_name = "doc"

    # UUID keys (uuid.hex in a column declared UUID) and a ManyToManyField's own through table.
    class Label(pw.Model):
        id = pw.UUIDField(primary_key=True)
        name = pw.CharField(max_length=50)

        class Meta:
            database = db
            table_name = "label"

    class Note(pw.Model):
        id = pw.UUIDField(primary_key=True)
        name = pw.CharField(max_length=50)
        labels = pw.ManyToManyField(Label, backref="notes")

        class Meta:
            database = db
            table_name = "note"

    class Kind(pw.Model):
        name = pw.CharField(max_length=50)
        ts_ms = pw.TimestampField(resolution=1000, utc=True)
        amount = pw.DecimalField(max_digits=10, decimal_places=2)
        at_time = pw.TimeField()
        blob = pw.BlobField()
        flag = pw.BooleanField(null=True)
        at = pw.DateTimeField()

        class Meta:
            database = db
            table_name = "kind"

    Item.Event = Event
    Item.Doc = Doc
    Item.Kind = Kind
    Item.Note, Item.Label = Note, Label
    return db, Item


def peewee_prepare(path):
    db, Item = peewee_model(path)
    db.create_tables([Item])
    for row in SEED:
        values = {k: row[k] for k in FIELDS} | {"created_at": row["created_at"].replace(tzinfo=None),
                                                 "seen_at": row["seen_at"].replace(tzinfo=None)}
        Item.create(**values)
    db.create_tables([Item.Event])
    Item.Event.create(at=None, stamp_us=EVENT_STAMP)   # `at` stays empty: Strata takes Python's layout
    Through = Item.Note.labels.get_through_model()
    db.create_tables([Item.Doc, Item.Note, Item.Label, Through, Item.Kind])
    for row in KIND_SEED["peewee"] + [KIND_NEW["peewee"] | {"name": "tool-new"}]:
        Item.Kind.create(**row)
    for row in DOC_SEED:
        Item.Doc.create(**{k: row[k] for k in DOC_FIELDS})
    for name, key in NOTES.items():
        Item.Note.create(id=key, name=name)
    for name, key in LABELS.items():
        Item.Label.create(id=key, name=name)
    db.close()


def peewee_docs(path):
    db, Item = peewee_model(path)
    Doc = Item.Doc
    rows = {d.name: {k: getattr(d, k) for k in DOC_FIELDS} | {"id": d.id} for d in Doc.select()}
    found = {"title": sorted(d.name for d in Doc.select().where(Doc.data["title"] == DOC_NEW["data"]["title"])),
             "price": sorted(d.name for d in Doc.select().where(Doc.price == Decimal("12.30"))),
             "ratio": sorted(d.name for d in Doc.select().where(Doc.ratio == 0.1))}
    db.close()
    return rows, found


def peewee_kinds(path):
    db, Item = peewee_model(path)
    Kind = Item.Kind
    rows = {k.name: {f: (bytes(getattr(k, f)) if f == "blob" else getattr(k, f)) for f in KIND_NEW["peewee"]} for k in Kind.select()}
    new = KIND_NEW["peewee"]
    found = sorted(k.name for k in Kind.select().where(*[getattr(Kind, f) == new[f] for f in ["ts_ms", "at_time", "flag", "at"]]))
    db.close()
    return rows, found


def peewee_links(path):
    """Each note's labels and each label's notes through peewee's ManyToManyField, and the stored links."""
    db, Item = peewee_model(path)
    notes = sorted((n.name, sorted(l.name for l in n.labels)) for n in Item.Note.select())
    labels = sorted((l.name, sorted(n.name for n in l.notes)) for l in Item.Label.select())
    db.close()
    con = sqlite3.connect(path)
    stored = sorted(con.execute("SELECT typeof(note_id), note_id, typeof(label_id), label_id FROM note_label_through"))
    con.close()
    return notes, labels, stored


def peewee_events(path):
    db, Item = peewee_model(path)
    Event = Item.Event
    rows = [(e.id, e.at, e.stamp_us) for e in Event.select().order_by(Event.id)]
    whole = [e.id for e in Event.select().where(Event.at == EVENT_WHOLE.replace(tzinfo=None))]
    stamp = [e.id for e in Event.select().where(Event.stamp_us == EVENT_NEW_STAMP)]
    db.close()
    return rows, whole, stamp


def peewee_rows(path):
    db, Item = peewee_model(path)
    rows = {i.name: {k: getattr(i, k) for k in FIELDS + ["seen_at"]} | {"id": i.id} for i in Item.select()}
    found = Item.get_or_none(Item.uid == NEW["uid"])
    db.close()
    return rows, found.name if found else None


TOOLS = {
    "django": (django_prepare, django_rows),
    "sqlalchemy": (sqlalchemy_prepare, sqlalchemy_rows),
    "peewee": (peewee_prepare, peewee_rows),
}


# ---- Checks ---------------------------------------------------------------------------------------------

def raw_rows(path, table):
    """Every column of every row as (typeof, quote(value)): the stored bytes."""
    con = sqlite3.connect(path)
    columns = [r[1] for r in con.execute(f'PRAGMA table_info("{table}")')]
    result = {}
    for (rowid,) in con.execute(f'SELECT id FROM "{table}"'):
        result[str(rowid)] = {c: list(con.execute(f'SELECT typeof("{c}"), quote("{c}") FROM "{table}" WHERE id = ?',
                                                     (rowid,)).fetchone()) for c in columns}
    con.close()
    return result


def normal(value):
    """Values as each ORM returns them, made comparable: datetimes as naive UTC."""
    if isinstance(value, dt.datetime) and value.tzinfo is not None:
        return value.astimezone(UTC).replace(tzinfo=None)
    return value


def expected(row, tool):
    keys = FIELDS + (["seen_at"] if tool == "peewee" else [])
    return {k: normal(row[k]) for k in keys}


def prepare(folder):
    before = {}
    for tool, (make, _) in TOOLS.items():
        path = os.path.join(folder, f"{tool}.sqlite3")
        make(path)
        before[tool] = raw_rows(path, TABLES[tool])
        con = sqlite3.connect(path)
        print(con.execute("SELECT sql FROM sqlite_master WHERE name = ?", (TABLES[tool],)).fetchone()[0])
        con.close()
    before["docs"] = {tool: raw_rows(os.path.join(folder, f"{tool}.sqlite3"), table) for tool, table in DOC_TABLES.items()}
    before["kinds"] = {tool: raw_rows(os.path.join(folder, f"{tool}.sqlite3"), table) for tool, table in KIND_TABLES.items()}
    with open(os.path.join(folder, "before.json"), "w") as f:
        json.dump(before, f, indent=1, ensure_ascii=False)


def verify(folder):
    with open(os.path.join(folder, "before.json")) as f:
        before = json.load(f)
    failed = 0
    for tool, (_, read) in TOOLS.items():
        path = os.path.join(folder, f"{tool}.sqlite3")
        problems = []
        try:
            rows, found_by_uid = read(path)
        except Exception as error:   # the tool could not even read the table: the worst outcome
            rows, found_by_uid = {}, None
            problems.append(f"{tool} could not read the table: {type(error).__name__}: {error}")
        raw = raw_rows(path, TABLES[tool])
        old = before[tool]
        alpha, gamma = rows.get("alpha-strata"), rows.get("gamma")
        if alpha is None:
            problems.append("alpha was not renamed to alpha-strata")
        else:
            want = expected(SEED[0], tool) | {"name": "alpha-strata"}
            got = {k: normal(alpha[k]) for k in want}
            if got != want:
                problems.append(f"alpha reads back {got}, expected {want}")
            changed = {c for c in raw.get("1", {}) if raw["1"][c] != old["1"][c]}
            if changed != {"name"}:
                problems.append(f"alpha's stored columns changed: {sorted(changed)} (expected only name)")
        if "beta" in rows or "2" in raw:
            problems.append("beta was not deleted")
        if gamma is None or raw.get("3") != old["3"]:
            problems.append(f"gamma is not byte-identical: {raw.get('3')} vs {old['3']}")
        new = rows.get("strata-new")
        if new is None:
            problems.append("no strata-new row")
        else:
            want = expected(NEW, tool)
            got = {k: normal(new[k]) for k in want}
            if got != want:
                problems.append(f"strata-new reads back {got}, expected {want}")
            new_raw = raw.get(str(new["id"]), {})
            for column in ["created_at", "released_on", "uid", "active", "seen_at"]:
                if column in new_raw and new_raw[column][0] != old["1"][column][0]:
                    problems.append(f"strata-new stores {column} as {new_raw[column]}, the column holds {old['1'][column][0]}")
            if found_by_uid != "strata-new":
                problems.append(f"looking strata-new up by its uid through {tool} found {found_by_uid!r}")
        if set(rows) - {"alpha-strata", "gamma", "strata-new"}:
            problems.append(f"unexpected rows: {sorted(set(rows) - {'alpha-strata', 'gamma', 'strata-new'})}")
        if problems:
            failed += 1
            print(f"{tool}: FAIL")
            for problem in problems:
                print(f"  - {problem}")
        else:
            print(f"{tool}: ok")
    # Strata changed gamma's price and gave alpha a second one (InteropTests.django).
    path = os.path.join(folder, "django.sqlite3")
    try:
        prices = django_prices(path)
    except Exception as error:
        prices = f"{type(error).__name__}: {error}"
    want = [("alpha-strata", "19.99"), ("alpha-strata", "5.50"), ("gamma", "1234567.89")]
    if prices != want:
        failed += 1
        print(f"django prices: FAIL\n  - Django reads {prices}, expected {want}")
    else:
        print("django prices: ok")
    failed += verify_events(folder)
    # Strata moved tom to ann, added kit for bob, tagged ann blue and bob red, untagged ann red.
    try:
        relations = django_uuid_relations(path)
    except Exception as error:
        relations = f"{type(error).__name__}: {error}"
    want = ([("kit", "bob"), ("rex", "ann"), ("tom", "ann")], [("ann", ["rex", "tom"], ["blue"]), ("bob", ["kit"], ["red"])], 0)
    if relations != want:
        failed += 1
        print(f"django uuid keys: FAIL\n  - Django reads {relations}, expected {want}")
    else:
        print("django uuid keys: ok")
    failed += verify_docs(folder, before["docs"])
    failed += verify_links(folder)
    failed += verify_kinds(folder, before["kinds"])
    try:
        memos = django_memos(path)
    except Exception as error:
        memos = f"{type(error).__name__}: {error}"
    want = ([MEMO], [1], [json.dumps(MEMO)])
    if memos != want:
        failed += 1
        print(f"django empty JSONField: FAIL\n  - Django reads {memos}, expected {want}")
    else:
        print("django empty JSONField: ok")
    print(f"interop: {len(TOOLS) + 7 - failed} passed, {failed} failed")
    return failed


def typed(value, strict=True):
    """A JSON value with the Python type of every leaf: 2.0 and 2 are equal, but not the same float. Not
    `strict`: a whole float and an int are both a whole number (Strata writes a whole Double as `2`)."""
    if isinstance(value, dict):
        return {k: typed(v, strict) for k, v in value.items()}
    if isinstance(value, list):
        return [typed(v, strict) for v in value]
    if not strict and type(value) in (int, float) and float(value).is_integer():
        return ("whole", float(value))
    return (type(value).__name__, value)


def read_each(folder, readers, what, problems):
    """Each tool's reading of its own database in `folder`: (tool, path, what `read` returned); a tool that
    cannot read is a problem, and is skipped."""
    for tool, read in readers.items():
        path = os.path.join(folder, f"{tool}.sqlite3")
        try:
            result = read(path)
        except Exception as error:
            problems.append(f"{tool} could not read its {what}: {type(error).__name__}: {error}")
            continue
        yield tool, path, result


def verify_docs(folder, before):
    """JSON, decimals and floats Strata changed and inserted (InteropTests.docs): each tool reads every row
    back equal, with the same Python types (a whole double stays a float), its own lookups find them (a key
    of the JSON, Decimal('12.30'), 0.1), columns Strata was not asked to change keep their bytes, and the
    JSON Strata wrote has the column's layout (json.dumps's, or SQLite's json() for peewee's JSONField)."""
    problems = []
    one = DOC_SEED[0] | {"data": DOC_SEED[0]["data"] | {"title": "café ✓ strata"}}
    two = DOC_SEED[1] | {"price": Decimal("45.60"), "ratio": 0.1}
    want = {"one": one, "two": two, "three": DOC_SEED[2], "strata": DOC_NEW}
    changed = {"one": {"data"}, "two": {"price", "ratio"}, "three": set()}
    readers = {"django": django_docs, "sqlalchemy": sqlalchemy_docs, "peewee": peewee_docs}
    con = sqlite3.connect(":memory:")
    for tool, path, (rows, found) in read_each(folder, readers, "docs", problems):
        raw, old = raw_rows(path, DOC_TABLES[tool]), before[tool]
        for name, row in want.items():
            got = rows.get(name)
            if got is None:
                problems.append(f"{tool}: no doc {name!r}")
                continue
            values = {k: got[k] for k in DOC_FIELDS}
            if values != row:
                problems.append(f"{tool}: {name} reads back {values}, expected {row}")
            elif typed(values["data"], False) != typed(row["data"], False) or typed(values["scores"], False) != typed(row["scores"], False):
                problems.append(f"{tool}: {name}'s JSON reads back with other types: {values['data']} {values['scores']}")
            elif typed(values["data"]) != typed(row["data"]) or typed(values["scores"]) != typed(row["scores"]):
                problems.append(f"{tool}: {name}'s JSON reads back a whole double as an int: {values['data']} {values['scores']}")
            # Django and SQLAlchemy quantize to decimal_places on read; peewee's auto_round does on write.
            price = values["price"] if tool != "peewee" else values["price"].quantize(Decimal("0.01"))
            if str(price) != str(row["price"]):
                problems.append(f"{tool}: {name}'s price reads {values['price']!r}, expected {row['price']!r}")
            stored = raw.get(str(got["id"]), {})
            if name in changed:
                moved = {c for c in stored if stored[c] != old[str(got["id"])][c]}
                if moved != changed[name]:
                    problems.append(f"{tool}: {name}'s stored columns changed: {sorted(moved)}, expected {sorted(changed[name])}")
            for column in (["data"] if name == "one" else ["data", "scores"] if name == "strata" else []):
                kind, text = stored[column][0], con.execute(f"SELECT {stored[column][1]}").fetchone()[0]
                layout = (con.execute("SELECT json(?)", (text,)).fetchone()[0] if tool == "peewee" and column == "data"
                          else json.dumps(json.loads(text)))
                if kind != "text" or text != layout or not text.isascii():   # every tool's rows escape beyond ASCII
                    problems.append(f"{tool}: {name}'s {column} is stored as {kind} {text!r}, the column's layout is {layout!r}")
            if name == "strata":
                for column in ["price", "ratio"]:
                    if stored[column][0] != old["1"][column][0]:
                        problems.append(f"{tool}: strata's {column} is stored as {stored[column]}, the column holds {old['1'][column][0]}")
        want_found = {"title": ["strata"], "price": ["one", "strata"], "ratio": ["strata", "two"]}
        if found != want_found:
            problems.append(f"{tool}'s lookups found {found}, expected {want_found}")
    con.close()
    if problems:
        print("docs (JSON, decimals, floats): FAIL")
        for problem in problems:
            print(f"  - {problem}")
        return 1
    print("docs (JSON, decimals, floats): ok")
    return 0


def kind_values(tool, row):
    """A Kind row's values as the tool reads them: datetimes as naive UTC (SQLAlchemy's and peewee's are
    naive already), Django's Decimal quantized as it reads it."""
    return {k: (normal(v) if k != "amount" else Decimal(v).quantize(Decimal("0.01"))) for k, v in row.items()}


def verify_kinds(folder, before):
    """Other field types (InteropTests.kinds): each tool reads every Kind row back equal (k1 with the one
    property Strata changed), its equality filters on tool-new's values find strata-new too, k1 changed only
    that column, k2 and k3 kept their bytes, and strata-new is stored byte for byte as the tool stored
    tool-new (storage class and text of every column)."""
    problems = []
    readers = {"django": django_kinds, "sqlalchemy": sqlalchemy_kinds, "peewee": peewee_kinds}
    for tool, path, (rows, found) in read_each(folder, readers, "kinds", problems):
        seed = {row["name"]: {k: v for k, v in row.items() if k != "name"} for row in KIND_SEED[tool]}
        changed = KIND_CHANGED[tool]
        want = {"k1": seed["k1"] | {changed: KIND_UPDATE[tool]}, "k2": seed["k2"], "k3": seed["k3"],
                "tool-new": KIND_NEW[tool], "strata-new": KIND_NEW[tool]}
        for name, row in want.items():
            got = rows.get(name)
            if got is None:
                problems.append(f"{tool}: no kind {name!r}")
            elif kind_values(tool, got) != kind_values(tool, row):
                problems.append(f"{tool}: {name} reads back {got}, expected {row}")
        if found != ["strata-new", "tool-new"]:
            problems.append(f"{tool}: filtering on tool-new's values found {found}")
        raw, old = raw_rows(path, KIND_TABLES[tool]), before[tool]
        moved = {c for c in raw.get("1", {}) if raw["1"][c] != old["1"][c]}
        if moved != {changed}:
            problems.append(f"{tool}: k1's stored columns changed: {sorted(moved)}, expected [{changed!r}]")
        for key in ["2", "3", "4"]:
            if raw.get(key) != old[key]:
                problems.append(f"{tool}: row {key} is not byte-identical: {raw.get(key)} vs {old[key]}")
        tool_new, strata_new = raw.get("4", {}), raw.get("5", {})
        for column in tool_new:
            if column not in ("id", "name") and strata_new.get(column) != tool_new[column]:
                problems.append(f"{tool}: strata-new stores {column} as {strata_new.get(column)}, {tool} stored {tool_new[column]}")
    if problems:
        print("kinds (other field types): FAIL")
        for problem in problems:
            print(f"  - {problem}")
        return 1
    print("kinds (other field types): ok")
    return 0


def verify_links(folder):
    """The links Strata added to (and removed from) peewee's empty ManyToManyField through table, between
    UUIDField keys (uuid.hex): peewee finds them from both sides, and they are stored as its keys are."""
    try:
        notes, labels, stored = peewee_links(os.path.join(folder, "peewee.sqlite3"))
    except Exception as error:
        print(f"peewee uuid links: FAIL\n  - {type(error).__name__}: {error}")
        return 1
    want = ([("done", ["work"]), ("todo", ["home"])], [("home", ["todo"]), ("work", ["done"])],
            sorted([("text", NOTES["todo"].hex, "text", LABELS["home"].hex), ("text", NOTES["done"].hex, "text", LABELS["work"].hex)]))
    if (notes, labels, stored) != want:
        print(f"peewee uuid links: FAIL\n  - peewee reads {(notes, labels, stored)}, expected {want}")
        return 1
    print("peewee uuid links: ok")
    return 0


def verify_events(folder):
    """Dates Strata wrote into an empty Django and peewee datetime column (Python's layout: no fraction on
    a whole second), beside SQLAlchemy's datetime.max (copied as itself) and into a microsecond
    TimestampField: each tool reads them back and its equality lookups find them."""
    problems = []
    whole, fraction = EVENT_WHOLE.replace(tzinfo=None), EVENT_FRACTION.replace(tzinfo=None)

    def stored(tool, table):
        con = sqlite3.connect(os.path.join(folder, f"{tool}.sqlite3"))
        rows = con.execute(f'SELECT * FROM "{table}" ORDER BY id').fetchall()
        con.close()
        return rows

    try:
        rows, found = django_events(os.path.join(folder, "django.sqlite3"))
        if [at for _, at in rows] != [whole, fraction] or found != [rows[0][0]]:
            problems.append(f"django events read {rows}, filter(at=whole) found {found}")
        if [r[1] for r in stored("django", "interop_event")] != ["2024-01-04 03:04:05", "2024-01-04 03:04:05.250000"]:
            problems.append(f"django events stored {stored('django', 'interop_event')}")
    except Exception as error:
        problems.append(f"django events: {type(error).__name__}: {error}")
    try:
        rows, never, found = sqlalchemy_events(os.path.join(folder, "sqlalchemy.sqlite3"))
        if [at for _, at in rows] != [dt.datetime.max, dt.datetime.max, whole] or never != [1, 2] or found != [3]:
            problems.append(f"sqlalchemy events read {rows}, at == max found {never}, at == whole found {found}")
    except Exception as error:
        problems.append(f"sqlalchemy events: {type(error).__name__}: {error}")
    try:
        rows, found, stamp = peewee_events(os.path.join(folder, "peewee.sqlite3"))
        if rows != [(1, None, EVENT_STAMP), (2, whole, EVENT_NEW_STAMP)] or found != [2] or stamp != [2]:
            problems.append(f"peewee events read {rows}, at == whole found {found}, stamp_us == new found {stamp}")
        if stored("peewee", "event") != [(1, None, 1704164645250000), (2, "2024-01-04 03:04:05", 1704337445500000)]:
            problems.append(f"peewee events stored {stored('peewee', 'event')}")
    except Exception as error:
        problems.append(f"peewee events: {type(error).__name__}: {error}")
    if problems:
        print("events: FAIL")
        for problem in problems:
            print(f"  - {problem}")
        return 1
    print("events: ok")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("prepare", "verify"):
        sys.exit(__doc__)
    command, folder = sys.argv[1], sys.argv[2]
    if command == "prepare":
        prepare(folder)
    else:
        sys.exit(1 if verify(folder) else 0)
