"""Helpers shared by the unit and the integration tests (test servers, fakes, test graphs)."""
