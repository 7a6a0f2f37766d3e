"""The one secret scanner: secret-bearing keys and recognisable credentials in plain data
(chart value overrides), with the key path a check reports at."""

from __future__ import annotations

from strata import secrets


def test_in_values_names_the_path_of_each_secret():
    values = {
        "hub": {"config": {"GenericOAuthenticator": {"client_secret": "s3cr3t", "client_id": "abc"}}},
        "extraEnv": {"API_TOKEN": "t0k3n", "LOG_LEVEL": "debug"},
        "env": [{"name": "DB_PASSWORD", "value": "pw"}, {"name": "MODE", "value": "fast"}],
        "note": "key AKIAIOSFODNN7EXAMPLE pasted here",
        "password": "",  # empty: nothing is held
    }
    found = dict(secrets.in_values(values))
    assert sorted(found, key=str) == sorted([
        ("hub", "config", "GenericOAuthenticator", "client_secret"),
        ("extraEnv", "API_TOKEN"),
        ("env", 0, "value"),
        ("note",),
    ], key=str)
    assert found[("note",)] == "note holds an AWS access key id"


def test_in_values_accepts_references_to_secrets():
    values = {"env": [{"name": "DB_PASSWORD", "valueFrom": {"secretKeyRef": {"name": "db", "key": "password"}}}],
              "existingSecret": "oauth"}
    assert list(secrets.in_values(values)) == []
