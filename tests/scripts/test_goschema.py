"""The Go schema reader behind scripts/generate_replacement.py, on schema text shaped like the provider's."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

import generate_replacement
import goschema

SOURCE = """
// @SDKResource("aws_example", name="Example")
func resourceExample() *schema.Resource {
	return &schema.Resource{
		Schema: map[string]*schema.Schema{
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
			names.AttrARN: {Type: schema.TypeString, Computed: true, ForceNew: true},
			names.AttrTags: tftags.TagsSchema(),
		},
	}
}
"""


def test_force_new_paths_in_pulumi_names():
    schema = goschema.resource_schema(SOURCE, "resourceExample")
    assert set(schema) == {"subnet_ids", "description", "taint", "launch_template", "arn", "tags"}
    # Strings and comments hold no structure; one-item blocks are objects, computed-only outputs are no inputs.
    assert generate_replacement.force_new_paths(schema, {}) == ["subnetIds", "launchTemplate.id"]
    assert generate_replacement.pulumi_name(schema["taint"], {}) == "taints"  # a list block is plural


def test_constant_names():
    assert goschema.attr_name("names.AttrVPCID") == "vpc_id"
    assert goschema.attr_name("names.AttrRoleARN") == "role_arn"
    assert goschema.attr_name("names.AttrSecurityGroupIDs") == "security_group_ids"
    assert goschema.attr_name("names.AttrCIDRBlock") == "cidr_block"
    table = goschema.attr_table('AttrVPCID = "vpc_id"\n\tAttrName = "name"')
    assert goschema.attr_name("names.AttrName", table) == "name"


def test_pulumi_aws_overrides():
    text = """
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
	}
"""
    assert generate_replacement.overrides(text, "aws_security_group_rule")["deleteBeforeReplace"]
    assert generate_replacement.overrides(text, "aws_iam_role")["autoNamed"] == ["name"]
    assert not generate_replacement.overrides(text, "aws_vpc")["found"]
