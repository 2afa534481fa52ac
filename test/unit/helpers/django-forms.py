# Reads JSON lines [kind, value] and writes for each what Django 3.2's form field of that kind
# makes of the value, as django-filter 23.1 reads a filter: ["ignored"], ["value", text] or
# ["error", message]. The oracle of test/process/filters.test.ts.
import json, sys
import django
from django.conf import settings
settings.configure(USE_I18N=False, USE_L10N=False)
django.setup()
from django import forms
from django.core.exceptions import ValidationError
from django_filters.widgets import BooleanWidget

FIELDS = {
    'text': forms.CharField(required=False),
    'integer': forms.DecimalField(required=False),
    'date': forms.DateField(required=False),
    'uuid': forms.UUIDField(required=False),
}

def read(kind, raw):
    if kind == 'boolean':
        value = BooleanWidget().value_from_datadict({'f': raw}, {}, 'f')
        return ['ignored'] if value is None else ['value', value]
    try:
        value = FIELDS[kind].clean(raw)
    except ValidationError as error:
        return ['error', error.messages[0]]
    if value in ([], (), {}, '', None):
        return ['ignored']
    if kind == 'integer':
        # What Django's IntegerField makes of it for an exact lookup.
        # Beyond 20 digits no record's integer can be equal: the engine says so instead.
        return ['value', 'beyond' if value.adjusted() >= 20 else str(int(value))]
    return ['value', str(value)]

for line in sys.stdin:
    kind, raw = json.loads(line)
    print(json.dumps(read(kind, raw)), flush=True)
