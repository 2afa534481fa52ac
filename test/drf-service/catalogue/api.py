from django.conf import settings
from django.db.models import F
from rest_framework import generics, serializers
from rest_framework.filters import OrderingFilter, SearchFilter
from rest_framework.pagination import PageNumberPagination

from .models import Company, Event, FairEvent, Texture, VirtualFair


class NullsAsPostgres(OrderingFilter):
    """DRF's OrderingFilter (the terms it accepts, its default), with nulls sorted as PostgreSQL,
    the contract's database, sorts them: last going up, first going down, where SQLite puts them
    first going up. Ties by id, which neither database promises. Without a valid term and a
    default, the model's own order stays."""

    def filter_queryset(self, request, queryset, view):
        terms = self.get_ordering(request, queryset, view)
        if not terms:
            return queryset
        order = [
            F(term[1:]).desc(nulls_first=True) if term.startswith("-") else F(term).asc(nulls_last=True)
            for term in terms
        ]
        return queryset.order_by(*order, "id")


class CompanySerializer(serializers.ModelSerializer):
    class Meta:
        model = Company
        fields = [
            "id", "name", "street", "zip_code", "city", "country_name", "phone", "fax", "e_mail",
            "platform_plus_status", "website", "logo", "tags", "vf_plus_status",
        ]


class EventSerializer(serializers.ModelSerializer):
    class Meta:
        model = Event
        fields = ["id", "name", "slug", "start_date", "end_date", "logo", "logo_bg_color"]


class FairEventSerializer(serializers.ModelSerializer):
    id = serializers.IntegerField(source="event_id")

    class Meta:
        model = FairEvent
        fields = ["id", "slug", "name", "short_code", "start_date", "event_logo"]


class TilesSerializer(serializers.ModelSerializer):
    class Meta:
        model = VirtualFair
        fields = ["tile_pattern", "tile_extension", "tile_size"]


class SizeSerializer(serializers.ModelSerializer):
    class Meta:
        model = VirtualFair
        fields = ["width", "height"]


class ZoomSerializer(serializers.ModelSerializer):
    class Meta:
        model = VirtualFair
        fields = [
            "min", "max", "default", "booth_zoom_level", "reverse", "booth_section_start",
            "booth_detail_start", "translation_factor_7", "xs_width_max",
        ]


class VirtualFairSerializer(serializers.ModelSerializer):
    events = FairEventSerializer(many=True)
    tiles = TilesSerializer(source="*")
    size = SizeSerializer(source="*")
    zoom = ZoomSerializer(source="*")

    class Meta:
        model = VirtualFair
        fields = [
            "id", "slug", "name", "link", "logo", "has_catalog", "events", "url", "tiles", "size", "zoom", "show",
        ]


class TextureSerializer(serializers.ModelSerializer):
    class Meta:
        model = Texture
        fields = ["id", "name", "texture", "categories"]


# The views have no docstring: DRF would show it as the description in OPTIONS, which the
# contract has empty.
class CompanyList(generics.ListAPIView):
    queryset = Company.objects.all()
    serializer_class = CompanySerializer


class VirtualFairList(generics.ListAPIView):
    queryset = VirtualFair.objects.prefetch_related("events")
    serializer_class = VirtualFairSerializer


class EventList(generics.ListAPIView):
    queryset = Event.objects.all()
    serializer_class = EventSerializer
    filter_backends = [NullsAsPostgres]
    ordering_fields = "__all__"
    ordering = ["id"]


class VirtualBoothTextureList(generics.ListAPIView):
    queryset = Texture.objects.all()
    serializer_class = TextureSerializer
    pagination_class = PageNumberPagination


def filtered(view, section):
    """`view` with django-filter's exact lookups, SearchFilter and OrderingFilter, as `section` of
    the settings file names them. A list without ordering fields of its own takes the section's,
    none when it names none (DRF would otherwise allow every serializer field); the event list
    keeps its own."""
    if section is None:
        return view
    from django_filters.rest_framework import DjangoFilterBackend

    ordering_fields = getattr(view, "ordering_fields", None) or list(section.get("ordering_fields", []))
    return type(
        view.__name__,
        (view,),
        {
            "filter_backends": [DjangoFilterBackend, SearchFilter, NullsAsPostgres],
            "filterset_fields": list(section.get("filterset_fields", [])),
            "search_fields": list(section.get("search_fields", [])),
            "ordering_fields": ordering_fields,
        },
    )


# Each list by its path, with what the settings file gives it.
LISTS = {
    name: filtered(view, settings.STATIC_API_RESOURCES.get(name))
    for name, view in {
        "company": CompanyList,
        "virtualfair": VirtualFairList,
        "event": EventList,
        "virtualbooth-texture": VirtualBoothTextureList,
    }.items()
}
