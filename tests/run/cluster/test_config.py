"""NIKA_RAY_* engine configuration: parsed, or refused with NIKA-CLUSTER-003 naming the fix."""

from __future__ import annotations

import pytest

from nika.errors import NikaError
from nika.run.cluster.config import DEFAULT_LOST_AFTER, RayConfig, parse_resources


def test_per_verb_hints_become_ray_task_options() -> None:
    config = RayConfig.from_env({
        "NIKA_RAY_RESOURCES": '{"agent": {"num_gpus": 1, "resources": {"gpu_box": 1}},'
                              ' "exec": {"num_cpus": 0.5}}',
        "NIKA_RAY_ADDRESS": "ray://head:10001",
    })
    assert config.address == "ray://head:10001"
    assert config.options("agent") == {"num_gpus": 1, "resources": {"gpu_box": 1}}
    assert config.options("exec") == {"num_cpus": 0.5}
    assert config.options("infer") == {}
    assert config.lost_after == DEFAULT_LOST_AFTER


def test_the_flag_wins_over_the_environment() -> None:
    config = RayConfig.from_env({"NIKA_RAY_ADDRESS": "a:1", "NIKA_RAY_LOST_AFTER": "2.5"},
                                "b:2")
    assert (config.address, config.lost_after) == ("b:2", 2.5)
    assert RayConfig.from_env({}).address is None  # a local instance for the run


@pytest.mark.parametrize("text, fragment", [
    ("{not json", "not JSON"),
    ("[1]", "JSON object keyed by verb"),
    ('{"shell": {"num_cpus": 1}}', "'shell', which is no verb"),
    ('{"exec": {"cpus": 1}}', "not a resource hint"),
    ('{"exec": {"num_cpus": -1}}', "not a non-negative number"),
    ('{"exec": {"num_cpus": true}}', "not a non-negative number"),
    ('{"exec": {"resources": ["gpu"]}}', "must map resource names"),
    ('{"exec": {"resources": {"gpu": "1"}}}', "not a non-negative number"),
])
def test_a_bad_resources_value_is_refused_with_the_fix(text: str, fragment: str) -> None:
    with pytest.raises(NikaError) as caught:
        parse_resources(text)
    assert caught.value.code == "NIKA-CLUSTER-003"
    assert fragment in caught.value.detail


@pytest.mark.parametrize("value", ["0", "-3", "soon", "nan", "inf"])
def test_a_bad_lost_after_is_refused(value: str) -> None:
    with pytest.raises(NikaError) as caught:
        RayConfig.from_env({"NIKA_RAY_LOST_AFTER": value})
    assert caught.value.code == "NIKA-CLUSTER-003"
