# The field types are those a DRF service's models would have, since django-filter chooses a
# filter by them: CharField (text, exact and case-sensitive), BooleanField, DateField, the integer
# ids, each nullable where the API shows null.

from django.db import models
from django.db.models.functions import Lower

# Long enough for any catalogue the tests load; a column this wide costs PostgreSQL nothing.
LENGTH = 10_000


def text(**options):
    return models.CharField(max_length=LENGTH, **options)



class Company(models.Model):
    name = text()
    street = text()
    zip_code = text()
    city = text()
    country_name = text()
    phone = text(null=True)
    fax = text(null=True)
    e_mail = text(null=True)
    platform_plus_status = models.BooleanField()
    website = text(null=True)
    logo = text(null=True)
    tags = text(null=True)
    vf_plus_status = models.BooleanField()

    class Meta:
        ordering = [Lower("name"), "id"]


class Event(models.Model):
    name = text()
    slug = text()
    start_date = models.DateField()
    end_date = models.DateField()
    logo = text(null=True)
    logo_bg_color = text(null=True)


class VirtualFair(models.Model):
    # The fairs are listed in the order they were entered.
    position = models.IntegerField()
    slug = text()
    name = text()
    link = text()
    logo = text()
    has_catalog = models.BooleanField()
    url = text()
    tile_pattern = text()
    tile_extension = text()
    tile_size = models.IntegerField()
    width = models.IntegerField()
    height = models.IntegerField()
    min = models.IntegerField()
    max = models.IntegerField()
    default = models.IntegerField()
    booth_zoom_level = models.IntegerField()
    reverse = models.BooleanField()
    booth_section_start = models.IntegerField()
    booth_detail_start = models.IntegerField()
    translation_factor_7 = models.FloatField(null=True)
    xs_width_max = models.IntegerField(null=True)
    show = models.BooleanField()

    class Meta:
        ordering = ["position"]


class FairEvent(models.Model):
    """An event as a fair shows it: its own short code, and at times its own name or logo."""

    fair = models.ForeignKey(VirtualFair, related_name="events", on_delete=models.CASCADE)
    position = models.IntegerField()
    event_id = models.IntegerField()
    slug = text()
    name = text()
    short_code = text(null=True)
    start_date = models.DateField()
    event_logo = text()

    class Meta:
        ordering = ["position"]


class Texture(models.Model):
    id = models.UUIDField(primary_key=True)
    name = text()
    texture = text()
    categories = models.JSONField()

    class Meta:
        ordering = ["name", "id"]
