# Fills the database from a catalogue file holding each list's records as the API shows them,
# by list name: {"company": [...], "virtualfair": [...], ...}.

import json

from django.conf import settings
from django.core.management import call_command
from django.db import connection
from django.db.backends.signals import connection_created

from .models import EMBEDDED, MODELS, PARENT, POSITION, SOURCE_POSITION, embedded_column


def unicode_lower(sender, connection, **kwargs):
    """SQLite's LOWER() folds ASCII letters only; PostgreSQL's, under a UTF-8 locale, every letter.
    A list ordered by a text without case (the companies by name) is ordered by it."""
    if connection.vendor == "sqlite":
        connection.connection.create_function("LOWER", 1, lambda text: None if text is None else text.lower())


connection_created.connect(unicode_lower)


def load_list(description, records):
    groups = [field["name"] for field in description["fields"] if field["type"] == "group"]
    embeds = [field for field in description["fields"] if field["type"] == "embed"]
    rows = []
    for position, record in enumerate(records):
        values = {key: value for key, value in record.items() if key not in groups}
        for embed in embeds:
            values.pop(embed["name"])
        for group in groups:
            values.update(record[group])
        if description["order"] == "source":
            values[SOURCE_POSITION] = position
        rows.append(MODELS[description["name"]](**values))
    MODELS[description["name"]].objects.bulk_create(rows)
    for embed in embeds:
        model = EMBEDDED[(description["name"], embed["name"])]
        model.objects.bulk_create(
            model(
                **{f"{PARENT}_id": record["id"], POSITION: index},
                **{embedded_column(embed, key): value for key, value in item.items()},
            )
            for record in records
            for index, item in enumerate(record[embed["name"]])
        )


def load_catalogue(path):
    with open(path, encoding="utf-8") as file:
        catalogue = json.load(file)
    call_command("migrate", run_syncdb=True, verbosity=0)
    for description in settings.STATIC_API_LISTS:
        load_list(description, catalogue.get(description["name"], []))
    # gunicorn forks its workers after this (--preload): each must open a connection of its own,
    # since an SQLite connection must not cross a fork.
    connection.close()
