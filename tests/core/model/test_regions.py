"""AWS regions and partitions from the AWS SDK's list: real regions pass, typos get a did-you-mean."""

from __future__ import annotations

import re

import pytest

from mlplatform_core.model import regions
from mlplatform_core.model.config import ConfigError, parse


def test_the_snapshot_lists_every_partition_and_each_region_fits_its_partitions_pattern():
    snapshot = regions._snapshot()
    assert {"aws", "aws-cn", "aws-us-gov", "aws-iso", "aws-iso-b"} <= set(snapshot["partitions"])
    for name, part in snapshot["partitions"].items():
        assert part["regions"], name
        assert all(re.match(part["regionRegex"], r) for r in part["regions"]), name
    assert {"us-east-1", "eu-central-1", "ap-southeast-7", "mx-central-1"} <= set(regions.known_regions())


@pytest.mark.parametrize(
    ("region", "partition"),
    [
        ("us-east-1", "aws"),
        ("cn-northwest-1", "aws-cn"),
        ("us-gov-west-1", "aws-us-gov"),
        ("us-isob-east-1", "aws-iso-b"),
        ("us-iso-west-1", "aws-iso"),
        ("eusc-de-east-1", "aws-eusc"),
        ("eu-west-9", "aws"),  # not listed (yet): its partition by the name pattern
    ],
)
def test_partition_of(region, partition):
    assert regions.partition_of(region) == partition


@pytest.mark.parametrize(
    ("written", "suggested"),
    [("eu-centrl-1", "eu-central-1"), ("us-gov-west-9", "us-gov-west-1"), ("Oregon", "us-west-2")],
)
def test_a_region_that_aws_does_not_list_is_refused_with_a_did_you_mean(written, suggested):
    with pytest.raises(ConfigError) as err:
        parse({"aws:region": written, "ml-platform-eks:environment": "dev"})
    (problem,) = err.value.problems
    assert problem.path == "aws:region"
    assert f"'{written}' is not an AWS region; did you mean {suggested}" in problem.message


def test_every_listed_region_is_accepted():
    mirror = {"ml-platform-eks:imageRegistry": "registry.example.com/mirror"}  # China stacks need one
    for region in regions.known_regions():
        assert parse({"aws:region": region, "ml-platform-eks:environment": "dev", **mirror}).region == region


def test_the_refusal_says_what_a_user_of_the_installed_package_can_do():
    """The generator script is the repository's, not the wheel's: a user cannot run it."""
    with pytest.raises(ConfigError) as err:
        parse({"aws:region": "eu-west-9", "ml-platform-eks:environment": "dev"})
    (problem,) = err.value.problems
    assert "scripts/" not in problem.message and ".py" not in problem.message
    assert "upgrade ml-platform-eks" in problem.message and "regions the AWS SDK knew" in problem.message
