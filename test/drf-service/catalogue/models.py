from django.db import models
from django.db.models.functions import Lower


class Company(models.Model):
    name = models.TextField()
    street = models.TextField()
    zip_code = models.TextField()
    city = models.TextField()
    country_name = models.TextField()
    phone = models.TextField(null=True)
    fax = models.TextField(null=True)
    e_mail = models.TextField(null=True)
    platform_plus_status = models.BooleanField()
    website = models.TextField(null=True)
    logo = models.TextField(null=True)
    tags = models.TextField(null=True)
    vf_plus_status = models.BooleanField()

    class Meta:
        ordering = [Lower("name"), "id"]


class Event(models.Model):
    name = models.TextField()
    slug = models.TextField()
    start_date = models.DateField()
    end_date = models.DateField()
    logo = models.TextField(null=True)
    logo_bg_color = models.TextField(null=True)


class VirtualFair(models.Model):
    # The fairs are listed in the order they were entered.
    position = models.IntegerField()
    slug = models.TextField()
    name = models.TextField()
    link = models.TextField()
    logo = models.TextField()
    has_catalog = models.BooleanField()
    url = models.TextField()
    tile_pattern = models.TextField()
    tile_extension = models.TextField()
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
    slug = models.TextField()
    name = models.TextField()
    short_code = models.TextField(null=True)
    start_date = models.DateField()
    event_logo = models.TextField()

    class Meta:
        ordering = ["position"]


class Texture(models.Model):
    id = models.UUIDField(primary_key=True)
    name = models.TextField()
    texture = models.TextField()
    categories = models.JSONField()

    class Meta:
        ordering = ["name", "id"]
