from django.urls import path

from catalogue import api

urlpatterns = [
    path("company/", api.CompanyList.as_view()),
    path("virtualfair/", api.VirtualFairList.as_view()),
    path("event/", api.EventList.as_view()),
    path("virtualbooth-texture/", api.VirtualBoothTextureList.as_view()),
]
