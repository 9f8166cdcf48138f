"""Interop check: Django, SQLAlchemy and peewee read back what Strata wrote.

    python interop.py prepare DIR   # each tool builds its database with three rows (+ DIR/before.json)
    python interop.py verify DIR    # after Strata ran: each tool reads every row back and checks it

Strata's part (Tests/StrataTests/Interop/InteropTests.swift) renames `alpha`, saves the unchanged `gamma`,
deletes `beta` and inserts `strata-new`. `verify` checks the values through each tool's own ORM, and the
stored bytes of every column Strata was not asked to change.
"""
import datetime as dt
import json
import os
import sqlite3
import sys
import tempfile
import uuid

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
FIELDS = ["name", "created_at", "released_on", "uid", "active", "counter", "weight", "notes"]
TABLES = {"django": "interop_item", "sqlalchemy": "items", "peewee": "item"}


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
                "    amount = models.DecimalField(max_digits=12, decimal_places=2)\n")
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


def django_rows(path):
    Item = django_setup(path)
    rows = {i.name: {k: getattr(i, k) for k in FIELDS} | {"id": i.id} for i in Item.objects.all()}
    new = Item.objects.get(uid=NEW["uid"]).name if Item.objects.filter(uid=NEW["uid"]).exists() else None
    return rows, new


# ---- SQLAlchemy -----------------------------------------------------------------------------------------

def sqlalchemy_model():
    from sqlalchemy import Boolean, Date, DateTime, Float, Integer, String, Text, Uuid
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
        session.commit()


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

    return db, Item


def peewee_prepare(path):
    db, Item = peewee_model(path)
    db.create_tables([Item])
    for row in SEED:
        values = {k: row[k] for k in FIELDS} | {"created_at": row["created_at"].replace(tzinfo=None),
                                                 "seen_at": row["seen_at"].replace(tzinfo=None)}
        Item.create(**values)
    db.close()


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
    print(f"interop: {len(TOOLS) + 1 - failed} passed, {failed} failed")
    return failed


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("prepare", "verify"):
        sys.exit(__doc__)
    command, folder = sys.argv[1], sys.argv[2]
    if command == "prepare":
        prepare(folder)
    else:
        sys.exit(1 if verify(folder) else 0)
