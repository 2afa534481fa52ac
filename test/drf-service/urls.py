import os

from django.http import JsonResponse
from django.urls import path

from catalogue import api

urlpatterns = [path(f"{name}/", view.as_view()) for name, view in api.LISTS.items()]


def json_not_found(request, exception):
    """A 404 in JSON, as many DRF services answer an unknown path: Django's JsonResponse, without
    the Vary and Allow that DRF's views add."""
    return JsonResponse({"detail": "Not found."}, status=404)


# NOT_FOUND=json: that handler instead of Django's HTML page.
if os.environ.get("NOT_FOUND") == "json":
    handler404 = json_not_found
