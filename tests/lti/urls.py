"""Parsnip's URLs with the fake LMS beside them (the LTI tests' ROOT_URLCONF)."""

from config.urls import urlpatterns as parsnip
from tests.lti.fake_lms import urlpatterns as fake_lms

urlpatterns = [*fake_lms, *parsnip]
