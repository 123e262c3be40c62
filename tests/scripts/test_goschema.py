"""The Go readers behind scripts/generators/generate_replacement.py, on source text shaped like the providers'."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts" / "lib"))

import goschema
import goschema_framework
import k8s_force_new
import pulumi_names
import tf_index

SOURCE = """
// @SDKResource("aws_example", name="Example")
func resourceExample() *schema.Resource {
	return &schema.Resource{
		CustomizeDiff: customdiff.Sequence(
			customdiff.ForceNewIfChange("encryption_config", func(_ context.Context, old, new, meta any) bool {
				return len(old.([]any)) == 1 // a brace in a rune: '{'
			}),
			resourceExampleCustomizeDiff,
		),
		SchemaFunc: func() map[string]*schema.Schema {
			return map[string]*schema.Schema{
			names.AttrSubnetIDs: {
				Type:     schema.TypeSet,
				Required: true,
				ForceNew: true, // a comment with a brace {
			},
			"description": {
				Type:        schema.TypeString,
				Description: "not } ForceNew: true",
				Optional:    true,
			},
			"taint": {
				Type:     schema.TypeSet,
				Optional: true,
				MaxItems: 50,
				Elem: &schema.Resource{Schema: map[string]*schema.Schema{
					"key": {Type: schema.TypeString, Required: true},
				}},
			},
			names.AttrLaunchTemplate: {
				Type:     schema.TypeList,
				MaxItems: 1,
				Optional: true,
				Elem: &schema.Resource{
					Schema: map[string]*schema.Schema{
						names.AttrID: {Type: schema.TypeString, Optional: true, ForceNew: true},
						names.AttrVersion: {Type: schema.TypeString, Required: true},
					},
				},
			},
			"encryption_config": {Type: schema.TypeList, MaxItems: 1, Optional: true},
			"instance_tenancy": {Type: schema.TypeString, Optional: true},
			"ingress": ruleSetNestedBlock,
			names.AttrARN: {Type: schema.TypeString, Computed: true, ForceNew: true},
			names.AttrTags: tftags.TagsSchema(),
			}
		},
	}
}
"""
SHARED = {
    ("ruleSetNestedBlock", None): "var ruleSetNestedBlock = &schema.Schema{Type: schema.TypeSet, Optional: true, "
    "Elem: ruleNestedBlock}",
    ("ruleNestedBlock", None): "var ruleNestedBlock = &schema.Resource{Schema: map[string]*schema.Schema{"
    '"from_port": {Type: schema.TypeInt, Required: true, ForceNew: true}}}',
    ("TagsSchema", "tftags"): "var TagsSchema = sync.OnceValue(tagsSchemaFunc)",
    ("tagsSchemaFunc", None): "func tagsSchemaFunc() *schema.Schema {\n\treturn &schema.Schema{Type: schema.TypeMap, "
    "Optional: true}\n}",
    ("resourceExampleCustomizeDiff", None): "func resourceExampleCustomizeDiff(_ context.Context, diff "
    '*schema.ResourceDiff, v any) error {\n\tif diff.HasChange("instance_tenancy") {\n\t\t'
    'diff.ForceNew("instance_tenancy")\n\t}\n\treturn nil\n}',
}


def resolve(name, alias):
    return SHARED.get((name, alias)) or SHARED.get((name, None))


def test_force_new_paths_in_pulumi_names():
    schema = goschema.resource_schema(SOURCE, "resourceExample", resolve=resolve)
    assert set(schema) == {
        "subnet_ids",
        "description",
        "taint",
        "launch_template",
        "encryption_config",
        "instance_tenancy",
        "ingress",
        "arn",
        "tags",
    }
    # Strings, comments and runes hold no structure; one-item blocks are objects, computed-only outputs no inputs;
    # a shared block is followed (and pulumi-aws's rename of `ingress` is honoured).
    assert pulumi_names.force_new_paths(schema, {"ingress": "ingress"}) == [
        "subnetIds",
        "launchTemplate.id",
        "ingress.fromPort",
    ]
    assert pulumi_names.pulumi_name(schema["taint"], {}) == "taints"  # a list block is plural
    assert schema["tags"].type == "schema.TypeMap" and "unresolved" not in schema["tags"].extra
    conditional = goschema.customize_diff_force_new(SOURCE, "resourceExample", resolve=resolve)
    assert conditional == {
        "encryption_config": "resourceExample CustomizeDiff (customdiff.ForceNewIfChange)",
        "instance_tenancy": "resourceExampleCustomizeDiff",
    }


def test_a_shared_schema_not_found_is_marked_not_guessed():
    schema = goschema.resource_schema(SOURCE, "resourceExample", resolve=lambda *_: None)
    assert pulumi_names.unresolved(schema) == ["ingress", "tags"]


def test_constant_names_and_plurals():
    assert goschema.attr_name("names.AttrVPCID") == "vpc_id"
    assert goschema.attr_name("names.AttrRoleARN") == "role_arn"
    assert goschema.attr_name("names.AttrSecurityGroupIDs") == "security_group_ids"
    assert goschema.attr_name("names.AttrCIDRBlock") == "cidr_block"
    table = goschema.attr_table('AttrVPCID = "vpc_id"\n\tAttrName = "name"')
    assert goschema.attr_name("names.AttrName", table) == "name"
    assert [pulumi_names.plural(n) for n in ("taint", "policy", "address", "ids", "thumbprintList")] == [
        "taints",
        "policies",
        "addresses",
        "ids",
        "thumbprintLists",
    ]


FRAMEWORK = """
func (r *exampleResource) Schema(ctx context.Context, request resource.SchemaRequest, response *Response) {
	response.Schema = schema.Schema{
		Attributes: map[string]schema.Attribute{
			names.AttrClusterName: schema.StringAttribute{
				Required: true,
				PlanModifiers: []planmodifier.String{
					stringplanmodifier.RequiresReplace(),
				},
			},
			"role": schema.StringAttribute{
				Optional: true,
				PlanModifiers: []planmodifier.String{
					stringplanmodifier.RequiresReplaceIfConfigured(),
				},
			},
			names.AttrRoleARN: schema.StringAttribute{Required: true},
			names.AttrID: framework.IDAttribute(),
		},
	}
}
"""


def test_plugin_framework_schemas():
    shared = {
        "IDAttribute": "func IDAttribute() schema.StringAttribute {\n\treturn schema.StringAttribute{Computed: true}\n}"
    }
    attrs = goschema_framework.framework_schema(FRAMEWORK, resolve=lambda name, alias: shared.get(name))
    assert {n for n, a in attrs.items() if a.force_new} == {"cluster_name"}
    assert attrs["role"].force_new_if and attrs["id"].computed_only and not attrs["role_arn"].force_new
    plan = "response.RequiresReplace = append(response.RequiresReplace, path.Root(names.AttrKey))"
    assert goschema_framework.plan_replaces(plan) == ["key"]


def test_the_index_finds_a_resource_through_its_service_registry():
    files = {
        "service/ex/method.servicePackage.SDKResources.goindex": 'package x\nimport (\n\t"a"\n)\nfunc (p *sp)'
        ' SDKResources() {\n\t\t{\n\t\t\tFactory:  resourceExample,\n\t\t\tTypeName: "aws_example",\n',
        "service/ex/func.resourceExample.goindex": 'package x\nimport (\n\t"a"\n)\n' + SOURCE,
        "service/ex/var.ruleSetNestedBlock.goindex": "package x\n" + SHARED[("ruleSetNestedBlock", None)],
        "service/ex/var.ruleNestedBlock.goindex": "package x\n" + SHARED[("ruleNestedBlock", None)],
    }
    index = tf_index.Index(files.get)
    schema = index.schema("ex", "aws_example")
    assert schema.factory == "resourceExample" and "service/ex/var.ruleNestedBlock.goindex" in schema.files
    assert pulumi_names.unresolved(schema.attributes) == ["tags"]  # tftags is not in this small index
    with pytest.raises(SystemExit, match="not registered"):
        index.schema("ex", "aws_other")


OVERRIDES = """
	return map[string]*tfbridge.ResourceInfo{
		"aws_security_group_rule": {
			Tok:                 awsResource(ec2Mod, "SecurityGroupRule"),
			DeleteBeforeReplace: true,
		},
		"aws_iam_role": {
			Fields: map[string]*tfbridge.SchemaInfo{
				"name": tfbridge.AutoName("name", 64, "-"),
			},
		},
		"aws_security_group": {
			Fields: map[string]*tfbridge.SchemaInfo{
				"ingress": {
					Name: "ingress",
				},
			},
		},
	}
"""


def test_pulumi_aws_overrides_and_auto_naming():
    assert pulumi_names.overrides(OVERRIDES, "aws_security_group_rule")["deleteBeforeReplace"]
    assert pulumi_names.overrides(OVERRIDES, "aws_iam_role")["autoNamed"] == ["name"]
    assert pulumi_names.overrides(OVERRIDES, "aws_security_group")["renames"] == {"ingress": "ingress"}
    assert not pulumi_names.overrides(OVERRIDES, "aws_vpc")["found"]
    name = goschema.Attribute("name", type="schema.TypeString")
    assert pulumi_names.auto_named({"name": name}, pulumi_names.overrides(OVERRIDES, "aws_vpc")) == ["name"]
    with pytest.raises(SystemExit, match=r"autonaming\.go"):
        pulumi_names.check_autonaming_rule("package provider")


DIFF_GO = """
func (k *kubeProvider) forceNewProperties(obj *unstructured.Unstructured) []string {
	props := metadataForceNewProperties(".metadata")
	if group, groupExists := forceNew[gvk.Group]; groupExists {
		if version, versionExists := group[gvk.Version]; versionExists {
			if clients.IsSecret(obj) && (!k.enableSecretMutable || clients.IsImmutable(obj)) {
				props = append(props, properties{".type", ".stringData", ".data"}...)
			} else if kindFields, kindExists := version[gvk.Kind]; kindExists {
				props = append(props, kindFields...)
			} else if clients.IsConfigMap(obj) && (!k.enableConfigMapMutable || clients.IsImmutable(obj)) {
				props = append(props, properties{".binaryData", ".data"}...)
			}
		}
	}
	return props
}

var forceNew = _groups{
	"apps": _versions{
		"v1": _kinds{"Deployment": deployment},
	},
	"": core,
}

var core = _versions{
	"v1": _kinds{"Service": properties{".spec.clusterIP"}},
}

var deployment = append(
	properties{
		".spec.selector",
	},
	labelSelectorForceNewProperties(".spec.selector")...,
)

func metadataForceNewProperties(prefix string) properties {
	return properties{
		prefix + ".name",
		prefix + ".namespace",
	}
}

func labelSelectorForceNewProperties(prefix string) properties {
	return properties{
		prefix + ".matchLabels",
	}
}
"""


def test_pulumi_kubernetes_force_new_list():
    found = k8s_force_new.force_new(DIFF_GO)
    assert found["*"] == ["metadata.name", "metadata.namespace"]
    assert found["kubernetes:apps/v1:Deployment"] == [
        "metadata.name",
        "metadata.namespace",
        "spec.selector",
        "spec.selector.matchLabels",
    ]
    assert found["kubernetes:core/v1:Service"][-1] == "spec.clusterIP"
    assert found["kubernetes:core/v1:ConfigMap"] == ["binaryData", "data", "metadata.name", "metadata.namespace"]
    helm = 'forceNewFields := []string{".name", ".namespace"}'
    assert k8s_force_new.helm_release_force_new(helm) == ["name", "namespace"]
    validation = """func ValidatePriorityClassUpdate(pc, oldPc *scheduling.PriorityClass) field.ErrorList {
	if pc.Value != oldPc.Value {
		allErrs = append(allErrs, field.Forbidden(field.NewPath("value"), "may not be changed in an update."))
	}
	allErrs = append(allErrs, v.ValidateImmutableField(pc.PP, oldPc.PP, field.NewPath("preemptionPolicy"))...)
	return allErrs
}"""
    assert k8s_force_new.validation_immutable(validation, "ValidatePriorityClassUpdate") == [
        "preemptionPolicy",
        "value",
    ]


DEFAULTS_SOURCE = """
func resourceCluster() *schema.Resource {
	return &schema.Resource{
		Schema: map[string]*schema.Schema{
			"bootstrap_self_managed_addons": {
				Type:     schema.TypeBool,
				Optional: true,
				ForceNew: true,
				Default:  true,
			},
			"kubernetes_network_config": {
				Type:     schema.TypeList,
				Optional: true,
				MaxItems: 1,
				Elem: &schema.Resource{
					Schema: map[string]*schema.Schema{
						"ip_family": {
							Type:     schema.TypeString,
							Optional: true,
							Computed: true,
							ForceNew: true,
						},
						"service_ipv4_cidr": {
							Type:     schema.TypeString,
							Optional: true,
							ForceNew: true,
							Default:  types.SomeConstant,
						},
					},
				},
			},
			"version": {
				Type:     schema.TypeString,
				Optional: true,
				Default:  "1.35",
			},
		},
	}
}
"""


def test_force_new_defaults_from_the_schema_and_the_sdk_docs():
    import force_new_defaults

    schema = goschema.resource_schema(DEFAULTS_SOURCE, "resourceCluster")
    facts = force_new_defaults.unset_facts(schema, "aws:eks/cluster:Cluster")
    # A literal schema Default; an Optional+Computed one's documented default (the installed SDK's docstring);
    # a constant is not guessed, and an updatable input's default is not a replacement fact.
    assert facts["defaults"] == {"bootstrapSelfManagedAddons": True, "kubernetesNetworkConfig.ipFamily": "ipv4"}
    assert facts["defaultFrom"]["bootstrapSelfManagedAddons"] == "schema Default: true"
    assert "ClusterKubernetesNetworkConfigArgs" in facts["defaultFrom"]["kubernetesNetworkConfig.ipFamily"]
    assert facts["computed"] == ["kubernetesNetworkConfig.ipFamily"]
    assert [force_new_defaults.go_literal(t) for t in ("false", "600", '"/"', "types.X")] == [False, 600, "/", None]
