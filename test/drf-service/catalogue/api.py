# The list views of the lists the service is told of (settings.STATIC_API_LISTS): each a
# ListAPIView with a ModelSerializer of its model (models.py), DRF's PageNumberPagination when
# paginated, OrderingFilter when it has ordering fields, and DjangoFilterBackend and SearchFilter
# when the settings file gives it a section. Made with type(), as a service's api.py would
# declare them by hand.

from django.conf import settings
from django.db.models import F
from rest_framework import generics, serializers
from rest_framework.filters import OrderingFilter, SearchFilter
from rest_framework.pagination import PageNumberPagination

from .models import EMBEDDED, MODELS, embedded_column


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


def model_serializer(model, fields, **declared):
    meta = type("Meta", (), {"model": model, "fields": fields})
    return type(f"{model.__name__}Serializer", (serializers.ModelSerializer,), {"Meta": meta, **declared})


def embedded_serializer(model, embed):
    """An item shown of another list: its `id` is the other record's, kept in a column of its own."""
    id_column = embedded_column(embed, "id")
    declared = {}
    if any(field["name"] == "id" for field in embed["fields"]):
        field_class = serializers.ModelSerializer.serializer_field_mapping[type(model._meta.get_field(id_column))]
        declared["id"] = field_class(source=id_column)
    return model_serializer(model, [field["name"] for field in embed["fields"]], **declared)


def list_serializer(description):
    model = MODELS[description["name"]]
    declared = {}
    for field in description["fields"]:
        if field["type"] == "group":
            # The group's columns are the record's own, shown as an object.
            parts = model_serializer(model, [part["name"] for part in field["fields"]])
            declared[field["name"]] = parts(source="*")
        elif field["type"] == "embed":
            embedded = EMBEDDED[(description["name"], field["name"])]
            declared[field["name"]] = embedded_serializer(embedded, field)(many=True)
    return model_serializer(model, [field["name"] for field in description["fields"]], **declared)


def own_ordering(description, model):
    """The ordering fields a list declares, labelled in the browsable API's form by their verbose
    names, as `ordering_fields = "__all__"` labels a model's fields; its default order, when the
    terms can say it (not a text compared without case, not the order of the data)."""
    fields = [(name, model._meta.get_field(name).verbose_name) for name in description["orderingFields"]]
    order = description["order"]
    if order == "source" or any(key.get("ignoreCase") for key in order):
        return {"ordering_fields": fields}
    terms = [("-" if key["descending"] else "") + key["field"] for key in order]
    return {"ordering_fields": fields, "ordering": [*terms, "id"]}


def list_view(description):
    """The view of one list. A list without ordering fields of its own takes the settings
    section's, none when it names none (DRF would otherwise allow every serializer field)."""
    model = MODELS[description["name"]]
    embeds = [field["name"] for field in description["fields"] if field["type"] == "embed"]
    # No docstring: DRF would show it as the description in OPTIONS, which the contract has empty.
    attributes = {
        "__module__": __name__,
        "__doc__": None,
        "name": description["title"],
        "queryset": model.objects.prefetch_related(*embeds) if embeds else model.objects.all(),
        "serializer_class": list_serializer(description),
    }
    if description["paginated"]:
        attributes["pagination_class"] = PageNumberPagination
    if description["orderingFields"]:
        attributes.update(filter_backends=[NullsAsPostgres], **own_ordering(description, model))
    section = description["settings"]
    if section is not None:
        from django_filters.rest_framework import DjangoFilterBackend

        attributes.update(
            filter_backends=[DjangoFilterBackend, SearchFilter, NullsAsPostgres],
            filterset_fields=list(section.get("filterset_fields", [])),
            search_fields=list(section.get("search_fields", [])),
        )
        if not description["orderingFields"]:
            attributes["ordering_fields"] = list(section.get("ordering_fields", []))
    return type(description["title"].replace(" ", ""), (generics.ListAPIView,), attributes)


# Each list's view by its path.
LISTS = {description["path"]: list_view(description) for description in settings.STATIC_API_LISTS}
