"""KMS (the secrets key and its policy), CloudWatch Logs, and Karpenter's interruption queue and event rules."""

from __future__ import annotations

from .api import Api
from .mapping import Resource, integer, maps, name_of, tags


@maps("aws:kms/key:Key", "internal/service/kms/key.go (resourceKeyCreate)")
def kms_key(api: Api, r: Resource) -> dict[str, str]:
    values = r.inputs.take("tags")
    rotation, period = r.inputs.take("enableKeyRotation"), integer(r.inputs.take("rotationPeriodInDays"))
    enabled = r.inputs.take("isEnabled")
    r.inputs.drop("deletionWindowInDays")  # ScheduleKeyDeletion, when the key is deleted
    answer = api(
        "kms",
        "CreateKey",
        Description=r.inputs.take("description"),
        KeyUsage=r.inputs.take("keyUsage", "ENCRYPT_DECRYPT"),
        KeySpec=r.inputs.take("customerMasterKeySpec", "SYMMETRIC_DEFAULT"),
        Policy=r.inputs.take("policy"),
        BypassPolicyLockoutSafetyCheck=r.inputs.take("bypassPolicyLockoutSafetyCheck"),
        MultiRegion=r.inputs.take("multiRegion"),
        Tags=[{"TagKey": k, "TagValue": v} for k, v in values.items()] if values else None,
    )["KeyMetadata"]
    r.inputs.done()
    key_id = answer["KeyId"]
    if rotation:  # key.go: rotation, then the enabled state, after the create
        api("kms", "EnableKeyRotation", KeyId=key_id, RotationPeriodInDays=period)
    if enabled is False:
        api("kms", "DisableKey", KeyId=key_id)
    return {"id": key_id, "keyId": key_id, "arn": answer["Arn"]}


@maps("aws:kms/keyPolicy:KeyPolicy", "internal/service/kms/key_policy.go (resourceKeyPolicyCreate)")
def kms_key_policy(api: Api, r: Resource) -> dict[str, str]:
    key_id = r.inputs.need("keyId")
    api(
        "kms",
        "PutKeyPolicy",
        KeyId=key_id,
        PolicyName="default",
        Policy=r.inputs.need("policy"),
        BypassPolicyLockoutSafetyCheck=r.inputs.take("bypassPolicyLockoutSafetyCheck"),
    )
    r.inputs.done()
    return {"id": key_id}


@maps("aws:cloudwatch/logGroup:LogGroup", "internal/service/logs/group.go (resourceGroupCreate)")
def log_group(api: Api, r: Resource) -> dict[str, str]:
    name = name_of(r)
    retention = integer(r.inputs.take("retentionInDays"))
    r.inputs.drop("skipDestroy")
    api(
        "logs",
        "CreateLogGroup",
        logGroupName=name,
        kmsKeyId=r.inputs.take("kmsKeyId"),
        logGroupClass=r.inputs.take("logGroupClass"),
        tags=r.inputs.take("tags"),
    )
    r.inputs.done()
    if retention:  # group.go: PutRetentionPolicy after the create
        api("logs", "PutRetentionPolicy", logGroupName=name, retentionInDays=retention)
    (group,) = [
        g for g in api("logs", "DescribeLogGroups", logGroupNamePrefix=name)["logGroups"] if g["logGroupName"] == name
    ]
    arn = group["arn"].removesuffix(":*")  # the provider drops the API's trailing ":*"
    return {"id": name, "name": name, "arn": arn}


@maps("aws:cloudwatch/eventRule:EventRule", "internal/service/events/rule.go (resourceRuleCreate)")
def event_rule(api: Api, r: Resource) -> dict[str, str]:
    name = name_of(r)
    enabled = r.inputs.take("isEnabled")
    state = r.inputs.take("state") or ("DISABLED" if enabled is False else "ENABLED")
    answer = api(
        "events",
        "PutRule",
        Name=name,
        EventBusName=r.inputs.take("eventBusName"),
        EventPattern=r.inputs.take("eventPattern"),
        ScheduleExpression=r.inputs.take("scheduleExpression"),
        Description=r.inputs.take("description"),
        RoleArn=r.inputs.take("roleArn"),
        State=state,
        Tags=tags(r.inputs.take("tags")),
    )
    r.inputs.done()
    return {"id": name, "name": name, "arn": answer["RuleArn"]}


@maps("aws:cloudwatch/eventTarget:EventTarget", "internal/service/events/target.go (resourceTargetCreate)")
def event_target(api: Api, r: Resource) -> dict[str, str]:
    rule, target_id = r.inputs.need("rule"), r.inputs.take("targetId") or r.physical
    target = {
        "Id": target_id,
        "Arn": r.inputs.need("arn"),
        "RoleArn": r.inputs.take("roleArn"),
        "Input": r.inputs.take("input"),
        "InputPath": r.inputs.take("inputPath"),
    }
    answer = api(
        "events",
        "PutTargets",
        Rule=rule,
        EventBusName=r.inputs.take("eventBusName"),
        Targets=[{k: v for k, v in target.items() if v is not None}],
    )
    r.inputs.done()
    if answer.get("FailedEntryCount"):  # target.go fails on any failed entry
        raise ValueError(f"PutTargets: {answer['FailedEntries']}")
    return {"id": f"{rule}-{target_id}"}


# queue.go's attribute map: the schema's name -> the SQS attribute (all sent as strings).
_QUEUE_ATTRIBUTES = {
    "delaySeconds": "DelaySeconds",
    "maxMessageSize": "MaximumMessageSize",
    "messageRetentionSeconds": "MessageRetentionPeriod",
    "receiveWaitTimeSeconds": "ReceiveMessageWaitTimeSeconds",
    "visibilityTimeoutSeconds": "VisibilityTimeout",
    "policy": "Policy",
    "redrivePolicy": "RedrivePolicy",
    "sqsManagedSseEnabled": "SqsManagedSseEnabled",
    "kmsMasterKeyId": "KmsMasterKeyId",
    "kmsDataKeyReusePeriodSeconds": "KmsDataKeyReusePeriodSeconds",
    "fifoQueue": "FifoQueue",
    "contentBasedDeduplication": "ContentBasedDeduplication",
}


def _attribute(value: object) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


@maps("aws:sqs/queue:Queue", "internal/service/sqs/queue.go (resourceQueueCreate)")
def queue(api: Api, r: Resource) -> dict[str, str]:
    name = name_of(r)
    attributes = {api_name: r.inputs.take(key) for key, api_name in _QUEUE_ATTRIBUTES.items()}
    answer = api(
        "sqs",
        "CreateQueue",
        QueueName=name,
        Attributes={k: _attribute(v) for k, v in attributes.items() if v is not None} or None,
        tags=r.inputs.take("tags"),
    )
    r.inputs.done()
    url = answer["QueueUrl"]
    arn = api("sqs", "GetQueueAttributes", QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    return {"id": url, "url": url, "name": name, "arn": arn}


@maps("aws:sqs/queuePolicy:QueuePolicy", "internal/service/sqs/queue_policy.go")
def queue_policy(api: Api, r: Resource) -> dict[str, str]:
    url = r.inputs.need("queueUrl")
    api("sqs", "SetQueueAttributes", QueueUrl=url, Attributes={"Policy": r.inputs.need("policy")})
    r.inputs.done()
    return {"id": url}
