"""Interop check on PostgreSQL: Django (psycopg) builds and fills its tables, Strata edits them, Django reads back.

    python postgres.py prepare URL SCHEMA   # a fresh schema; Django's migrate creates its tables; seed rows
    python postgres.py verify URL SCHEMA    # after Strata ran: Django reads every row back and checks it
    python postgres.py drop URL SCHEMA      # drops the schema

URL is a libpq URL (STRATA_POSTGRES_URL: postgresql:///strata?host=/tmp/…&user=postgres). Strata's part is
Tests/StrataPostgresTests/PostgresInteropTests.swift: over `interop_item` it changes one column of each type
(alpha: name, notes, counter, active, created_at; gamma: released_on, price, uid, data, weight), leaves `delta`
alone, deletes `beta` and inserts `strata-new`; over `interop_price` (a ForeignKey) it changes gamma's amount
and adds a price for strata-new; over `interop_pet` (a ForeignKey to a UUID key) it moves tom to ann and adds
kit for bob, and adds the owner cy. `verify` reads every row through Django's ORM, checks the values, that
every column Strata was not asked to change holds the same text as before (`column::text`), and that Django's
lookups (uid, exact datetime, JSON key, decimal, select_related) find Strata's rows.
"""
import datetime as dt
import json
import os
import sys
import tempfile
import urllib.parse
import uuid
from decimal import Decimal

UTC = dt.timezone.utc
FIELDS = ["name", "notes", "counter", "active", "created_at", "released_on", "price", "uid", "data", "weight"]
SEED = [
    dict(name="alpha", notes="first", counter=10, active=True, created_at=dt.datetime(2001, 2, 3, 4, 5, 6, 789000, UTC),
         released_on=dt.date(1999, 12, 31), price=Decimal("12.30"), uid=uuid.UUID("0f8fad5b-d9cb-469f-a165-70867728950e"),
         data={"title": "café ✓", "tags": ["a", "ü"], "nested": {"x": 1.5, "flag": True}, "count": 3}, weight=1.5),
    dict(name="beta", notes=None, counter=20, active=False, created_at=dt.datetime(2010, 6, 7, 8, 9, 10, tzinfo=UTC),
         released_on=None, price=Decimal("0.10"), uid=uuid.UUID("7c9e6679-7425-40de-944b-e07fc1f90ae7"),
         data={"title": "zwei", "tags": [], "nested": {"x": -0.5, "flag": False}, "count": 0}, weight=2.25),
    dict(name="gamma", notes="третий ✓", counter=30, active=True, created_at=dt.datetime(2024, 2, 29, 23, 59, 59, 1, UTC),
         released_on=dt.date(2024, 2, 29), price=Decimal("7.00"), uid=uuid.UUID("16fd2706-8baf-433b-82eb-8c7f5044235d"),
         data={"title": "drei", "tags": ["x"], "nested": {"x": 0.1, "flag": True}, "count": -1}, weight=-0.5),
    dict(name="delta", notes="untouched 😀", counter=40, active=False, created_at=dt.datetime(1970, 1, 1, tzinfo=UTC),
         released_on=dt.date(1, 1, 1), price=Decimal("-9999999999.99"), uid=uuid.UUID("6ba7b810-9dad-11d1-80b4-00c04fd430c8"),
         data={"title": "", "tags": ["😀"], "nested": {"x": 1e-7, "flag": False}, "count": 2**40}, weight=1e-300),
]
# What Strata writes (PostgresInteropTests): one column of each type in alpha and gamma, and a new row.
ALPHA = SEED[0] | dict(name="alpha-strata", notes="notes ✓ strata", counter=-11, active=False,
                       created_at=dt.datetime(2024, 5, 6, 7, 8, 9, 123456, UTC))
GAMMA = SEED[2] | dict(released_on=dt.date(2000, 2, 29), price=Decimal("1234567890.12"),
                       uid=uuid.UUID("e621e1f8-c36c-495a-93fc-0c247a3e6e5f"),
                       data={"title": "drei ✓ strata", "tags": ["x", "ß"], "nested": {"x": 2.0, "flag": False}, "count": 5},
                       weight=0.1)
NEW = dict(name="strata-new", notes=None, counter=7, active=True, created_at=dt.datetime(2024, 5, 6, 7, 8, 9, 500000, UTC),
           released_on=dt.date(2024, 5, 6), price=Decimal("5.50"), uid=uuid.UUID("12345678-1234-5678-1234-567812345678"),
           data={"title": "neu 😀", "tags": [], "nested": {"x": 2.5, "flag": True}, "count": 0}, weight=2.5)
CHANGED = {"alpha": {"name", "notes", "counter", "active", "created_at"},
           "gamma": {"released_on", "price", "uid", "data", "weight"}}
OWNERS = {"ann": uuid.UUID("3f2504e0-4f89-41d3-9a0c-0305e82c3301"), "bob": uuid.UUID("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11")}
NEW_OWNER = ("cy", uuid.UUID("550e8400-e29b-41d4-a716-446655440000"))

MODELS = """from django.db import models
class Item(models.Model):
    name = models.CharField(max_length=100)
    notes = models.TextField(null=True)
    counter = models.IntegerField()
    active = models.BooleanField()
    created_at = models.DateTimeField()
    released_on = models.DateField(null=True)
    price = models.DecimalField(max_digits=12, decimal_places=2)
    uid = models.UUIDField(unique=True)
    data = models.JSONField()
    weight = models.FloatField()
class Price(models.Model):
    item = models.ForeignKey(Item, on_delete=models.CASCADE)
    amount = models.DecimalField(max_digits=12, decimal_places=2)
class Owner(models.Model):
    id = models.UUIDField(primary_key=True)
    name = models.CharField(max_length=50)
class Pet(models.Model):
    name = models.CharField(max_length=50)
    owner = models.ForeignKey(Owner, on_delete=models.PROTECT)
    born = models.DateTimeField(null=True)
"""


def setup(url, schema):
    """Django configured for the server `url` names, with `schema` as its search_path."""
    import django
    from django.conf import settings
    parts = urllib.parse.urlsplit(url)
    query = dict(urllib.parse.parse_qsl(parts.query))
    app = tempfile.mkdtemp(prefix="interop-django-pg-")
    os.makedirs(os.path.join(app, "interop", "migrations"))
    open(os.path.join(app, "interop", "__init__.py"), "w").close()
    open(os.path.join(app, "interop", "migrations", "__init__.py"), "w").close()
    with open(os.path.join(app, "interop", "models.py"), "w") as f:
        f.write(MODELS)
    sys.path.insert(0, app)
    settings.configure(
        DATABASES={"default": {"ENGINE": "django.db.backends.postgresql", "NAME": parts.path.lstrip("/") or query.get("dbname", ""),
                               "HOST": query.get("host", parts.hostname or ""), "PORT": str(parts.port or query.get("port", "")),
                               "USER": query.get("user", parts.username or ""), "PASSWORD": query.get("password", parts.password or ""),
                               "OPTIONS": {"options": f"-c search_path={schema}"}}},
        INSTALLED_APPS=["interop"], USE_TZ=True, TIME_ZONE="UTC", DEFAULT_AUTO_FIELD="django.db.models.BigAutoField")
    django.setup()
    return app


def raw(table):
    """Every row of `table` as {id: {column: its text (`::text`)}}: what Strata must leave alone, byte for byte."""
    from django.db import connection
    with connection.cursor() as cursor:
        cursor.execute("SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() "
                       "AND table_name = %s ORDER BY ordinal_position", [table])
        columns = [r[0] for r in cursor.fetchall()]
        cursor.execute("SELECT " + ", ".join(f'"{c}"::text' for c in columns) + f' FROM "{table}" ORDER BY 1')
        return {str(row[0]): dict(zip(columns, row)) for row in cursor.fetchall()}


def prepare(url, schema):
    import psycopg
    with psycopg.connect(url, autocommit=True) as con:
        con.execute(f'CREATE SCHEMA "{schema}"')
    setup(url, schema)
    from django.core.management import call_command
    call_command("makemigrations", "interop", verbosity=0)
    call_command("migrate", verbosity=0)
    from interop.models import Item, Owner, Pet, Price
    items = {row["name"]: Item.objects.create(**row) for row in SEED}
    Price.objects.create(item=items["alpha"], amount=Decimal("19.99"))
    Price.objects.create(item=items["gamma"], amount=Decimal("0.10"))
    owners = {name: Owner.objects.create(id=key, name=name) for name, key in OWNERS.items()}
    Pet.objects.create(name="rex", owner=owners["ann"], born=dt.datetime(2020, 1, 2, 3, 4, 5, 6, UTC))
    Pet.objects.create(name="tom", owner=owners["bob"])
    before = {t: raw(t) for t in ["interop_item", "interop_price", "interop_owner", "interop_pet"]}
    print(json.dumps(before, ensure_ascii=False))


def typed(value):
    """A JSON value with each leaf's Python type, so that 2.0 and 2 differ."""
    if isinstance(value, dict):
        return {k: typed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [typed(v) for v in value]
    return (type(value).__name__, value)


def verify(url, schema, before):
    setup(url, schema)
    from interop.models import Item, Owner, Pet, Price
    problems = []
    rows = {i.name: i for i in Item.objects.all()}
    want = {"alpha-strata": ALPHA, "gamma": GAMMA, "delta": SEED[3], "strata-new": NEW}
    if sorted(rows) != sorted(want):
        problems.append(f"items are {sorted(rows)}, expected {sorted(want)}")
    for name, row in want.items():
        item = rows.get(name)
        if item is None:
            continue
        got = {k: getattr(item, k) for k in FIELDS}
        if got != row:
            problems.append(f"{name} reads back {got}, expected {row}")
        elif typed(got["data"]) != typed(row["data"]):
            problems.append(f"{name}'s JSON reads back with other types: {got['data']} (expected {row['data']})")
        if str(item.price) != str(row["price"]):
            problems.append(f"{name}'s price reads {item.price!r}, expected {row['price']!r}")
        if item.created_at.tzinfo is None or item.created_at.utcoffset() != dt.timedelta(0):
            problems.append(f"{name}'s created_at reads back as {item.created_at!r}, not an aware UTC datetime")
    # Columns Strata was not asked to change keep their text; beta is gone; delta is byte-identical.
    after = raw("interop_item")
    old = before["interop_item"]
    for name, key in [("alpha", "1"), ("gamma", "3")]:
        moved = {c for c in after.get(key, {}) if after[key][c] != old[key][c]}
        if moved != CHANGED[name]:
            problems.append(f"{name}'s stored columns changed: {sorted(moved)}, expected {sorted(CHANGED[name])}")
    if "2" in after:
        problems.append("beta was not deleted")
    if after.get("4") != old["4"]:
        problems.append(f"delta is not byte-identical: {after.get('4')} vs {old['4']}")
    # Django's own lookups find Strata's values (stored in the column's own type and form).
    lookups = {
        "uid": sorted(i.name for i in Item.objects.filter(uid=NEW["uid"])) + sorted(i.name for i in Item.objects.filter(uid=GAMMA["uid"])),
        "created_at": sorted(i.name for i in Item.objects.filter(created_at=ALPHA["created_at"])),
        "created_at range": sorted(i.name for i in Item.objects.filter(created_at__gt=dt.datetime(2024, 5, 6, 7, 8, 9, 123455, UTC),
                                                                       created_at__lt=dt.datetime(2024, 5, 6, 7, 8, 9, 123457, UTC))),
        "released_on": sorted(i.name for i in Item.objects.filter(released_on=GAMMA["released_on"])),
        "price": sorted(i.name for i in Item.objects.filter(price=Decimal("1234567890.12"))),
        "data__title": sorted(i.name for i in Item.objects.filter(data__title=GAMMA["data"]["title"])),
        "data__tags__contains": sorted(i.name for i in Item.objects.filter(data__tags__contains=["ß"])),
        "data__nested__flag": sorted(i.name for i in Item.objects.filter(data__nested__flag=True)),
        "active": sorted(i.name for i in Item.objects.filter(active=True)),
        "notes__isnull": sorted(i.name for i in Item.objects.filter(notes__isnull=True)),
        "weight": sorted(i.name for i in Item.objects.filter(weight=0.1)),
    }
    want_lookups = {"uid": ["strata-new", "gamma"], "created_at": ["alpha-strata"], "created_at range": ["alpha-strata"],
                    "released_on": ["gamma"], "price": ["gamma"], "data__title": ["gamma"], "data__tags__contains": ["gamma"],
                    "data__nested__flag": ["alpha-strata", "strata-new"], "active": ["gamma", "strata-new"], "notes__isnull": ["strata-new"],
                    "weight": ["gamma"]}
    for lookup, found in lookups.items():
        if found != want_lookups[lookup]:
            problems.append(f"Item.objects.filter({lookup}=…) found {found}, expected {want_lookups[lookup]}")
    # The ForeignKeys: prices through select_related and the reverse manager; pets to UUID-keyed owners.
    prices = sorted((p.item.name, str(p.amount)) for p in Price.objects.select_related("item"))
    if prices != [("alpha-strata", "19.99"), ("gamma", "12345.68"), ("strata-new", "5.50")]:
        problems.append(f"prices read {prices}")
    if "strata-new" in rows and [str(p.amount) for p in rows["strata-new"].price_set.all()] != ["5.50"]:
        problems.append("strata-new's price_set does not find its price")
    pets = sorted((p.name, p.owner.name, p.owner.id, p.born) for p in Pet.objects.select_related("owner"))
    want_pets = [("kit", "bob", OWNERS["bob"], dt.datetime(2024, 1, 2, 3, 4, 5, 250000, UTC)),
                 ("rex", "ann", OWNERS["ann"], dt.datetime(2020, 1, 2, 3, 4, 5, 6, UTC)), ("tom", "ann", OWNERS["ann"], None)]
    if pets != want_pets:
        problems.append(f"pets read {pets}, expected {want_pets}")
    owners = sorted((o.name, o.id, sorted(p.name for p in o.pet_set.all())) for o in Owner.objects.all())
    want_owners = [("ann", OWNERS["ann"], ["rex", "tom"]), ("bob", OWNERS["bob"], ["kit"]), ("cy", NEW_OWNER[1], [])]
    if owners != want_owners:
        problems.append(f"owners read {owners}, expected {want_owners}")
    pet_raw, old_pets = raw("interop_pet"), before["interop_pet"]
    if pet_raw.get("1") != old_pets["1"]:
        problems.append(f"rex is not byte-identical: {pet_raw.get('1')} vs {old_pets['1']}")
    # Django's next insert takes the identity's next value: Strata's inserts did not write their own ids.
    try:
        from django.db import transaction
        with transaction.atomic():
            extra = Item.objects.create(**(NEW | {"name": "django-after", "uid": uuid.uuid4()}))
            if extra.id != 6:
                problems.append(f"Django's insert after Strata's got id {extra.id}, expected 6")
            transaction.set_rollback(True)
    except Exception as error:
        problems.append(f"Django could not insert after Strata: {type(error).__name__}: {error}")
    if problems:
        print("django (PostgreSQL): FAIL")
        for problem in problems:
            print(f"  - {problem}")
        return 1
    print(f"django (PostgreSQL): ok ({len(rows)} items, {len(prices)} prices, {len(pets)} pets, {len(owners)} owners read back)")
    return 0


def drop(url, schema):
    import psycopg
    with psycopg.connect(url, autocommit=True) as con:
        con.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


if __name__ == "__main__":
    if len(sys.argv) not in (4, 5) or sys.argv[1] not in ("prepare", "verify", "drop"):
        sys.exit(__doc__)
    command, url, schema = sys.argv[1:4]
    if command == "prepare":
        prepare(url, schema)
    elif command == "drop":
        drop(url, schema)
    else:
        with open(sys.argv[4], encoding="utf-8") as f:
            sys.exit(1 if verify(url, schema, json.load(f)) else 0)
