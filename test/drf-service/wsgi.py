# gunicorn's entry (`gunicorn --preload wsgi:application`): creates the tables and loads the
# catalogue once, before the workers start.

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "settings")

from django.core.wsgi import get_wsgi_application  # noqa: E402

application = get_wsgi_application()

from catalogue.load import load_catalogue  # noqa: E402

load_catalogue(os.environ["CATALOGUE"])
