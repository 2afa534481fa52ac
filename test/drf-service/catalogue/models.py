# The models of the lists the service is told of (settings.STATIC_API_LISTS, written by
# test/drf-service/lists.ts from the declarations), made with type() as a service's models.py
# would declare them by hand. The field types are those a DRF service's models would have, since
# django-filter chooses a filter by them: CharField (text, exact and case-sensitive),
# BooleanField, DateField, UUIDField, the integer ids, each nullable where the API shows null.
# The tables are made by `migrate --run-syncdb` (load.py): the app has no migrations.

from django.conf import settings
from django.db import models
from django.db.models.functions import Lower

# Long enough for any catalogue the tests load; a column this wide costs PostgreSQL nothing.
LENGTH = 10_000


def text(**options):
    return models.CharField(max_length=LENGTH, **options)


COLUMN_TYPES = {
    "text": text,
    "integer": models.IntegerField,
    "float": models.FloatField,
    "boolean": models.BooleanField,
    "date": models.DateField,
    "uuid": models.UUIDField,
    "json": models.JSONField,
}

# The column that keeps the order of the data, for a list declared in it ("source").
SOURCE_POSITION = "source_position"
# An embedded item's place in its record's list, and the record it belongs to.
POSITION = "position"
PARENT = "parent"


def column(field):
    return COLUMN_TYPES[field["type"]](null=field["nullable"])


def class_name(name):
    return "".join(part.capitalize() for part in name.replace("-", "_").split("_"))


def embedded_id_column(embed):
    """The column of the shown `id` of an embedded item: the id of the other list's record, which
    the item's own primary key cannot be (two records may show the same one)."""
    return f"{embed['resource'].replace('-', '_')}_id"


def embedded_column(embed, name):
    return embedded_id_column(embed) if name == "id" else name


def default_order(order):
    """The declared order, then by id; a text compared without case by its lower-cased value."""
    if order == "source":
        return [SOURCE_POSITION]
    terms = []
    for key in order:
        if key.get("ignoreCase"):
            term = Lower(key["field"])
            terms.append(term.desc() if key["descending"] else term)
        else:
            terms.append(("-" if key["descending"] else "") + key["field"])
    return [*terms, "id"]


def make_model(name, columns, ordering):
    meta = type("Meta", (), {"ordering": ordering})
    return type(name, (models.Model,), {"__module__": __name__, "Meta": meta, **columns})


def list_model(description):
    columns = {}

    def add(name, field):
        if name in columns:
            raise ValueError(f"{description['name']}: two fields make the column {name}")
        columns[name] = field

    for field in description["fields"]:
        if field["type"] == "embed":
            continue
        if field["type"] == "group":
            # A group's fields are columns of the record's own table (source="*" in api.py).
            for part in field["fields"]:
                add(part["name"], column(part))
        elif field["name"] == "id":
            # An integer id is Django's own AutoField; another kind is the primary key all the same.
            if field["type"] != "integer":
                add("id", COLUMN_TYPES[field["type"]](primary_key=True))
        else:
            add(field["name"], column(field))
    if description["order"] == "source":
        add(SOURCE_POSITION, models.IntegerField())
    return make_model(class_name(description["name"]), columns, default_order(description["order"]))


def embedded_model(owner, embed):
    columns = {
        PARENT: models.ForeignKey(owner, related_name=embed["name"], on_delete=models.CASCADE),
        POSITION: models.IntegerField(),
    }
    for field in embed["fields"]:
        columns[embedded_column(embed, field["name"])] = column(field)
    return make_model(f"{owner.__name__}{class_name(embed['name'])}", columns, [POSITION])


# Each list's model by its name, and the models of the items its records show of another list.
MODELS = {}
EMBEDDED = {}
for _description in settings.STATIC_API_LISTS:
    _model = MODELS[_description["name"]] = list_model(_description)
    for _field in _description["fields"]:
        if _field["type"] == "embed":
            EMBEDDED[(_description["name"], _field["name"])] = embedded_model(_model, _field)
