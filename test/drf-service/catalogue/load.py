# Fills the database from a catalogue file holding the lists as the API shows them:
# {"companies": [...], "virtualfairs": [...], "events": [...], "textures": [...]}.

import json

from django.core.management import call_command
from django.db import connection
from django.db.backends.signals import connection_created

from .models import Company, Event, FairEvent, Texture, VirtualFair


def unicode_lower(sender, connection, **kwargs):
    """SQLite's LOWER() folds ASCII letters only; PostgreSQL's, under a UTF-8 locale, every letter.
    The companies are ordered by it."""
    if connection.vendor == "sqlite":
        connection.connection.create_function("LOWER", 1, lambda text: None if text is None else text.lower())


connection_created.connect(unicode_lower)

FAIR_PARTS = ("tiles", "size", "zoom")


def load_catalogue(path):
    with open(path, encoding="utf-8") as file:
        catalogue = json.load(file)
    call_command("migrate", run_syncdb=True, verbosity=0)
    Company.objects.bulk_create(Company(**record) for record in catalogue["companies"])
    Event.objects.bulk_create(Event(**record) for record in catalogue["events"])
    Texture.objects.bulk_create(Texture(**record) for record in catalogue["textures"])
    for position, record in enumerate(catalogue["virtualfairs"]):
        fields = {key: value for key, value in record.items() if key not in ("events", *FAIR_PARTS)}
        for part in FAIR_PARTS:
            fields.update(record[part])
        fair = VirtualFair.objects.create(position=position, **fields)
        FairEvent.objects.bulk_create(
            FairEvent(fair=fair, position=index, event_id=event.pop("id"), **event)
            for index, event in enumerate(record["events"])
        )
    # gunicorn forks its workers after this (--preload): each must open a connection of its own,
    # since an SQLite connection must not cross a fork.
    connection.close()
